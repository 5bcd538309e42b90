// A structure-aware mutator of HLO text (issue #28): edits that keep a module parseable
// line by line but break what XLA's verifier checks across lines, where byte-level fuzzing
// rarely lands: a called computation swapped for another (calls=, to_apply=, body=,
// condition=, branches), a while's body and condition swapped, an instruction's result
// shape replaced by another instruction's, an attribute copied from one instruction to
// another, an operand dropped or repeated, a call to the entry computation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hlo_index::fuzz {

/// `text` with one to three such edits, chosen by `seed` (the same seed, the same
/// mutant); `text` unchanged when it has no instruction line to edit.
std::string mutate_hlo(std::string_view text, std::uint64_t seed);

}  // namespace hlo_index::fuzz

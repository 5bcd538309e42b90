// A fusion's body as lint and utilisation see it: for every fused
// instruction, the maps from each output of the fusion to that
// instruction's result, and for every use of a parameter inside the body
// (a fused instruction reading it), the maps from each output through that
// use. Counting per fused instruction is what tells a shared producer of
// several outputs from a recomputed one.
//
// Execution model of a multi-output fusion: its outputs share one loop
// (a loop fusion's common output shape, a reduction fusion's iteration over
// the reduce input), and each fused instruction is evaluated once per
// element of that loop, not once per output that needs it. When the outputs
// share one shape (a loop fusion) their maps are over the loop itself: a read
// two outputs make at the same loop point is one read. When a reduce is among
// them (a reduction fusion) a fused instruction reached from several outputs
// is counted as the output that demands the most of it (reduce(dot) and the
// dot itself evaluate the dot once per element).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// One parameter use inside a fusion body: fused instruction `user` reads
/// the parameter as its operand `position`.
struct FusedUse {
  std::uint32_t user = 0;
  std::size_t position = 0;
  std::vector<indexing::MapSet> maps;  // [output] -> maps output -> parameter through this use
};

struct FusedBody {
  std::uint32_t callee = 0;
  std::size_t outputs = 0;
  /// [output] -> (fused instruction, tuple element) -> maps output -> that result.
  std::vector<std::map<std::pair<std::uint32_t, std::size_t>, indexing::MapSet>> to_instruction;
  /// [parameter number] -> its uses, in body order.
  std::vector<std::vector<FusedUse>> parameter_uses;
  /// The outputs have one shape and none is a reduce (a loop fusion): their
  /// maps share one domain, the loop, so equal maps are one read and
  /// different ones are reads of their own.
  bool one_loop_domain = false;
  std::string undefined_reason;  // non-empty: some step had no maps; nothing else is filled in
  bool defined() const { return undefined_reason.empty(); }
};

/// The body of fusion (or call) `instruction` of `computation`.
FusedBody fused_body(const hlo::Module& module, indexing::IndexingAnalysis& analysis, std::uint32_t computation,
                     std::uint32_t instruction);

/// The maps of one parameter under the execution model above, as distinct
/// relations over all uses: with one output, or outputs over one loop
/// domain, every output's maps (equal relations once); otherwise, per use,
/// the maps of the output that makes the most reads through it.
/// The output whose reads through `use` are the most: the one a reduction
/// fusion's shared loop evaluates the use for (none: no output reads it).
std::optional<std::size_t> loop_output(const FusedUse& use);

indexing::MapSet shared_loop_reads(const FusedBody& body, std::size_t parameter);

/// How often one fused instruction's result (tuple element `element`) is
/// evaluated per execution of the fusion, under the execution model above:
/// the (loop point, element) pairs of its maps from the outputs over one loop
/// domain, else the most any one output demands. `maps` are those maps
/// (defined, without runtime offsets: the elements evaluated are
/// count_union_image of them); `exact` is false for an upper bound.
struct Evaluations {
  std::int64_t count = 0;
  bool exact = true;
  indexing::MapSet maps;
};
Evaluations fused_evaluations(const FusedBody& body, std::uint32_t instruction, std::size_t element);

}  // namespace hlo_index::analysis

// Canonical re-printing of a parsed module: one instruction per line, shapes in
// XLA's compact form, untyped operands, comments dropped and blanks folded in
// attribute values. Printing the re-parsed output gives the same bytes.
#pragma once

#include <string>
#include <string_view>

#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

std::string print_module(const hlo::Module& module);

/// `text` with comments removed and every run of blanks outside strings folded
/// into one space (none at either end).
std::string fold_blanks(std::string_view text);

}  // namespace hlo_index::parser

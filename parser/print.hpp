// Canonical re-printing of a parsed module: one instruction per line, shapes in
// XLA's compact form, untyped operands, comments dropped and blanks folded in
// attribute values. Printing the re-parsed output gives the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parser/hlo_module.hpp"
#include "parser/name_lists.hpp"

namespace hlo_index::parser {

/// What print_module changes; the defaults print the module as parsed.
struct PrintOptions {
  /// The name to print for the module (`computation == k_none`), for computation `computation`
  /// (`instruction == k_none`) or for instruction `instruction` of it. It is used everywhere the
  /// name appears: definitions, operands, signatures (parameter N takes the name of the
  /// instruction `parameter(N)`), calls=/to_apply=/body=/... and control-predecessors. A call of a
  /// computation the parser could not resolve (--allow-truncated) keeps its name as written.
  /// Unset: the names as parsed. The returned view must live until the call returns.
  Renaming rename;
  /// Attributes left out wherever they appear (instruction, computation and module attributes),
  /// e.g. "metadata".
  std::vector<std::string_view> dropped_attributes;
  /// Print the stack-frame tables (FileNames, ...); only metadata refers to them.
  bool stack_frame_tables = true;
};

std::string print_module(const hlo::Module& module);
std::string print_module(const hlo::Module& module, const PrintOptions& options);

/// `text` with comments removed and every run of blanks outside strings folded
/// into one space (none at either end).
std::string fold_blanks(std::string_view text);

}  // namespace hlo_index::parser

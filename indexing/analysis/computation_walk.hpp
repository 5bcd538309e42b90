// Which computations of a module are analysed on their own: those that are
// not fusion bodies (a fusion's body is analysed through the fusion).
#pragma once

#include <cstdint>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// Per computation: whether some fusion calls it.
std::vector<bool> fusion_bodies(const hlo::Module& module);
/// Per computation: whether the module's entry reaches it through calls of any kind. A module
/// truncated before its ENTRY (the entry stands in) reaches nothing.
std::vector<bool> reached_from_entry(const hlo::Module& module);
/// The computations of a truncated module (--allow-truncated) that only callers the input lacks
/// reach: fusion bodies or loop and call bodies whose callers were cut off, which no one can tell
/// apart. Empty for a complete module.
std::vector<std::uint32_t> cut_off_computations(const hlo::Module& module);
/// The computations that are not fusion bodies, in program order; in a truncated module, only
/// those the entry reaches (not the cut-off ones).
std::vector<std::uint32_t> analysed_computations(const hlo::Module& module);

}  // namespace hlo_index::analysis

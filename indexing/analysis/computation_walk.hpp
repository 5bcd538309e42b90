// Which computations of a module are analysed on their own: those that are
// not fusion bodies (a fusion's body is analysed through the fusion).
#pragma once

#include <cstdint>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// Per computation: whether some fusion calls it.
std::vector<bool> fusion_bodies(const hlo::Module& module);
/// The computations that are not fusion bodies, in program order.
std::vector<std::uint32_t> analysed_computations(const hlo::Module& module);

}  // namespace hlo_index::analysis

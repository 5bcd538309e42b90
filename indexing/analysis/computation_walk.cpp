#include "indexing/analysis/computation_walk.hpp"

namespace hlo_index::analysis {

std::vector<bool> fusion_bodies(const hlo::Module& module) {
  std::vector<bool> fused(module.computations.size(), false);
  for (const hlo::Computation& c : module.computations) {
    for (const hlo::Instruction& i : c.instructions) {
      if (i.opcode != hlo::Opcode::kFusion) continue;
      for (std::uint32_t callee : c.callees_of(i)) {
        if (callee < fused.size()) fused[callee] = true;
      }
    }
  }
  return fused;
}

std::vector<std::uint32_t> analysed_computations(const hlo::Module& module) {
  const std::vector<bool> fused = fusion_bodies(module);
  std::vector<std::uint32_t> out;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    if (!fused[ci]) out.push_back(ci);
  }
  return out;
}

}  // namespace hlo_index::analysis

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

std::vector<bool> reached_from_entry(const hlo::Module& module) {
  std::vector<bool> reached(module.computations.size(), false);
  if (module.entry >= module.computations.size() || (module.truncated && !module.entry_declared)) return reached;
  std::vector<std::uint32_t> stack{module.entry};
  reached[module.entry] = true;
  while (!stack.empty()) {
    const hlo::Computation& c = module.computations[stack.back()];
    stack.pop_back();
    for (const hlo::Instruction& i : c.instructions) {
      for (std::uint32_t callee : c.callees_of(i)) {
        if (callee >= reached.size() || reached[callee]) continue;
        reached[callee] = true;
        stack.push_back(callee);
      }
    }
  }
  return reached;
}

std::vector<std::uint32_t> cut_off_computations(const hlo::Module& module) {
  std::vector<std::uint32_t> out;
  if (!module.truncated) return out;
  const std::vector<bool> reached = reached_from_entry(module);
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    if (!reached[ci]) out.push_back(ci);
  }
  return out;
}

std::vector<std::uint32_t> analysed_computations(const hlo::Module& module) {
  const std::vector<bool> fused = fusion_bodies(module);
  const std::vector<bool> reached = module.truncated ? reached_from_entry(module) : std::vector<bool>{};
  std::vector<std::uint32_t> out;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    if (!fused[ci] && (!module.truncated || reached[ci])) out.push_back(ci);
  }
  return out;
}

}  // namespace hlo_index::analysis

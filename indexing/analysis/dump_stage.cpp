#include "indexing/analysis/dump_stage.hpp"

#include <fmt/format.h>

#include "indexing/analysis/instruction_filter.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::analysis {

namespace {

bool has_layout(const hlo::Shape& shape) {
  if (shape.is_tuple) {
    for (const hlo::Shape& e : shape.elements)
      if (!has_layout(e)) return false;
    return true;
  }
  return shape.type == hlo::ElementType::kToken || shape.type == hlo::ElementType::kOpaque || shape.rank() == 0 ||
         shape.layout.has_value();
}

// Ops every backend's fusion passes wrap in a fusion, alone if need be: elementwise ops and the
// ops that move data or reduce (a copy may stay on its own, to change a layout).
bool always_fused(hlo::Opcode op) {
  using hlo::Opcode;
  if (hlo::is_elementwise(op)) return op != Opcode::kCopy;
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kConcatenate:
    case Opcode::kDynamicSlice:
    case Opcode::kDynamicUpdateSlice:
    case Opcode::kIota:
    case Opcode::kPad:
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kReshape:
    case Opcode::kReverse:
    case Opcode::kSlice:
    case Opcode::kTranspose: return true;
    default: return false;
  }
}

bool same_order(const hlo::Shape& a, const hlo::Shape& b) {
  if (a.is_tuple || b.is_tuple || !a.layout || !b.layout || a.rank() != b.rank()) return true;
  return a.layout->minor_to_major == b.layout->minor_to_major;
}

}  // namespace

DumpStage dump_stage(const hlo::Module& module) {
  for (const hlo::Computation& c : module.computations)
    for (const hlo::Instruction& i : c.instructions)
      if (i.opcode == hlo::Opcode::kFusion) return {};
  // Reducers and comparators are elementwise by nature and stay unfused: no evidence.
  const std::vector<bool> applied = scalar_computations(module);
  std::size_t unfused = 0, unlaid = 0, mismatched = 0;
  for (std::size_t ci = 0; ci < module.computations.size(); ++ci) {
    if (applied[ci]) continue;
    const hlo::Computation& c = module.computations[ci];
    for (const hlo::Instruction& i : c.instructions) {
      const hlo::Shape& shape = module.shape_of(i);
      if (!has_layout(shape)) ++unlaid;
      if (always_fused(i.opcode)) ++unfused;
      if (!hlo::is_elementwise(i.opcode) || shape.is_tuple) continue;
      for (std::uint32_t o : c.operands_of(i))
        if (o < c.instructions.size() && !same_order(module.shape_of(c.instructions[o]), shape)) ++mismatched;
    }
  }
  std::vector<std::string> evidence;
  if (unfused > 0)
    evidence.push_back(fmt::format("{} op{} that XLA fuses standing alone", unfused, unfused == 1 ? "" : "s"));
  if (unlaid > 0) evidence.push_back(fmt::format("{} shape{} without a layout", unlaid, unlaid == 1 ? "" : "s"));
  if (mismatched > 0)
    evidence.push_back(
        fmt::format("{} elementwise operand{} laid out unlike the result", mismatched, mismatched == 1 ? "" : "s"));
  if (evidence.empty()) return {};
  return {true, fmt::format("no fusions, {}", fmt::join(evidence, ", "))};
}

}  // namespace hlo_index::analysis

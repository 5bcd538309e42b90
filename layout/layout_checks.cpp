#include "layout/layout_checks.hpp"

#include <fmt/format.h>

#include <optional>

#include "layout/physical_layout.hpp"

namespace hlo_index::layout {

namespace {

bool tiled_or_packed(const hlo::Shape& s) {
  return s.layout && (!s.layout->tiles.empty() || s.layout->element_size_bits != 0);
}

// The buffer's size in bytes, tile padding included; none for a layout that cannot be laid out
// (another check says why) or a shape with dynamic dimensions (its size is a bound).
std::optional<std::int64_t> buffer_bytes(const hlo::Shape& s) {
  if (s.is_tuple) return std::nullopt;
  for (const hlo::DimKind kind : s.dim_kinds)
    if (kind != hlo::DimKind::kStatic) return std::nullopt;
  try {
    return PhysicalLayout::of(s).allocated_bytes();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::vector<LayoutProblem> check_layouts(const hlo::Module& module) {
  std::vector<LayoutProblem> out;
  for (const hlo::Computation& c : module.computations) {
    for (const hlo::Instruction& i : c.instructions) {
      if (i.opcode != hlo::Opcode::kBitcast || i.operand_count != 1) continue;
      const std::uint32_t operand = c.operands_of(i)[0];
      if (operand >= c.instructions.size()) continue;
      const hlo::Shape& in = module.shape_of(c.instructions[operand]);
      const hlo::Shape& result = module.shape_of(i);
      if (!tiled_or_packed(in) && !tiled_or_packed(result)) continue;
      const auto from = buffer_bytes(in), to = buffer_bytes(result);
      if (!from || !to || *from == *to) continue;
      out.push_back({i.name.data(),
                     fmt::format("bitcast from {} to {} changes the buffer's size ({} to {} bytes with tile padding): "
                                 "a bitcast reinterprets its operand's buffer, so XLA's verifier rejects it",
                                 hlo::to_string(in), hlo::to_string(result), *from, *to)});
    }
  }
  return out;
}

}  // namespace hlo_index::layout

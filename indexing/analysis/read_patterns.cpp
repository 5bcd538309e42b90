#include "indexing/analysis/read_patterns.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;

const Coalescing& ReadPatternMemo::of(const IndexingMap& physical, std::int64_t output_slots,
                                      std::int64_t operand_bits) {
  const auto key = std::make_tuple(m_maps.intern(physical), output_slots, operand_bits);
  auto it = m_patterns.find(key);
  if (it == m_patterns.end()) it = m_patterns.emplace(key, coalescing({physical}, output_slots, operand_bits)).first;
  return it->second;
}

ReadPatternTable read_patterns(const hlo::Module& module, const hlo::Computation& computation,
                               const hlo::Instruction& instruction, const indexing::InstructionIndexing& logical,
                               PhysicalIndexing& offsets, ReadPatternMemo& memo) {
  const hlo::Shape& shape = module.shape_of(instruction);
  const auto operands = computation.operands_of(instruction);
  ReadPatternTable table(logical.output_to_input.size());
  for (std::size_t k = 0; k < logical.output_to_input.size(); ++k) {
    const hlo::Shape& out = shape.is_tuple ? shape.elements[k] : shape;
    const layout::PhysicalLayout* out_layout = offsets.layout(out);
    table[k].resize(logical.output_to_input[k].size());
    for (std::size_t j = 0; j < logical.output_to_input[k].size() && j < operands.size(); ++j) {
      const hlo::Shape& operand = module.shape_of(computation.instructions[operands[j]]);
      if (out_layout == nullptr || offsets.layout(operand) == nullptr) continue;
      const std::int64_t slots = out_layout->allocated_elements();
      const std::int64_t bits = hlo::element_type_bits(operand.type);
      for (const IndexingMap& m : offsets.convert(logical.output_to_input[k][j], out, operand))
        table[k][j].push_back(memo.of(m, slots, bits));
    }
  }
  return table;
}

}  // namespace hlo_index::analysis

#include "indexing/analysis/module_analysis.hpp"

#include <exception>

#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::MapSet;

ModuleAnalysis::ModuleAnalysis(const hlo::Module& module, const indexing::AnalysisOptions& options)
    : m_module(module),
      m_simplify(options.simplify),
      m_indexing(module, options),
      m_offsets(module, m_maps),
      m_patterns(m_maps) {}

indexing::InstructionIndexing ModuleAnalysis::indexing(std::uint32_t computation, std::uint32_t instruction,
                                                       bool output_to_input, bool input_to_output) {
  try {
    return m_indexing.analyze(computation, instruction, output_to_input, input_to_output);
  } catch (const std::exception& e) {
    // The analysis catches per-op failures itself; this is a last line of defence.
    const hlo::Instruction& instr = m_module.computations[computation].instructions[instruction];
    const std::size_t outputs = indexing::leaf_count(m_module.shape_of(instr));
    const std::vector<MapSet> sets(instr.operand_count, MapSet{IndexingMap::undefined(e.what())});
    indexing::InstructionIndexing result;
    if (output_to_input) result.output_to_input.assign(outputs, indexing::MapRow(sets));
    if (input_to_output) result.input_to_output.assign(outputs, indexing::MapRow(sets));
    return result;
  }
}

std::shared_ptr<const FusedBody> ModuleAnalysis::fused_body(std::uint32_t computation, std::uint32_t instruction) {
  // A few: a fusion and the fusions nested in it.
  constexpr std::size_t k_kept = 4;
  const std::pair key{computation, instruction};
  for (const auto& [k, body] : m_recent_bodies)
    if (k == key) return body;
  auto body = std::make_shared<const FusedBody>(analysis::fused_body(m_module, m_indexing, computation, instruction));
  if (m_recent_bodies.size() == k_kept) m_recent_bodies.pop_front();
  m_recent_bodies.emplace_back(key, body);
  return body;
}

PhysicalIndexing& ModuleAnalysis::physical() {
  if (m_simplify) return m_offsets;
  if (!m_unsimplified) m_unsimplified.emplace(m_module, m_maps, false);
  return *m_unsimplified;
}

}  // namespace hlo_index::analysis

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

namespace {

std::size_t map_count(const FusedBody& body) {
  std::size_t n = 0;
  for (const auto& per_output : body.to_instruction)
    for (const auto& [key, maps] : per_output) n += maps.size();
  for (const auto& uses : body.parameter_uses)
    for (const FusedUse& use : uses)
      for (const MapSet& set : use.maps) n += set.size();
  return n;
}

}  // namespace

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

std::shared_ptr<const FusedBody> ModuleAnalysis::fused_uses(std::uint32_t computation, std::uint32_t instruction) {
  // Kept while their maps are few enough: the cost model's totals count every fusion, in program
  // order, before lint and the rows of a summary ask for each again in the same order (the few
  // whole bodies kept would each be gone just before it is asked for).
  constexpr std::size_t k_kept_maps = std::size_t{1} << 16;
  const std::pair key{computation, instruction};
  if (auto at = m_kept_uses.find(key); at != m_kept_uses.end()) return at->second;
  const std::shared_ptr<const FusedBody> body = fused_body(computation, instruction);
  auto uses = std::make_shared<FusedBody>();
  uses->callee = body->callee;
  uses->outputs = body->outputs;
  uses->parameter_uses = body->parameter_uses;
  uses->one_loop_domain = body->one_loop_domain;
  uses->undefined_reason = body->undefined_reason;
  if (const std::size_t maps = map_count(*uses); m_kept_maps + maps <= k_kept_maps) {
    m_kept_maps += maps;
    m_kept_uses.emplace(key, uses);
  }
  return uses;
}

PhysicalIndexing& ModuleAnalysis::physical() {
  if (m_simplify) return m_offsets;
  if (!m_unsimplified) m_unsimplified.emplace(m_module, m_maps, false);
  return *m_unsimplified;
}

}  // namespace hlo_index::analysis

// The analyses of one module: indexing maps per instruction, the maps in
// physical offsets, read patterns and utilisation counts, with one map
// interner that keys every memo, kept across the module's instructions.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/map_interner.hpp"
#include "indexing/analysis/physical_indexing.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/compose/instruction_indexing.hpp"

namespace hlo_index::analysis {

class ModuleAnalysis {
public:
  ModuleAnalysis(const hlo::Module& module, const indexing::AnalysisOptions& options);

  const hlo::Module& module() const { return m_module; }

  /// The indexing of instruction `instruction` of computation `computation`
  /// in the directions asked; an analysis that throws, or runs past the
  /// options' time_limit_per_instruction, gives UNDEFINED maps with the
  /// reason instead.
  indexing::InstructionIndexing indexing(std::uint32_t computation, std::uint32_t instruction, bool output_to_input,
                                         bool input_to_output);
  /// The map engine itself (for the maps of fused instructions).
  indexing::IndexingAnalysis& maps() { return m_indexing; }
  /// Maps in physical offsets, simplified (the basis of read patterns).
  PhysicalIndexing& offsets() { return m_offsets; }
  /// Maps in physical offsets as the analysis options ask (simplified or not).
  PhysicalIndexing& physical();
  ReadPatternMemo& patterns() { return m_patterns; }
  /// Operand counts by (operand shape, maps): layers repeat, and counting is
  /// the expensive part of utilisation.
  std::map<std::vector<std::uint32_t>, OperandUtilisation>& operand_counts() { return m_operand_counts; }
  /// Counts of instructions counted through their fused bodies, by (computation, instruction,
  /// maps): the cost model and a summary row both count a fusion, and its body, composed anew
  /// once it has left the few kept, is most of the work.
  std::map<std::vector<std::uint32_t>, InstructionUtilisation>& body_counts() { return m_body_counts; }
  MapInterner& interned_maps() { return m_maps; }
  /// The body of fusion (or call) `instruction` (fused_reads.hpp), the last
  /// few memoised: lint, the cost model and the fusion decisions each ask for
  /// the one a summary row is about, and composing it is most of their work.
  std::shared_ptr<const FusedBody> fused_body(std::uint32_t computation, std::uint32_t instruction);
  /// The same without `to_instruction` (empty): the parameters' uses, which
  /// counting reads and lint need, far fewer maps, memoised for the module's
  /// first fusions up to a number of maps in all.
  std::shared_ptr<const FusedBody> fused_uses(std::uint32_t computation, std::uint32_t instruction);

private:
  const hlo::Module& m_module;
  bool m_simplify;
  MapInterner m_maps;
  indexing::IndexingAnalysis m_indexing;
  PhysicalIndexing m_offsets;
  std::optional<PhysicalIndexing> m_unsimplified;  // made when first asked for
  ReadPatternMemo m_patterns;
  std::map<std::vector<std::uint32_t>, OperandUtilisation> m_operand_counts;
  std::map<std::vector<std::uint32_t>, InstructionUtilisation> m_body_counts;
  std::deque<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::shared_ptr<const FusedBody>>> m_recent_bodies;
  // fused_uses(): the first asked for, up to a number of maps in all.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::shared_ptr<const FusedBody>> m_kept_uses;
  std::size_t m_kept_maps = 0;
};

}  // namespace hlo_index::analysis

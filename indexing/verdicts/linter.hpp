// The Linter: turns the indexing maps of one instruction into findings of
// the rules in lint_rules.hpp (the command selects rules and formats).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/ordered_work.hpp"
#include "indexing/analysis/source_info.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/cost/fusion_decisions.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// Fusions, or with `all_instructions` every instruction.
bool linted_instruction(const hlo::Instruction& instruction, bool all_instructions);

/// The instructions lint and summary look at, in program order: those
/// linted_instruction() keeps, of the analysed computations, that `filter` accepts.
std::vector<WorkItem> linted_items(std::span<const hlo::Module> modules, const InstructionFilter& filter,
                                   bool all_instructions);

/// Lints the instructions of one module. Keeps the analyses (and their memos)
/// across instructions.
class Linter {
public:
  Linter(const hlo::Module& module, LintRuleSet rules, const LintThresholds& thresholds);
  /// Lints with the maps and memos of `analysis` (which must outlive the
  /// Linter), so that what another view of the module computed is not
  /// computed again.
  Linter(ModuleAnalysis& analysis, LintRuleSet rules, const LintThresholds& thresholds);

  /// The findings of instruction `instruction` of computation `computation`,
  /// in no particular order.
  std::vector<LintFinding> lint(std::uint32_t computation, std::uint32_t instruction);
  /// The same, given the instruction's output -> operand maps from this Linter's analysis
  /// (a caller that has them already: composing them again costs as much as the rules).
  std::vector<LintFinding> lint(std::uint32_t computation, std::uint32_t instruction,
                                const indexing::InstructionIndexing& logical);
  /// The target uncoalesced-read judges reads for (`--target`); none: detected from the module.
  void set_target(std::optional<Target> target) { m_analysis.patterns().set_target(target); }
  /// The device costly-recompute and missed-fusion estimate time on (`--device`); null: the
  /// default of the module's target. Before the first lint().
  void set_device(const cost::Device* device) { m_device = device; }
  /// Estimates time with `costs` (which must outlive the Linter, and be for its module) instead of
  /// a cost model of its own: summary costs every instruction anyway, on its --device.
  void share_costs(cost::CostModel& costs) { m_shared_costs = &costs; }

private:
  struct OperandFacts;
  LintFinding finding(LintRule rule, const hlo::Computation& c, std::uint32_t instruction) const;
  std::vector<OperandFacts> operand_facts(const hlo::Computation& c, const hlo::Instruction& instruction,
                                          const indexing::InstructionIndexing& logical) const;
  void duplicated_read_rule(const hlo::Computation& c, std::uint32_t instruction, const FusedBody& body,
                            const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const;
  void recomputation_rule(std::uint32_t computation, std::uint32_t instruction, const std::vector<OperandFacts>& facts,
                          std::vector<LintFinding>& out);
  void missed_fusion_rule(std::uint32_t computation, std::uint32_t instruction, std::vector<LintFinding>& out);
  /// The cost model, the module's estimated time and whether the module is a dump taken before
  /// optimisation, worked out on first use.
  cost::CostModel& costs();
  double module_seconds();
  bool before_optimisation();
  /// Whether time saved by a fusion decision in `computation` (one run) passes both floors.
  bool worth_reporting(std::uint32_t computation, double saved_seconds, double& over_runs);
  /// `%name (line N)` of an instruction of a computation analysed on its own.
  std::string instruction_name(const hlo::Computation& computation, std::uint32_t index) const;
  /// "%name (line N)" of fused instruction `index` of `computation`.
  std::string fused_name(const hlo::Computation& computation, std::uint32_t index) const;
  /// The values naming fused instruction `index` (name, line) for JSON and SARIF.
  void name_fused(LintFinding& finding, std::string_view key, const hlo::Computation& computation,
                  std::uint32_t index) const;
  void low_utilisation_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                            const OperandFacts& f, const hlo::Computation* callee, std::optional<std::uint32_t> reader,
                            std::vector<LintFinding>& out) const;
  void whole_instruction_rules(const hlo::Computation& c, std::uint32_t instruction,
                               const indexing::InstructionIndexing& logical, std::vector<LintFinding>& out) const;
  void count_rules(std::uint32_t computation, std::uint32_t instruction, const indexing::InstructionIndexing& logical,
                   const FusedBody* body, const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out);
  /// True when every runtime offset of the operand's maps is computed from
  /// partition-id or replica-id and constants (each device reads its part).
  bool per_device_offsets(const hlo::Computation& c, std::uint32_t instruction, std::size_t operand,
                          const indexing::InstructionIndexing& maps) const;
  /// True when the users of the operand together read at least --min-utilisation
  /// of it (a split: slices that each read a part): no waste to report.
  bool read_in_full_by_users(std::uint32_t computation, std::uint32_t instruction, std::size_t operand);
  void coalescing_rule(const hlo::Computation& c, std::uint32_t instruction,
                       const indexing::InstructionIndexing& logical, const std::vector<OperandFacts>& facts,
                       const FusedBody* fused, std::vector<LintFinding>& out);

  const hlo::Module& m_module;
  LintRuleSet m_rules;
  LintThresholds m_thresholds;
  std::unique_ptr<ModuleAnalysis> m_owned_analysis;  // when none is given
  ModuleAnalysis& m_analysis;  // its read-pattern memo keeps the coalescing verdicts across layers
  const cost::Device* m_device = nullptr;
  std::unique_ptr<cost::CostModel> m_costs;
  cost::CostModel* m_shared_costs = nullptr;  // share_costs(); used instead of m_costs
  std::optional<double> m_module_seconds;
  std::optional<bool> m_before_optimisation;
  std::map<std::uint32_t, std::vector<cost::FusionEdgeDecision>> m_edges;  // by computation
  // Identity and source of findings, worked out on the first finding.
  mutable std::unique_ptr<ModuleFingerprints> m_fingerprints;
  mutable std::unique_ptr<ModuleSources> m_sources;
};

}  // namespace hlo_index::analysis

// The Linter: turns the indexing maps of one instruction into findings of
// the rules in lint_rules.hpp (the command selects rules and formats).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/lint_rules.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/instruction_indexing.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// Fusions, or with `all_instructions` every instruction.
bool linted_instruction(const hlo::Instruction& instruction, bool all_instructions);

/// Lints the instructions of one module. Keeps the analyses (and their memos)
/// across instructions.
class Linter {
public:
  Linter(const hlo::Module& module, LintRuleSet rules, const LintThresholds& thresholds);

  /// The findings of instruction `instruction` of computation `computation`,
  /// in no particular order.
  std::vector<LintFinding> lint(std::uint32_t computation, std::uint32_t instruction);
  /// The target uncoalesced-read judges reads for (`--target`); none: detected from the module.
  void set_target(std::optional<Target> target) { m_analysis.patterns().set_target(target); }

private:
  struct OperandFacts;
  LintFinding finding(LintRule rule, const hlo::Computation& c, std::uint32_t instruction) const;
  std::vector<OperandFacts> operand_facts(const hlo::Computation& c, const hlo::Instruction& instruction,
                                          const indexing::InstructionIndexing& logical) const;
  void duplicated_read_rule(const hlo::Computation& c, std::uint32_t instruction,
                            const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const;
  void low_utilisation_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                            const OperandFacts& f, std::vector<LintFinding>& out) const;
  void high_multiplicity_rule(const hlo::Computation& c, std::uint32_t instruction, const OperandUtilisation& u,
                              const OperandFacts& f, std::vector<LintFinding>& out) const;
  void whole_instruction_rules(const hlo::Computation& c, std::uint32_t instruction,
                               const indexing::InstructionIndexing& logical, std::vector<LintFinding>& out) const;
  void count_rules(const hlo::Computation& c, std::uint32_t instruction, const indexing::InstructionIndexing& logical,
                   const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const;
  void coalescing_rule(const hlo::Computation& c, std::uint32_t instruction,
                       const indexing::InstructionIndexing& logical, const std::vector<OperandFacts>& facts,
                       std::vector<LintFinding>& out);

  const hlo::Module& m_module;
  LintRuleSet m_rules;
  LintThresholds m_thresholds;
  ModuleAnalysis m_analysis;  // its read-pattern memo keeps the coalescing verdicts across layers
};

}  // namespace hlo_index::analysis

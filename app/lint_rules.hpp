// The rules of `hlo-index lint`: their ids, explanations and default
// thresholds, and the Linter that turns one instruction's indexing maps into
// findings. The command (app/lint_command.cpp) selects rules and formats.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "indexing/coalescing.hpp"
#include "indexing/instruction_indexing.hpp"
#include "indexing/physical_indexing.hpp"
#include "layout/physical_layout.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::app {

/// In the order of the rules table (and of SARIF's ruleIndex).
enum class LintRule : std::uint8_t {
  kUncoalescedRead,
  kLowUtilisation,
  kHighMultiplicity,
  kDuplicatedRead,
  kUnknownIndexing,
  kApproximateIndexing,
};
inline constexpr std::size_t k_lint_rule_count = 6;
using LintRuleSet = std::bitset<k_lint_rule_count>;

struct LintRuleInfo {
  LintRule rule;
  std::string_view id;           // e.g. "uncoalesced-read"
  std::string_view summary;      // one sentence
  std::string_view description;  // what it checks and why it matters, thresholds included
  std::string_view thresholds;   // the flags that tune it, with defaults ("" when none)
};

/// Every rule, in LintRule order.
const std::array<LintRuleInfo, k_lint_rule_count>& lint_rules();
const LintRuleInfo& rule_info(LintRule rule);
std::optional<LintRule> find_lint_rule(std::string_view id);

/// Operand rules only look at operands of at least `*_min_bytes` bytes (the
/// operand's whole size, packed). Defaults as in `hlo-index lint --help`.
struct LintThresholds {
  std::int64_t uncoalesced_min_bytes = std::int64_t{1} << 20;
  double min_utilisation = 0.5;  // low-utilisation: fires below this fraction
  std::int64_t low_utilisation_min_bytes = std::int64_t{1} << 20;
  double max_multiplicity = 8;  // high-multiplicity: fires above this many reads per element
  std::int64_t high_multiplicity_min_bytes = std::int64_t{1} << 20;
  std::size_t duplicated_read_min_maps = 2;  // duplicated-read: fires at this many distinct maps
  std::int64_t duplicated_read_min_bytes = std::int64_t{1} << 20;
};

struct LintFinding {
  LintRule rule = LintRule::kUnknownIndexing;
  std::string file;      // as given on the command line
  std::size_t line = 0;  // 1-based; 0 when the instruction is not in the text
  std::size_t column = 0;
  std::string module, computation, instruction;
  std::optional<std::size_t> operand;  // none: a finding about the whole instruction
  std::string operand_name;
  std::string message;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();  // the numbers behind the message
};

/// Sorted by file, line, column, rule, then instruction and operand.
bool operator<(const LintFinding& a, const LintFinding& b);

/// The finding's identity without its position, so it survives edits:
/// `RULE MODULE COMPUTATION INSTRUCTION OPERAND` (OPERAND `-` for none).
std::string baseline_key(const LintFinding& finding);

/// The computations lint looks at: those that are not fusion bodies (a
/// fusion's body is linted through the fusion).
std::vector<std::uint32_t> linted_computations(const hlo::Module& module);
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

private:
  struct OperandFacts;
  LintFinding finding(LintRule rule, const hlo::Computation& c, std::uint32_t instruction) const;
  void whole_instruction_rules(const hlo::Computation& c, std::uint32_t instruction,
                               const indexing::InstructionIndexing& logical, std::vector<LintFinding>& out) const;
  void count_rules(const hlo::Computation& c, std::uint32_t instruction, const indexing::InstructionIndexing& logical,
                   const std::vector<OperandFacts>& facts, std::vector<LintFinding>& out) const;
  void coalescing_rule(const hlo::Computation& c, std::uint32_t instruction,
                       const indexing::InstructionIndexing& logical, const std::vector<OperandFacts>& facts,
                       std::vector<LintFinding>& out);

  /// The coalescing of one output -> operand map, restated in physical
  /// offsets, when it is bad (strided or irregular, a warp's reads over
  /// several segments), else nullopt; memoised by map and shapes, since
  /// layers repeat.
  const std::optional<indexing::Coalescing>& uncoalesced(const indexing::IndexingMap& map, const hlo::Shape& output,
                                                         const hlo::Shape& operand, std::int64_t operand_bits);

  const hlo::Module& m_module;
  LintRuleSet m_rules;
  LintThresholds m_thresholds;
  indexing::IndexingAnalysis m_analysis;
  indexing::PhysicalIndexing m_physical;                                              // maps in offsets, memoised
  std::unordered_map<std::string, std::optional<indexing::Coalescing>> m_coalescing;  // by map and shapes
};

/// `1 MiB`, `1.5 GiB`, `512 B`: bytes for messages.
std::string human_bytes(std::int64_t bytes);

}  // namespace hlo_index::app

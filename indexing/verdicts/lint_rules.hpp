// The rules of `hlo-index lint`: their ids, explanations and default
// thresholds, and the findings they produce (linter.hpp produces them).
#pragma once

#include "indexing/cost/units.hpp"

#include <array>
#include <bitset>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hlo_index::analysis {

using cost::human_bytes;

/// In the order of the rules table (and of SARIF's ruleIndex).
enum class LintRule : std::uint8_t {
  kUncoalescedRead,
  kLowUtilisation,
  kCostlyRecompute,
  kDuplicatedRead,
  kUnknownIndexing,
  kApproximateIndexing,
  kMissedFusion,
};
inline constexpr std::size_t k_lint_rule_count = 7;
using LintRuleSet = std::bitset<k_lint_rule_count>;

/// kWarning: a finding about the HLO (a fusion decision, a layout), which fails a CI run.
/// kNote: what hlo-index could not judge exactly (no maps, approximate maps), reported so
/// that a clean run is not mistaken for a checked one, but not failing the run: the HLO
/// may be fine, and a lint that fails on its own limits gets switched off.
enum class LintLevel : std::uint8_t { kWarning, kNote };

struct LintRuleInfo {
  LintRule rule;
  std::string_view id;           // e.g. "uncoalesced-read"
  std::string_view summary;      // one sentence
  std::string_view description;  // what it checks and why it matters, thresholds included
  std::string_view thresholds;   // the flags that tune it, with defaults ("" when none)
  LintLevel level = LintLevel::kWarning;
};

/// Every rule, in LintRule order.
const std::array<LintRuleInfo, k_lint_rule_count>& lint_rules();
const LintRuleInfo& rule_info(LintRule rule);
/// "warning" or "note", as text, JSON and SARIF print it.
std::string_view level_name(LintLevel level);
/// One line of what would usually fix a finding of the rule.
std::string_view rule_fix(LintRule rule);
/// The rule of `id`; `high-multiplicity`, the rule's name before it was judged in time, is
/// costly-recompute.
std::optional<LintRule> find_lint_rule(std::string_view id);

/// Operand rules only look at operands of at least `*_min_bytes` bytes (the
/// operand's whole size, packed). Defaults as in `hlo-index lint --help`.
struct LintThresholds {
  std::int64_t uncoalesced_min_bytes = std::int64_t{1} << 20;
  double min_utilisation = 0.5;  // low-utilisation: fires below this fraction
  std::int64_t low_utilisation_min_bytes = std::int64_t{1} << 20;
  double max_multiplicity = 2;  // costly-recompute: producers evaluated more than this many times per element
  /// costly-recompute and missed-fusion fire when the estimated time saved, over the runs of the
  /// computation, is at least both of these.
  double min_saved_seconds = 1e-6;
  double min_saved_share = 0.01;             // of the module's estimated time
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
  /// The instruction's stable identity (analysis/fingerprint.hpp): survives renumbering and reordering.
  std::string fingerprint;
  std::string op_name;  // metadata op_name (a fusion's: its own, else its root's or most common); empty: none
  std::string source;   // metadata source_file:source_line; empty: none
  std::string message;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();  // the numbers behind the message
};

/// Sorted by file, line, column, rule, then instruction and operand.
bool operator<(const LintFinding& a, const LintFinding& b);

/// The finding's identity without its position or names, so it survives edits, renumbering
/// and reordering: `RULE MODULE FINGERPRINT OPERAND` (MODULE without numeric parts, OPERAND
/// `-` for none).
std::string baseline_key(const LintFinding& finding);
/// The key of baselines written before fingerprints, by names:
/// `RULE MODULE COMPUTATION INSTRUCTION OPERAND`; still read.
std::string legacy_baseline_key(const LintFinding& finding);

}  // namespace hlo_index::analysis

#include "indexing/analysis/lint_rules.hpp"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <tuple>

namespace hlo_index::analysis {

namespace {

// keep sorted by LintRule
const std::array<LintRuleInfo, k_lint_rule_count> k_rules{{
    {LintRule::kUncoalescedRead, "uncoalesced-read",
     "A large operand is read strided or irregularly by consecutive GPU threads.",
     "GPU thread model: one thread per output element in the order of the output buffer (physical offsets, "
     "`analyze --physical`), warps of 32; each distinct map is a load of its own, and a thread's read is its lowest "
     "operand offset. Fires when the read pattern of an operand of at least --uncoalesced-min-bytes is strided or "
     "irregular and a warp's reads spread over more than one 128-byte segment: the warp needs several memory "
     "transactions where one would do. Reads along a reduced dimension that walk consecutive offsets count as "
     "coalesced (XLA's reduction and dot emitters spread them over a warp); reads at offsets known only at run time "
     "(dynamic-slice, gather) are not judged. This is the loop emitter's model: XLA's transpose emitter stages tiles "
     "through shared memory, so on a transpose fusion the finding says the fusion relies on it.",
     "--uncoalesced-min-bytes (1MiB)"},
    {LintRule::kLowUtilisation, "low-utilisation", "A large operand is mostly not read.",
     "Fires when the instruction reads fewer than --min-utilisation of the elements of an operand of at least "
     "--low-utilisation-min-bytes (distinct elements, counted exactly from the maps): the buffer was produced and "
     "is held in full but only part of it is used here (a slice or pad that was not fused into the producer, "
     "say). With offsets known only at run time (dynamic-slice, gather) the elements read are bounded by the reads, "
     "whatever the offsets.",
     "--min-utilisation (0.5), --low-utilisation-min-bytes (1MiB)"},
    {LintRule::kHighMultiplicity, "high-multiplicity", "Each element of a large operand is read many times.",
     "Fires when the reads of an operand of at least --high-multiplicity-min-bytes (pairs of output element and "
     "operand element, over all maps) divided by the distinct elements read exceed --max-multiplicity: a "
     "reduce-window with a large window, a dot, a large operand broadcast along a new dimension. Only exact "
     "counts of exact maps without runtime offsets are judged.",
     "--max-multiplicity (8), --high-multiplicity-min-bytes (1MiB)"},
    {LintRule::kDuplicatedRead, "duplicated-read", "A large operand is read through several access patterns.",
     "Fires when an operand of at least --duplicated-read-min-bytes is read through at least "
     "--duplicated-read-min-maps distinct maps (different as integer relations), e.g. p0 + transpose(p0), or a "
     "softmax reading its input for the maximum, the sum and the quotient: each pattern may fetch the operand "
     "again.",
     "--duplicated-read-min-maps (2), --duplicated-read-min-bytes (1MiB)"},
    {LintRule::kUnknownIndexing, "unknown-indexing", "hlo-index cannot analyse the instruction.",
     "Fires once per instruction that has an UNDEFINED map (an op hlo-index has no maps for, inside a fusion or "
     "not), with the reason; the other rules cannot judge the operands concerned.",
     ""},
    {LintRule::kApproximateIndexing, "approximate-indexing", "The indexing maps of the instruction are approximate.",
     "Fires once per instruction that has an approximate map (a sound superset of the elements read: an isl "
     "computation ran out of its --isl-max-operations budget, or a runtime offset depends on a reduced index). "
     "low-utilisation judges the superset; high-multiplicity does not judge such operands, nor low-utilisation "
     "when the map also has runtime offsets.",
     ""},
}};

}  // namespace

const std::array<LintRuleInfo, k_lint_rule_count>& lint_rules() { return k_rules; }

const LintRuleInfo& rule_info(LintRule rule) { return k_rules[static_cast<std::size_t>(rule)]; }

std::optional<LintRule> find_lint_rule(std::string_view id) {
  for (const LintRuleInfo& r : k_rules) {
    if (r.id == id) return r.rule;
  }
  return std::nullopt;
}

bool operator<(const LintFinding& a, const LintFinding& b) {
  auto key = [](const LintFinding& f) {
    return std::make_tuple(std::cref(f.file), f.line, f.column, f.rule, std::cref(f.module), std::cref(f.computation),
                           std::cref(f.instruction), f.operand.value_or(std::numeric_limits<std::size_t>::max()));
  };
  return key(a) < key(b);
}

std::string baseline_key(const LintFinding& f) {
  std::string key(rule_info(f.rule).id);
  key.append(" ").append(f.module);
  key.append(" ").append(f.computation);
  key.append(" ").append(f.instruction);
  key.append(" ").append(f.operand ? std::to_string(*f.operand) : std::string("-"));
  return key;
}

std::string human_bytes(std::int64_t bytes) {
  static constexpr const char* k_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  for (value /= 1024; value >= 1024 && unit + 1 < std::size(k_units); value /= 1024) ++unit;
  std::string number = fmt::format("{:.1f}", value);
  if (number.ends_with(".0")) number.resize(number.size() - 2);
  return number + " " + k_units[unit];
}

}  // namespace hlo_index::analysis

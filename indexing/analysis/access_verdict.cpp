#include "indexing/analysis/access_verdict.hpp"

#include <fmt/format.h>

namespace hlo_index::analysis {

namespace {

int pattern_rank(ReadPattern pattern) {
  switch (pattern) {
    case ReadPattern::kBroadcast: return 1;
    case ReadPattern::kCoalesced: return 2;
    case ReadPattern::kStrided: return 3;
    case ReadPattern::kUncoalesced: return 4;
    case ReadPattern::kIrregular: return 5;
  }
  return 0;
}

}  // namespace

int compare_access(const AccessVerdict& a, const AccessVerdict& b) {
  if (a.rank != b.rank) return a.rank > b.rank ? -1 : 1;
  if (a.used_fraction < b.used_fraction) return -1;
  return b.used_fraction < a.used_fraction ? 1 : 0;
}

AccessVerdict access_verdict(const Coalescing& pattern) {
  AccessVerdict v;
  v.rank = pattern_rank(pattern.pattern);
  v.used_fraction = pattern.used_fraction;
  v.text = pattern.pattern == ReadPattern::kStrided ? fmt::format("strided {}", pattern.stride)
                                                    : std::string(pattern_name(pattern.pattern));
  return v;
}

AccessVerdict access_verdict(const ReadPatternTable& patterns) {
  AccessVerdict worst;
  for (const auto& per_output : patterns) {
    for (const auto& [operand, per_operand] : per_output) {
      for (const Coalescing& c : per_operand) {
        AccessVerdict v = access_verdict(c);
        if (compare_access(v, worst) < 0) worst = std::move(v);
      }
    }
  }
  return worst;
}

}  // namespace hlo_index::analysis

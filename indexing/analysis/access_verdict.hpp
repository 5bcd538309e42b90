// The access verdict of an instruction: how its reads line up across threads,
// in one word or two, from the read patterns of all its maps. The one place
// that turns read patterns into a verdict (summary, picture, group_access),
// so the model can be swapped.
#pragma once

#include <string>

#include "indexing/analysis/read_patterns.hpp"

namespace hlo_index::analysis {

/// How an instruction's reads line up across threads, in one word or two.
struct AccessVerdict {
  std::string text = "-";    // coalesced, broadcast, strided N, uncoalesced, irregular; "-": nothing judged;
                             // matmul: a dot or convolution, or a fusion holding one (not judged)
  int rank = 0;              // worse is higher: - 0, broadcast 1, coalesced 2, strided 3, uncoalesced 4, irregular 5
  double used_fraction = 1;  // of the bytes the target transfers for the reads
};

/// The verdict of an instruction from the read patterns of all its maps: the
/// worst one (highest rank, then the smallest share of transferred bytes used).
/// The one place that turns read patterns into a verdict, so the model can
/// be swapped.
AccessVerdict access_verdict(const ReadPatternTable& patterns);
/// The verdict of one map's read pattern.
AccessVerdict access_verdict(const Coalescing& pattern);

/// Orders verdicts worse first: negative when `a` is worse than `b` (higher
/// rank, then the smaller share of transferred bytes used), 0 when equal.
int compare_access(const AccessVerdict& a, const AccessVerdict& b);

}  // namespace hlo_index::analysis

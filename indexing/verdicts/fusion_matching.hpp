// The matching of `hlo-index diff` beyond one-to-one pairs: a fusion split in
// several (one old fusion against new ones whose fused ops together are its
// fused ops) and fusions merged into one (the reverse). Works on multisets of
// op tokens (analysis/dump_diff: the fused ops that compute, with their
// framework op), so it is tested on its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hlo_index::analysis {

struct Regrouping {
  std::vector<std::size_t> old_entries, new_entries;  // indices, ascending
  bool split() const { return old_entries.size() == 1; }
};

/// Among the entries not yet matched (`old_free`, `new_free`: indices), each
/// old entry in order takes the fewest new entries (at least two, the earliest
/// on a tie) whose op multisets add up to exactly its own; then each new entry
/// likewise takes old ones (merges). `ops` are sorted multisets; an empty one
/// never matches. An entry is in one regrouping at most.
std::vector<Regrouping> match_regroupings(const std::vector<std::vector<std::string>>& old_ops,
                                          const std::vector<std::vector<std::string>>& new_ops,
                                          const std::vector<std::size_t>& old_free,
                                          const std::vector<std::size_t>& new_free);

}  // namespace hlo_index::analysis

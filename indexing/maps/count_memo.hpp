// Counts isl made, memoised for the process by the maps counted (shared_memo.hpp). Real modules
// count the same map many times (layers repeat; a union past its budget
// counts its members one by one), and isl counting is most of the time of
// utilisation and memory bytes on such modules (fsdp_mnist: 180 counts of
// 5 maps, 0.05-0.25 s each).
#pragma once

#include <functional>
#include <optional>
#include <span>

#include "indexing/maps/count.hpp"
#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// The count of the union of the images of `maps`, from the memo or from
/// `count` (called only on a miss), as isl_answer_memo.hpp keeps answers.
/// `count` may depend on the maps' domains and results only: their runtime
/// sources and approximation are not in the key (callers apply them).
Count memoised_count(std::span<const IndexingMap> maps, const std::function<Count()>& count);

/// The points of `domain`, from the memo or from `count` (called only on a miss), whose answer
/// may depend on the domain, the enumeration budget `evaluations` and isl's operation limit:
/// the reads of one map are counted by the cost model, by a summary row and by lint's rules.
Count memoised_points(const simplify::Domain& domain, std::int64_t evaluations, const std::function<Count()>& count);

}  // namespace hlo_index::indexing

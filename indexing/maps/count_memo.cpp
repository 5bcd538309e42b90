#include "indexing/maps/count_memo.hpp"

#include <vector>

#include "indexing/maps/isl_answer_memo.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/shared_memo.hpp"

namespace hlo_index::indexing {

namespace {

// The budget is part of the key: a smaller one may give a bound where a larger one counts.
struct CountKey {
  std::vector<IndexingMap> maps;
  unsigned long operation_limit = 0;
  bool operator==(const CountKey& other) const = default;
};

struct CountKeyHash {
  std::size_t operator()(const CountKey& key) const {
    std::size_t seed = key.operation_limit;
    for (const IndexingMap& m : key.maps) seed ^= MapHash()(m) + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
    return seed;
  }
};

// Past it the memo starts over.
constexpr std::size_t k_max_memoised_counts = 1 << 14;

struct PointsKey {
  IndexingMap domain_only;
  std::int64_t evaluations = 0;  // a smaller enumeration budget hands more to isl
  unsigned long operation_limit = 0;
  bool operator==(const PointsKey& other) const = default;
};

struct PointsKeyHash {
  std::size_t operator()(const PointsKey& key) const {
    return MapHash()(key.domain_only) ^ (static_cast<std::size_t>(key.evaluations) * 0x9e3779b97f4a7c15ULL) ^
           key.operation_limit;
  }
};

}  // namespace

Count memoised_count(std::span<const IndexingMap> maps, const std::function<Count()>& count) {
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<CountKey, IslAnswer<Count>, CountKeyHash>(k_max_memoised_counts);
  // The answer is returned by value, never as a reference into the memo: another thread may clear
  // the memo once the lock is gone.
  // The key holds what a count depends on, the domain and the results: where a runtime value
  // comes from, and whether the map is approximate, are applied by the callers (a layer's
  // dynamic-slices have the same map with runtime values from other instructions).
  CountKey key{{}, IslContext::get().operation_limit()};
  key.maps.reserve(maps.size());
  for (const IndexingMap& m : maps) key.maps.emplace_back(m.domain(), m.results());
  return recall_isl_answer(memo, std::move(key), count);
}

Count memoised_points(const simplify::Domain& domain, std::int64_t evaluations, const std::function<Count()>& count) {
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<PointsKey, IslAnswer<Count>, PointsKeyHash>(k_max_memoised_counts);
  return recall_isl_answer(memo, PointsKey{IndexingMap(domain, {}), evaluations, IslContext::get().operation_limit()},
                           count);
}

}  // namespace hlo_index::indexing

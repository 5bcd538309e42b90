#include "indexing/maps/count_memo.hpp"

#include <vector>

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

}  // namespace

Count memoised_count(std::span<const IndexingMap> maps, const std::function<Count()>& count) {
  IslContext& context = IslContext::get();
  if (context.deadline()) return count();
  static SharedMemo<CountKey, Count, CountKeyHash> memo(k_max_memoised_counts);
  CountKey key{std::vector<IndexingMap>(maps.begin(), maps.end()), context.operation_limit()};
  if (std::optional<Count> known = memo.find(key)) return *known;
  // Returned from here, not from the memo: another thread may clear the memo once the lock is gone.
  const Count counted = count();
  memo.insert(std::move(key), counted);
  return counted;
}

}  // namespace hlo_index::indexing

// A memo shared by every thread of the process: results of pure, costly
// functions of maps (isl work), kept across modules and files. A file of many
// modules, most alike (82 in one PyTorch/XLA dump), and commands that analyse
// each module on a worker thread of its own (diff) ask for the same maps again.
// Values are computed outside the lock; two threads may compute one value
// twice, and keep the first: the function is pure, so the answer is the same.
// Each memo is a function-local static made with `new` and never destroyed
// (`static auto& memo = *new SharedMemo<...>(n)`): the process ends after
// its last use, and freeing its maps at exit took 15 ms of a 1.8 s diff.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace hlo_index::indexing {

template <typename Key, typename Value, typename Hash>
class SharedMemo {
public:
  /// `max_entries`: past it the memo starts over (0: never; entries then stay where they are,
  /// so pointers to them stay valid).
  explicit SharedMemo(std::size_t max_entries) : m_max_entries(max_entries) {}

  std::optional<Value> find(const Key& key) const {
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(key);
    if (it == m_entries.end()) return std::nullopt;
    return it->second;
  }

  /// The entry of `key`: the one present, else `value` inserted. The reference outlives the lock
  /// only when max_entries is 0 (nothing is ever cleared); otherwise do not keep it.
  const Value& insert(Key key, Value value) {
    std::lock_guard lock(m_mutex);
    if (m_max_entries > 0 && m_entries.size() >= m_max_entries) m_entries.clear();
    return m_entries.emplace(std::move(key), std::move(value)).first->second;
  }

  /// A pointer to the entry of `key` (stable when max_entries is 0), or null.
  const Value* find_stable(const Key& key) const {
    std::lock_guard lock(m_mutex);
    auto it = m_entries.find(key);
    return it == m_entries.end() ? nullptr : &it->second;
  }

private:
  mutable std::mutex m_mutex;
  std::size_t m_max_entries;
  std::unordered_map<Key, Value, Hash> m_entries;
};

}  // namespace hlo_index::indexing

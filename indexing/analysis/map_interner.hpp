// Hash-consing of indexing maps: each structurally distinct map gets a dense
// id, so memos key on an integer instead of a map's printed text (printing
// cost more than some of the work memoised, and text is only as precise as
// the printer).
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::analysis {

class MapInterner {
public:
  using Id = std::uint32_t;

  /// The id of `map`: equal for maps equal in every field (structure,
  /// approximation, runtime sources with their feasible ranges, replica id,
  /// the reason of an undefined map), different otherwise.
  Id intern(const indexing::IndexingMap& map);
  const indexing::IndexingMap& map(Id id) const { return m_maps[id]; }
  std::size_t size() const { return m_maps.size(); }

private:
  struct Hash {
    std::size_t operator()(const indexing::IndexingMap* map) const;
  };
  struct Identical {
    bool operator()(const indexing::IndexingMap* a, const indexing::IndexingMap* b) const;
  };

  std::deque<indexing::IndexingMap> m_maps;  // by id; a deque keeps the keys below valid
  std::unordered_map<const indexing::IndexingMap*, Id, Hash, Identical> m_ids;
};

}  // namespace hlo_index::analysis

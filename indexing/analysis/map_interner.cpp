#include "indexing/analysis/map_interner.hpp"

#include <functional>

namespace hlo_index::analysis {

namespace {

using indexing::IndexingMap;

void hash_combine(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

}  // namespace

std::size_t MapInterner::Hash::operator()(const IndexingMap* map) const {
  std::size_t seed = map->hash();
  hash_combine(seed, std::hash<std::string>()(map->undefined_reason()));
  hash_combine(seed, std::hash<std::string>()(map->approximation_reason()));
  return seed;
}

// IndexingMap's operator== leaves out what it does not need for comparing
// relations; an id stands for the map in every respect.
bool MapInterner::Identical::operator()(const IndexingMap* a, const IndexingMap* b) const {
  if (!(*a == *b) || a->undefined_reason() != b->undefined_reason() ||
      a->approximation_reason() != b->approximation_reason())
    return false;
  for (std::size_t k = 0; k < a->runtime_sources().size(); ++k) {
    const indexing::RuntimeSource& x = a->runtime_sources()[k];
    const indexing::RuntimeSource& y = b->runtime_sources()[k];
    if (x.instruction != y.instruction || x.feasible.lo != y.feasible.lo || x.feasible.hi != y.feasible.hi)
      return false;
  }
  return true;
}

MapInterner::Id MapInterner::intern(const IndexingMap& map) {
  if (auto it = m_ids.find(&map); it != m_ids.end()) return it->second;
  const Id id = static_cast<Id>(m_maps.size());
  m_maps.push_back(map);
  m_ids.emplace(&m_maps.back(), id);
  return id;
}

}  // namespace hlo_index::analysis

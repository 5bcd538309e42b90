#include "indexing/analysis/map_interner.hpp"

#include <functional>

namespace hlo_index::analysis {

namespace {

using indexing::IndexingMap;

void hash_combine(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

void mix_interval(std::size_t& seed, const simplify::Interval& interval) {
  hash_combine(seed, std::hash<std::int64_t>()(interval.lo));
  hash_combine(seed, std::hash<std::int64_t>()(interval.hi));
}

std::size_t domain_hash(const simplify::Domain& domain) {
  std::size_t seed = 0;
  for (simplify::VarKind kind : {simplify::VarKind::kDim, simplify::VarKind::kRange, simplify::VarKind::kRuntime}) {
    hash_combine(seed, domain.count(kind));
    for (const simplify::Variable& v : domain.variables(kind)) mix_interval(seed, v.bounds);
  }
  for (const simplify::Constraint& c : domain.constraints()) {
    hash_combine(seed, c.expr.hash());
    mix_interval(seed, c.interval);
  }
  return seed;
}

}  // namespace

std::size_t MapInterner::Hash::operator()(const IndexingMap* map) const {
  std::size_t seed = static_cast<std::size_t>(map->state());
  hash_combine(seed, map->approximate());
  hash_combine(seed, domain_hash(map->domain()));
  for (const simplify::Expr& e : map->results()) hash_combine(seed, e.hash());
  for (const simplify::Expr& e : map->replica_id()) hash_combine(seed, e.hash());
  for (const indexing::RuntimeSource& s : map->runtime_sources())
    hash_combine(seed, std::hash<std::string>()(s.source));
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

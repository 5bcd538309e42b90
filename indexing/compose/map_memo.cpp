#include "indexing/compose/map_memo.hpp"

#include <algorithm>
#include <functional>

#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"

namespace hlo_index::indexing {

namespace {

void mix(std::size_t& seed, std::size_t value) { seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2); }

void mix_interval(std::size_t& seed, const Interval& interval) {
  mix(seed, std::hash<std::int64_t>()(interval.lo));
  mix(seed, std::hash<std::int64_t>()(interval.hi));
}

}  // namespace

std::size_t MapIdentityHash::operator()(const IndexingMap& map) const {
  std::size_t seed = map.hash();
  for (const RuntimeSource& s : map.runtime_sources()) {
    mix(seed, std::hash<std::int64_t>()(s.operand));
    mix(seed, std::hash<std::int64_t>()(s.instruction));
    mix_interval(seed, s.feasible);
    if (s.map) mix(seed, (*this)(*s.map));
  }
  mix(seed, std::hash<std::string>()(map.undefined_reason()));
  mix(seed, std::hash<std::string>()(map.approximation_reason()));
  return seed;
}

// IndexingMap's operator== leaves out what comparing relations does not
// need (the producing instruction and feasible range of a runtime source,
// the reason of an UNDEFINED or approximate map); a memo key must not.
bool MapIdentical::operator()(const IndexingMap& a, const IndexingMap& b) const {
  if (!(a == b) || a.undefined_reason() != b.undefined_reason() || a.approximation_reason() != b.approximation_reason())
    return false;
  for (std::size_t k = 0; k < a.runtime_sources().size(); ++k) {
    const RuntimeSource& x = a.runtime_sources()[k];
    const RuntimeSource& y = b.runtime_sources()[k];
    if (x.instruction != y.instruction || x.feasible != y.feasible) return false;
    if (x.map && y.map && !(*this)(*x.map, *y.map)) return false;
  }
  return true;
}

namespace {

// Combinations of range variables enumerated per point by the proof of
// inequality below: a reduction's maps over two 25-element range variables
// (625) are settled without isl, and a false "not proved" only costs the
// isl question that would be asked anyway.
constexpr std::int64_t k_enumeration_limit = 2048;

bool same_relation(const IndexingMap& a, const IndexingMap& b) {
  // Maps that differ at a point are not equal whatever isl would answer (false, or unknown past
  // its budget): skip building their relations. A point of one domain first (one isl sample per
  // domain, kept): pieces of a chain differ inside the box and agree at its corners.
  if (differ_at_a_sample(a, b, k_enumeration_limit) || differ_at_a_corner(a, b, k_enumeration_limit)) return false;
  auto same = are_equal(a, b);
  return same.has_value() && *same;
}

}  // namespace

namespace {

// Two maps whose results at one position are different constants have
// different images: no isl question needed (the tuple element a call's map
// reads, a slice at a constant offset).
bool differ_in_a_constant_result(const IndexingMap& a, const IndexingMap& b) {
  if (a.results().size() != b.results().size()) return false;
  for (std::size_t i = 0; i < a.results().size(); ++i) {
    const Expr& x = a.results()[i];
    const Expr& y = b.results()[i];
    if (x.is_constant() && y.is_constant() && x.constant_value() != y.constant_value()) return true;
  }
  return false;
}

}  // namespace

bool merges_into(const IndexingMap& member, const IndexingMap& map, bool semantic) {
  if (member.is_undefined() || map.is_undefined()) {
    return member.is_undefined() && map.is_undefined() && member.undefined_reason() == map.undefined_reason();
  }
  if (!semantic || member.approximate() != map.approximate()) return false;
  if (member.has_replica_id() != map.has_replica_id() || member.replica_id().size() != map.replica_id().size()) {
    return false;
  }
  // Relations between spaces of other ranks, or with a different constant result, differ.
  if (member.results().size() != map.results().size() || member.dim_count() != map.dim_count()) return false;
  if (differ_in_a_constant_result(member, map)) return false;
  // The replica id is part of the relation: compare it with the results.
  if (map.has_replica_id()) return same_relation(replica_id_as_results(member), replica_id_as_results(map));
  return same_relation(member, map);
}

void FinalMapMemo::check_limit() {
  // isl answers within a budget: another limit may give another answer.
  const unsigned long limit = IslContext::get().operation_limit();
  if (m_keyed && limit == m_isl_limit) return;
  m_simplified.clear();
  m_verdicts.clear();
  m_isl_limit = limit;
  m_keyed = true;
}

void FinalMapMemo::clear() {
  // Fresh tables, not clear(): that walks every bucket of the largest size
  // ever reached, once per instruction of the module.
  if (!m_simplified.empty()) m_simplified = {};
  if (!m_ids.empty()) m_ids = {};
  if (!m_signatures.empty()) m_signatures = {};
  if (!m_verdicts.empty()) m_verdicts = {};
}

void FinalMapMemo::simplify(IndexingMap& map, SimplifyPolicy policy) {
  check_limit();
  if (policy != m_policy) {
    m_simplified.clear();
    m_policy = policy;
  }
  if (auto it = m_simplified.find(map); it != m_simplified.end()) {
    ++m_simplify_hits;
    map = it->second;
    return;
  }
  ++m_simplify_misses;
  IndexingMap key = map;
  indexing::simplify(map, policy);
  m_simplified.emplace(std::move(key), map);
}

std::uint32_t FinalMapMemo::intern(const IndexingMap& map) {
  return m_ids.try_emplace(map, static_cast<std::uint32_t>(m_ids.size())).first->second;
}

bool FinalMapMemo::signatures_differ(std::uint32_t a, const IndexingMap& map_a, std::uint32_t b,
                                     const IndexingMap& map_b) {
  auto signature = [this](std::uint32_t id, const IndexingMap& map) -> const std::optional<std::uint64_t>& {
    if (m_signatures.size() <= id) m_signatures.resize(id + 1);
    Signature& s = m_signatures[id];
    if (!s.known) {
      s.value = image_signature(map, k_enumeration_limit);
      s.known = true;
    }
    return s.value;
  };
  const std::optional<std::uint64_t> x = signature(a, map_a);
  const std::optional<std::uint64_t>& y = signature(b, map_b);
  return x && y && *x != *y;
}

// insert_unique's steps in its order; only the isl-backed verdict of a pair
// comes from the memo.
void FinalMapMemo::insert_unique(MapSet& set, std::vector<std::uint32_t>& ids, IndexingMap map) {
  check_limit();
  if (map.is_known_empty()) {
    if (set.empty()) {
      ids.push_back(intern(map));
      set.push_back(std::move(map));
    }
    return;
  }
  for (std::size_t k = set.size(); k-- > 0;) {
    if (set[k].is_known_empty()) {
      set.erase(set.begin() + static_cast<std::ptrdiff_t>(k));
      ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  const std::optional<std::int64_t> element = element_read(map);
  auto equal = [&](const IndexingMap& m) { return !into_distinct_elements(m, element) && m == map; };
  if (std::find_if(set.begin(), set.end(), equal) != set.end()) return;
  const std::uint32_t id = intern(map);
  for (std::size_t k = 0; k < set.size(); ++k) {
    if (into_distinct_elements(set[k], element)) continue;  // merges_into: false
    // Different images at a fixed point: different relations (merges_into: false), proved with
    // one enumeration per map where the tests of merges_into enumerate per pair.
    if (signatures_differ(ids[k], set[k], id, map)) continue;
    const std::uint64_t key = (static_cast<std::uint64_t>(ids[k]) << 32) | id;
    bool merges = false;
    if (auto it = m_verdicts.find(key); it != m_verdicts.end()) {
      ++m_verdict_hits;
      merges = it->second;
    } else {
      ++m_verdict_misses;
      merges = merges_into(set[k], map, true);
      m_verdicts.emplace(key, merges);
    }
    if (merges) return;
  }
  ids.push_back(id);
  set.push_back(std::move(map));
}

const ComposedPairMemo::Step* ComposedPairMemo::find(const IndexingMap& first, std::size_t first_hash,
                                                     const IndexingMap& second, std::size_t second_hash) {
  if (const unsigned long limit = IslContext::get().operation_limit(); limit != m_isl_limit) {
    clear();
    m_isl_limit = limit;
  }
  const auto it = m_steps.find(Probe{&first, &second, pair_hash(first_hash, second_hash)});
  return it == m_steps.end() ? nullptr : &it->second;
}

const ComposedPairMemo::Step& ComposedPairMemo::insert(const IndexingMap& first, std::size_t first_hash,
                                                       const IndexingMap& second, std::size_t second_hash,
                                                       Step&& step) {
  return m_steps.try_emplace(Key{first, second, pair_hash(first_hash, second_hash)}, std::move(step)).first->second;
}

void ComposedPairMemo::clear() {
  // A fresh table, as FinalMapMemo::clear does.
  if (!m_steps.empty()) m_steps = {};
}

}  // namespace hlo_index::indexing

// Memo of the final steps of composing a called computation's maps (the
// exact simplification of each composed map and the semantic deduplication
// of each operand's set). A wide call composes its body once per output,
// and the outputs read their operands through largely the same maps, so
// without it the same isl questions are asked hundreds of times.
//
// Both steps are pure functions of the maps involved (every field, runtime
// sources included) and of the thread's isl operation limit, so answering
// from the memo never changes a printed map, count or verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "indexing/maps/indexing_map.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/op_maps.hpp"

namespace hlo_index::indexing {

/// Hash and equality over every field of a map (MapInterner's identity,
/// and recursively the element maps of runtime sources).
struct MapIdentityHash {
  std::size_t operator()(const IndexingMap& map) const;
};
struct MapIdentical {
  bool operator()(const IndexingMap& a, const IndexingMap& b) const;
};

/// Whether insert_unique drops `map` because the set member `member` stands
/// for it: both UNDEFINED for the same reason, or (with `semantic`) equal
/// relations by are_equal with the same approximation and replica arity.
bool merges_into(const IndexingMap& member, const IndexingMap& map, bool semantic);

/// The constant first result of a defined map: the tuple element a map into a tuple reads.
inline std::optional<std::int64_t> element_read(const IndexingMap& map) {
  if (!map.is_defined() || map.results().empty() || !map.results().front().is_constant()) return std::nullopt;
  return map.results().front().constant_value();
}

/// Whether `a` and a map `b` with element_read(b) == `element` are defined maps whose first
/// results are different constants (maps into different elements of a tuple): then they are
/// neither equal nor does one merge into the other, in either mode. A few loads, where
/// operator== and merges_into cost a hundred instructions each: sets of thousands of such maps
/// (a while read whole) compare every pair.
inline bool into_distinct_elements(const IndexingMap& a, std::optional<std::int64_t> element) {
  if (!element) return false;
  const std::optional<std::int64_t> other = element_read(a);
  return other && *other != *element;
}

class FinalMapMemo {
public:
  /// simplify(map, policy), answered from the memo for a map seen before.
  void simplify(IndexingMap& map, SimplifyPolicy policy);
  /// insert_unique(set, map, true), with the equality verdict of each pair
  /// of maps remembered. `ids` runs parallel to `set` (start both empty).
  void insert_unique(MapSet& set, std::vector<std::uint32_t>& ids, IndexingMap map);

  /// Forgets the maps and verdicts (the counts stay): IndexingAnalysis
  /// keeps them for one instruction, whose outputs share them.
  void clear();

  std::size_t simplify_hits() const { return m_simplify_hits; }
  std::size_t simplify_misses() const { return m_simplify_misses; }
  std::size_t verdict_hits() const { return m_verdict_hits; }
  std::size_t verdict_misses() const { return m_verdict_misses; }

private:
  /// Forgets every isl-backed answer when the isl limit changed.
  void check_limit();
  std::uint32_t intern(const IndexingMap& map);
  /// Whether the maps with ids `a` and `b` have different image signatures (different relations).
  bool signatures_differ(std::uint32_t a, const IndexingMap& map_a, std::uint32_t b, const IndexingMap& map_b);

  unsigned long m_isl_limit = 0;
  SimplifyPolicy m_policy = SimplifyPolicy::kNone;
  bool m_keyed = false;
  std::unordered_map<IndexingMap, IndexingMap, MapIdentityHash, MapIdentical> m_simplified;
  std::unordered_map<IndexingMap, std::uint32_t, MapIdentityHash, MapIdentical> m_ids;
  // By id: image_signature of the map, worked out when the map is first compared.
  struct Signature {
    bool known = false;
    std::optional<std::uint64_t> value;
  };
  std::vector<Signature> m_signatures;
  std::unordered_map<std::uint64_t, bool> m_verdicts;  // (member id << 32 | new id) -> merges
  std::size_t m_simplify_hits = 0, m_simplify_misses = 0;
  std::size_t m_verdict_hits = 0, m_verdict_misses = 0;
};

/// The composition steps of a walk, by pair of maps: each composed map as the step left it
/// (simplified), or that it was over the composition caps. The walks of a wide call's outputs
/// compose the same pairs along the paths they share (torax: 600,000 compositions of 22,000
/// pairs), so each pair is composed and simplified once per instruction analysed. A step is a
/// pure function of the two maps (every field), the style, the policy and the isl limit; the
/// owner clears the memo when any of the last three may change.
class ComposedPairMemo {
public:
  struct Step {
    IndexingMap map;         // simplified; unset when over the caps
    bool over_caps = false;  // before or after simplifying
  };

  /// The step of (first, second), hashed by MapIdentityHash; null when not known. Forgets
  /// every step when the isl limit changed (a smaller budget may simplify less).
  const Step* find(const IndexingMap& first, std::size_t first_hash, const IndexingMap& second,
                   std::size_t second_hash);
  /// Remembers the step of (first, second); returns it.
  const Step& insert(const IndexingMap& first, std::size_t first_hash, const IndexingMap& second,
                     std::size_t second_hash, Step&& step);
  void clear();

private:
  struct Key {
    IndexingMap first, second;
    std::size_t hash;
  };
  struct Probe {
    const IndexingMap* first;
    const IndexingMap* second;
    std::size_t hash;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(const Key& key) const { return key.hash; }
    std::size_t operator()(const Probe& probe) const { return probe.hash; }
  };
  struct Equal {
    using is_transparent = void;
    bool operator()(const Key& a, const Key& b) const {
      return same(a.hash, a.first, a.second, b.hash, b.first, b.second);
    }
    bool operator()(const Probe& a, const Key& b) const {
      return same(a.hash, *a.first, *a.second, b.hash, b.first, b.second);
    }
    bool operator()(const Key& a, const Probe& b) const { return (*this)(b, a); }
    static bool same(std::size_t ha, const IndexingMap& a1, const IndexingMap& a2, std::size_t hb,
                     const IndexingMap& b1, const IndexingMap& b2) {
      return ha == hb && MapIdentical()(a1, b1) && MapIdentical()(a2, b2);
    }
  };
  static std::size_t pair_hash(std::size_t first_hash, std::size_t second_hash) {
    return first_hash * 0x9e3779b97f4a7c15ULL + second_hash;
  }

  std::unordered_map<Key, Step, Hash, Equal> m_steps;
  unsigned long m_isl_limit = 0;
};

}  // namespace hlo_index::indexing

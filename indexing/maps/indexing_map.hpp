// IndexingMap: `(d0, ...)[s0, ...]{rt0, ...} -> (e0, ...)` with a domain
// (an interval per variable plus constraints `expr in [lo, hi]`), as in
// XLA's indexing analysis. The map is the relation
//   { (d, rt) -> (e(d, s, rt)) : (d, s, rt) in domain }:
// range variables are existential (every value in the domain is read).
// Special states: UNDEFINED (nothing known) and KNOWN EMPTY.
//
// An all-gather adds a replica-id map: from the same domain (same
// variables, same constraints) to the position, within the replica group,
// of the replica whose buffer holds the element. It is kept as its result
// expressions over this map's domain, so every operation that renames or
// narrows the domain (composition, simplification) keeps it aligned; the
// relation is then { (d, rt) -> (e(d, s, rt), replica(d, s, rt)) }. A path
// through several all-gathers has one replica result per all-gather, the one
// nearest the domain first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "simplify/domain.hpp"
#include "simplify/expr.hpp"

namespace hlo_index::indexing {

using simplify::Constraint;
using simplify::Domain;
using simplify::Expr;
using simplify::Interval;
using simplify::Var;
using simplify::Variable;
using simplify::VarKind;

class IndexingMap;

/// Where a runtime variable's value comes from: the instruction that
/// produces it (`parameter(1)`, `constant(3)`, an instruction name) and the
/// map from this map's domain into that instruction's index space.
struct RuntimeSource {
  std::string source;
  std::shared_ptr<const IndexingMap> map;  // null: not known
  /// The operand of the analysed instruction that holds the value, or -1
  /// when it is computed inside a fusion (or unknown).
  std::int64_t operand = -1;
  /// Index of the producing instruction in the computation the map was
  /// built in (for translating fused parameters to fusion operands), or -1.
  std::int64_t instruction = -1;
  /// The values the variable can take at all (XLA's clamp range); a
  /// narrower interval in a map is a condition on the runtime value.
  Interval feasible;
  /// A conditional's branch selector: the variable is a condition on which
  /// branch runs (map_set_bound bounds the sets such conditions multiply sooner).
  bool branch_selector = false;
  /// The same value for every element, though read from no operand: the device's position in
  /// its group or its shard index (coalescing samples it at one value, as XLA does).
  bool uniform = false;
  bool operator==(const RuntimeSource& other) const;
};

class IndexingMap {
public:
  enum class State { kDefined, kUndefined, kKnownEmpty };

  /// A defined map; becomes KNOWN EMPTY if a variable interval is empty.
  /// Throws std::invalid_argument if an expression uses a variable the
  /// domain does not have.
  IndexingMap(Domain domain, std::vector<Expr> results);
  IndexingMap() : IndexingMap(Domain(), {}) {}

  static IndexingMap undefined(std::string reason = {});
  /// KNOWN EMPTY with the variable counts of `shape_of` and its number of
  /// results (XLA keeps them).
  static IndexingMap known_empty(const IndexingMap& shape_of);
  /// (d0, ..., dn-1) -> (d0, ..., dn-1) over the given dimension sizes.
  static IndexingMap identity(const std::vector<std::int64_t>& sizes);

  State state() const { return m_state; }
  bool is_defined() const { return m_state == State::kDefined; }
  bool is_undefined() const { return m_state == State::kUndefined; }
  bool is_known_empty() const { return m_state == State::kKnownEmpty; }
  const std::string& undefined_reason() const { return is_undefined() ? m_reason : no_reason(); }

  /// True when some operation hit a bound, or a semantic the text does not
  /// pin down, and returned a superset of the exact relation.
  bool approximate() const { return m_approximate; }
  /// Why, for the reader: a short phrase without parentheses, printed as
  /// `(approximate: why)`; empty when no one said. The first reason given
  /// is kept: it names the step that lost exactness.
  const std::string& approximation_reason() const {
    return m_approximation != nullptr ? *m_approximation : no_reason();
  }
  void mark_approximate(std::string_view why = {});
  /// Marks this map approximate, with `from`'s reason, when `from` is: a map
  /// derived from an approximate one is approximate for the same reason.
  void inherit_approximation(const IndexingMap& from) {
    if (!from.approximate()) return;
    m_approximate = true;
    if (m_approximation == nullptr && !is_undefined()) m_approximation = from.m_approximation;
  }

  const Domain& domain() const { return m_domain; }
  Domain& domain() { return m_domain; }
  const std::vector<Expr>& results() const { return m_results; }
  std::vector<Expr>& results() { return m_results; }

  std::size_t dim_count() const { return m_domain.count(VarKind::kDim); }
  std::size_t range_count() const { return m_domain.count(VarKind::kRange); }
  std::size_t runtime_count() const { return m_domain.count(VarKind::kRuntime); }

  const std::vector<RuntimeSource>& runtime_sources() const { return m_runtime_sources; }
  std::vector<RuntimeSource>& runtime_sources() { return m_runtime_sources; }

  /// The replica-id results over this map's domain; empty: no replica-id
  /// map (the element is on the analysing replica). Cleared when the map
  /// becomes KNOWN EMPTY.
  const std::vector<Expr>& replica_id() const { return m_replica_id; }
  std::vector<Expr>& replica_id() { return m_replica_id; }
  bool has_replica_id() const { return !m_replica_id.empty(); }
  /// The replica-id map as a map of its own (this map's domain, no runtime
  /// sources, not approximate). Requires a defined map with a replica id.
  IndexingMap replica_id_map() const;

  /// Adds a constraint with XLA's semantics (a bare variable narrows its
  /// interval, an infeasible one makes the map KNOWN EMPTY).
  void add_constraint(const Expr& e, Interval interval);
  /// Resets to KNOWN EMPTY, keeping variable and result counts.
  void set_known_empty();

  /// Structural equality (same expressions, bounds, constraints, state,
  /// runtime sources and replica id).
  /// Semantic equality is are_equal() in exact_ops.hpp.
  bool operator==(const IndexingMap& other) const;
  /// A hash of what operator== compares (equal maps, equal hashes).
  std::size_t hash() const;

private:
  static const std::string& no_reason();

  State m_state = State::kDefined;
  bool m_approximate = false;
  std::string m_reason;  // of an UNDEFINED map
  // Why it is approximate: interned (few distinct reasons, copied with
  // every map), never freed; null when no one said.
  const std::string* m_approximation = nullptr;
  Domain m_domain;
  std::vector<Expr> m_results;
  std::vector<RuntimeSource> m_runtime_sources;
  std::vector<Expr> m_replica_id;
};

/// For unordered containers keyed by maps (operator== as the equality).
struct MapHash {
  std::size_t operator()(const IndexingMap& map) const { return map.hash(); }
};

/// For unordered containers of pointers to maps that compare what they point to: the distinct
/// maps among many (a wide call's outputs read one operand through the same maps), found in one
/// pass instead of comparing each with every earlier one.
struct PointedMapHash {
  std::size_t operator()(const IndexingMap* map) const { return map->hash(); }
};
struct PointedMapEqual {
  bool operator()(const IndexingMap* a, const IndexingMap* b) const { return *a == *b; }
};

/// The maps between an output and an operand: their union is the relation
/// (most ops need one map; a few need pieces). Empty: nothing read.
using MapSet = std::vector<IndexingMap>;

}  // namespace hlo_index::indexing

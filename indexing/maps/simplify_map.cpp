#include "indexing/maps/simplify_map.hpp"

#include <optional>
#include <stdexcept>

#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/isl_bridge.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "simplify/simplifier.hpp"

namespace hlo_index::indexing {

namespace {

// Results smaller than this are left to the rules: for them isl's form is
// rarely smaller, and asking isl (a gist) costs about 1 ms.
constexpr std::size_t k_min_nodes_for_isl_form = 16;

bool isl_steps(IndexingMap& map) {
  // Out of budget, the rules' result stands: exact, maybe with looser
  // intervals or a larger expression.
  bool changed = tighten_domain(map);
  if (!map.is_defined()) return true;
  for (Expr& r : map.results()) {
    if (!simplify::has_division(r) || r.node_count() < k_min_nodes_for_isl_form) continue;
    Expr canonical = within_isl_budget([&] { return isl_canonical_form(r, map.domain()); }, [&] { return r; });
    if (canonical.node_count() < r.node_count()) {
      r = canonical;
      changed = true;
    }
  }
  return changed;
}

bool simplify_symbolic(IndexingMap& map, const MapSimplifyOptions& options) {
  simplify::SimplifyOptions rule_options;
  rule_options.replace_points = options.replace_points;
  rule_options.solve_range_equalities = options.solve_range_equalities;
  // The replica id is simplified with the results, over the same domain.
  const std::size_t result_count = map.results().size();
  std::vector<Expr>& results = map.results();
  results.insert(results.end(), map.replica_id().begin(), map.replica_id().end());
  auto status = simplify::simplify_map(results, map.domain(), rule_options);
  map.replica_id().assign(results.begin() + static_cast<std::ptrdiff_t>(result_count), results.end());
  results.resize(result_count);
  if (status == simplify::SimplifyStatus::kEmpty) {
    map.set_known_empty();
    return true;
  }
  bool changed = status == simplify::SimplifyStatus::kChanged;
  if (options.remove_unused_symbols) {
    changed = remove_unused_symbols(map, options.remove_unused_runtime_variables) || changed;
  }
  return changed;
}

}  // namespace

bool simplify(IndexingMap& map, const MapSimplifyOptions& options) {
  if (!map.is_defined()) return false;
  std::optional<IndexingMap> before;
  if (options.verify) before = map;
  bool changed = simplify_symbolic(map, options);
  if (options.use_isl && map.is_defined() && isl_steps(map)) {
    changed = true;
    if (map.is_defined()) simplify_symbolic(map, options);
  }
  if (options.verify && changed) {
    bool dropped_runtime = before->runtime_count() != map.runtime_count() && map.is_defined();
    const IndexingMap a = replica_id_as_results(*before), b = replica_id_as_results(map);
    auto equal = dropped_runtime ? are_equal(runtime_as_range(a), runtime_as_range(b)) : are_equal(a, b);
    if (equal.has_value() && !*equal) throw std::logic_error("the simplifier changed the relation of a map");
  }
  return changed;
}

namespace {

// Which runtime variables the results, the replica id or a constraint mention.
std::vector<bool> used_runtime_variables(const IndexingMap& map) {
  std::vector<bool> used(map.runtime_count(), false);
  auto mark = [&](Var v) {
    if (v.kind == VarKind::kRuntime) used[v.index] = true;
  };
  for (const Expr& r : map.results()) simplify::for_each_variable(r, mark);
  for (const Expr& r : map.replica_id()) simplify::for_each_variable(r, mark);
  for (const Constraint& c : map.domain().constraints()) simplify::for_each_variable(c.expr, mark);
  return used;
}

// The map over `domain`'s dimensions and range variables and the runtime
// variables `kept`, with runtime variable r renamed to renumbered[r].
IndexingMap with_runtime_variables(const IndexingMap& map, std::vector<Variable> kept,
                                   const std::vector<std::uint32_t>& renumbered) {
  const Domain& domain = map.domain();
  auto rename = [&](Var v) {
    return v.kind == VarKind::kRuntime ? Expr::runtime(renumbered[v.index]) : Expr::variable(v);
  };
  std::vector<Expr> results;
  for (const Expr& r : map.results()) results.push_back(simplify::substitute(r, rename));
  IndexingMap out(Domain(domain.variables(VarKind::kDim), domain.variables(VarKind::kRange), std::move(kept)),
                  std::move(results));
  for (const Constraint& c : domain.constraints()) out.add_constraint(simplify::substitute(c.expr, rename), c.interval);
  if (out.is_defined()) {
    for (const Expr& r : map.replica_id()) out.replica_id().push_back(simplify::substitute(r, rename));
  }
  out.inherit_approximation(map);
  return out;
}

// Drops the runtime variables nothing mentions whose interval is still
// their whole feasible range: they say nothing. One narrowed to fewer values
// is a condition on the runtime value and stays, even where the results no
// longer use it.
void drop_free_runtime_variables(IndexingMap& map) {
  if (!map.is_defined() || map.runtime_count() == 0) return;
  const Domain& domain = map.domain();
  const std::size_t n = map.runtime_count();
  const std::vector<bool> used = used_runtime_variables(map);
  std::vector<std::uint32_t> renumbered(n);
  std::vector<Variable> kept;
  std::vector<RuntimeSource> sources;
  for (std::size_t r = 0; r < n; ++r) {
    const Interval bounds = domain.bounds({VarKind::kRuntime, static_cast<std::uint32_t>(r)});
    const bool has_source = r < map.runtime_sources().size();
    const bool free = !used[r] && has_source && bounds.contains(map.runtime_sources()[r].feasible);
    renumbered[r] = static_cast<std::uint32_t>(kept.size());
    if (free) continue;
    kept.push_back(domain.variables(VarKind::kRuntime)[r]);
    if (has_source) sources.push_back(map.runtime_sources()[r]);
  }
  if (kept.size() == n) return;
  IndexingMap out = with_runtime_variables(map, std::move(kept), renumbered);
  out.runtime_sources() = std::move(sources);
  map = std::move(out);
}

// Simplifies a map and, in the exact style, the element maps of its
// runtime sources (XLA leaves those as composed). A source that itself
// depends on range or runtime variables cannot be tied to this map's
// variables in the text form: the map is then marked approximate.
void simplify_with_sources(IndexingMap& map, MapSimplifyOptions options, bool exact) {
  if (exact) options.remove_unused_runtime_variables = false;
  simplify(map, options);
  if (!exact) return;
  drop_free_runtime_variables(map);
  MapSimplifyOptions element_options = options;
  element_options.remove_unused_runtime_variables = true;
  for (RuntimeSource& s : map.runtime_sources()) {
    if (!s.map) continue;
    IndexingMap element = *s.map;
    simplify(element, element_options);
    if (element.is_defined() && element.range_count() == 0 && element.runtime_count() != 0 &&
        over_dimensions_only(element.results())) {
      // The element read is a function of the dimensions alone (a scalar offset: its only
      // element), so the other runtime values its domain names do not matter: they go.
      Domain dims_only(element.domain().variables(VarKind::kDim), {}, {});
      for (const Constraint& c : element.domain().constraints()) {
        if (over_dimensions_only({c.expr})) (void)dims_only.add_constraint(c.expr, c.interval);
      }
      element = IndexingMap(std::move(dims_only), element.results());
    }
    if (element.range_count() != 0 || element.runtime_count() != 0)
      map.mark_approximate("one runtime variable stands for offsets read at several positions");
    s.map = std::make_shared<const IndexingMap>(std::move(element));
  }
  // With their element maps simplified, equal runtime values are recognised
  // (one offset read twice); merged, the map simplifies further (d + rt - rt).
  if (merge_same_runtime_values(map)) {
    simplify(map, options);
    drop_free_runtime_variables(map);
  }
}

MapSimplifyOptions rules_only() {
  MapSimplifyOptions o;
  o.use_isl = false;
  return o;
}

// XLA's SimplifyIndexingMap, and our rules-and-isl pipeline over a whole map.
MapSimplifyOptions whole_map(bool use_isl) {
  MapSimplifyOptions o;
  o.use_isl = use_isl;
  o.remove_unused_runtime_variables = true;
  return o;
}

// tighten_domain, then again where a narrowed interval made a condition
// redundant.
void tighten_domain_twice(IndexingMap& map) {
  if (tighten_domain(map)) tighten_domain(map);
}

}  // namespace

void simplify(IndexingMap& map, SimplifyPolicy policy) {
  switch (policy) {
    case SimplifyPolicy::kNone: return;
    case SimplifyPolicy::kExact: simplify_with_sources(map, whole_map(true), true); return;
    case SimplifyPolicy::kExactRulesOnly: simplify_with_sources(map, whole_map(false), true); return;
    case SimplifyPolicy::kXlaCompatible: {
      MapSimplifyOptions o = whole_map(false);
      o.solve_range_equalities = false;
      simplify(map, o);
      return;
    }
    case SimplifyPolicy::kXlaKeepPoints: {
      MapSimplifyOptions o = whole_map(false);
      o.replace_points = false;
      o.solve_range_equalities = false;
      o.remove_unused_symbols = false;
      simplify(map, o);
      return;
    }
    case SimplifyPolicy::kXlaUnusedSymbolsOnly: remove_unused_symbols(map, true); return;
    case SimplifyPolicy::kRulesThenExactDomain:
      simplify(map, rules_only());
      if (tighten_domain(map)) simplify(map, rules_only());
      return;
    case SimplifyPolicy::kExactDomain: tighten_domain_twice(map); return;
  }
}

}  // namespace hlo_index::indexing

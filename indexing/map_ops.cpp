#include "indexing/map_ops.hpp"

#include <algorithm>
#include <functional>
#include <span>
#include <stdexcept>

#include "indexing/exact_ops.hpp"
#include "indexing/isl_bridge.hpp"
#include "indexing/isl_context.hpp"
#include "simplify/simplifier.hpp"

namespace hlo_index::indexing {

namespace {

std::vector<Variable> concat(const std::vector<Variable>& a, const std::vector<Variable>& b) {
  std::vector<Variable> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The map over `variables` (intervals only) whose results, replica id and
// `constraints` are map's with every variable v replaced by replacement(v).
// Runtime sources and the approximation mark carry over.
IndexingMap rewritten(const IndexingMap& map, Domain variables, std::span<const Constraint> constraints,
                      const std::function<Expr(Var)>& replacement) {
  std::vector<Expr> results;
  for (const Expr& r : map.results()) results.push_back(simplify::substitute(r, replacement));
  IndexingMap out(std::move(variables), std::move(results));
  for (const Constraint& c : constraints) out.add_constraint(simplify::substitute(c.expr, replacement), c.interval);
  out.runtime_sources() = map.runtime_sources();
  if (out.is_defined()) {
    for (const Expr& r : map.replica_id()) out.replica_id().push_back(simplify::substitute(r, replacement));
  }
  if (map.approximate()) out.mark_approximate();
  return out;
}

// The variables of a domain, without its constraints.
Domain variables_of(const Domain& d) {
  return Domain(d.variables(VarKind::kDim), d.variables(VarKind::kRange), d.variables(VarKind::kRuntime));
}

// All constraints but `skip`.
std::vector<Constraint> constraints_except(const Domain& d, const Constraint& skip) {
  std::vector<Constraint> out;
  for (const Constraint& c : d.constraints()) {
    if (!(c == skip)) out.push_back(c);
  }
  return out;
}

}  // namespace

IndexingMap compose(const IndexingMap& first, const IndexingMap& second) {
  if (first.is_undefined() || second.is_undefined()) {
    return IndexingMap::undefined(first.is_undefined() ? first.undefined_reason() : second.undefined_reason());
  }
  // Empty in, empty out: first's dimensions, second's number of results
  // (a KNOWN EMPTY typed as text has no arity to check).
  if (first.is_known_empty() || second.is_known_empty()) {
    IndexingMap out = IndexingMap::known_empty(first);
    out.results().assign(second.results().size(), Expr());
    return out;
  }
  if (first.results().size() != second.dim_count()) {
    throw std::invalid_argument("cannot compose: the first map has " + std::to_string(first.results().size()) +
                                " results but the second has " + std::to_string(second.dim_count()) + " dimensions");
  }
  const Domain& fd = first.domain();
  const Domain& sd = second.domain();
  const auto second_ranges = static_cast<std::uint32_t>(second.range_count());
  const auto second_runtimes = static_cast<std::uint32_t>(second.runtime_count());

  Domain domain(fd.variables(VarKind::kDim), concat(sd.variables(VarKind::kRange), fd.variables(VarKind::kRange)),
                concat(sd.variables(VarKind::kRuntime), fd.variables(VarKind::kRuntime)));
  // first's symbols move behind second's.
  auto rename_first = [&](Var v) {
    switch (v.kind) {
      case VarKind::kDim: return Expr::variable(v);
      case VarKind::kRange: return Expr::range(v.index + second_ranges);
      case VarKind::kRuntime: return Expr::runtime(v.index + second_runtimes);
    }
    return Expr::variable(v);
  };
  std::vector<Expr> first_results;
  for (const Expr& r : first.results()) first_results.push_back(simplify::substitute(r, rename_first));
  // second's dimensions become first's results; its symbols keep their numbers.
  auto through_first = [&](Var v) { return v.kind == VarKind::kDim ? first_results[v.index] : Expr::variable(v); };
  std::vector<Expr> results;
  for (const Expr& r : second.results()) results.push_back(simplify::substitute(r, through_first));

  IndexingMap out(std::move(domain), std::move(results));
  for (const Constraint& c : sd.constraints())
    out.add_constraint(simplify::substitute(c.expr, through_first), c.interval);
  for (const Constraint& c : fd.constraints())
    out.add_constraint(simplify::substitute(c.expr, rename_first), c.interval);
  for (std::size_t i = 0; i < first_results.size(); ++i) {
    out.add_constraint(first_results[i], sd.bounds({VarKind::kDim, static_cast<std::uint32_t>(i)}));
  }
  // Runtime sources line up with the runtime variables: second's (now read
  // at first's coordinates), then first's.
  std::vector<RuntimeSource> sources;
  for (const RuntimeSource& s : second.runtime_sources()) {
    RuntimeSource composed = s;
    composed.map = nullptr;
    if (s.map) composed.map = std::make_shared<const IndexingMap>(compose(first, *s.map));
    sources.push_back(std::move(composed));
  }
  for (const RuntimeSource& s : first.runtime_sources()) sources.push_back(s);
  if (!sources.empty()) out.runtime_sources() = std::move(sources);
  // Replica ids: first's (the collective nearer the domain) renamed like
  // first's results, then second's read at first's coordinates.
  if (out.is_defined()) {
    for (const Expr& r : first.replica_id()) out.replica_id().push_back(simplify::substitute(r, rename_first));
    for (const Expr& r : second.replica_id()) out.replica_id().push_back(simplify::substitute(r, through_first));
  }
  if (first.approximate() || second.approximate()) out.mark_approximate();
  return out;
}

IndexingMap replica_id_as_results(const IndexingMap& map) {
  if (!map.has_replica_id()) return map;
  IndexingMap out = map;
  out.results().insert(out.results().end(), map.replica_id().begin(), map.replica_id().end());
  out.replica_id().clear();
  return out;
}

bool remove_unused_symbols(IndexingMap& map, bool runtime_too) {
  if (!map.is_defined()) return false;
  Domain& domain = map.domain();
  std::vector<bool> used[simplify::k_var_kinds];
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    bool kept = k == static_cast<int>(VarKind::kDim) || (k == static_cast<int>(VarKind::kRuntime) && !runtime_too);
    used[k].assign(domain.count(static_cast<VarKind>(k)), kept);
  }
  auto mark = [&](Var v) { used[static_cast<int>(v.kind)][v.index] = true; };
  for (const Expr& r : map.results()) simplify::for_each_variable(r, mark);
  for (const Expr& r : map.replica_id()) simplify::for_each_variable(r, mark);
  // A constraint that involves a used variable makes all of its variables used.
  for (bool grew = true; grew;) {
    grew = false;
    for (const Constraint& c : domain.constraints()) {
      bool touches_used = false, touches_unused = false;
      simplify::for_each_variable(
          c.expr, [&](Var v) { (used[static_cast<int>(v.kind)][v.index] ? touches_used : touches_unused) = true; });
      if (touches_used && touches_unused) {
        simplify::for_each_variable(c.expr, mark);
        grew = true;
      }
    }
  }
  bool any_unused = false;
  for (int k = 1; k < simplify::k_var_kinds; ++k) {
    for (bool u : used[k]) any_unused = any_unused || !u;
  }
  if (!any_unused) return false;

  // Constraints on unused variables only: the map is empty if they cannot hold.
  std::vector<Constraint> unused_only;
  for (const Constraint& c : domain.constraints()) {
    bool touches_used = false;
    simplify::for_each_variable(c.expr,
                                [&](Var v) { touches_used = touches_used || used[static_cast<int>(v.kind)][v.index]; });
    if (!touches_used) unused_only.push_back(c);
  }
  if (!unused_only.empty()) {
    Domain probe(domain.variables(VarKind::kDim), domain.variables(VarKind::kRange),
                 domain.variables(VarKind::kRuntime));
    for (const Constraint& c : unused_only) (void)probe.add_constraint(c.expr, c.interval);
    IndexingMap probe_map(probe, {});
    auto empty = is_empty(probe_map);
    if (!empty.has_value()) return false;  // cannot decide: keep everything
    if (*empty) {
      map.set_known_empty();
      return true;
    }
  }

  std::vector<std::uint32_t> new_index[simplify::k_var_kinds];
  Domain kept;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    auto kind = static_cast<VarKind>(k);
    const auto& vars = domain.variables(kind);
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      new_index[k].push_back(used[k][i] ? next++ : UINT32_MAX);
      if (used[k][i]) kept.variables(kind).push_back(vars[i]);
    }
  }
  std::vector<Constraint> constraints;
  for (const Constraint& c : domain.constraints()) {
    if (std::find(unused_only.begin(), unused_only.end(), c) == unused_only.end()) constraints.push_back(c);
  }
  std::vector<RuntimeSource> sources;
  const auto& old_sources = map.runtime_sources();
  for (std::size_t i = 0; i < old_sources.size() && i < used[2].size(); ++i) {
    if (used[2][i]) sources.push_back(old_sources[i]);
  }
  map = rewritten(map, std::move(kept), constraints, [&](Var v) {
    return Expr::variable({v.kind, new_index[static_cast<int>(v.kind)][v.index]});
  });
  map.runtime_sources() = std::move(sources);
  return true;
}

bool eliminate_determined_symbols(IndexingMap& map) {
  if (!map.is_defined()) return false;
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    const auto constraints = map.domain().constraints();
    for (const Constraint& c : constraints) {
      if (!c.interval.is_point()) continue;
      std::vector<simplify::Term> terms;
      std::int64_t constant;
      simplify::decompose_linear(c.expr, terms, constant);
      for (const simplify::Term& t : terms) {
        if (!t.atom.is_variable() || t.atom.variable().kind != VarKind::kRange) continue;
        if (t.coefficient != 1 && t.coefficient != -1) continue;
        Var s = t.atom.variable();
        Expr rest = c.expr - t.atom * t.coefficient;
        if (simplify::uses_variable(rest, s)) continue;
        // t.coefficient * s + rest == value  =>  s == (value - rest) / coefficient.
        Expr value = (Expr::constant(c.interval.lo) - rest) * t.coefficient;
        Interval bounds = map.domain().bounds(s);
        IndexingMap next = rewritten(map, variables_of(map.domain()), constraints_except(map.domain(), c),
                                     [&](Var v) { return v == s ? value : Expr::variable(v); });
        next.add_constraint(value, bounds);  // s's interval, now on its value
        map = std::move(next);
        changed = again = true;
        break;
      }
      if (again) break;
    }
  }
  if (changed) remove_unused_symbols(map);
  return changed;
}

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

// The map with its runtime variables turned into range variables: the
// relation over d alone. Used to verify a simplification that dropped
// runtime variables (which changes what the relation is a function of).
IndexingMap runtime_as_range(const IndexingMap& map) {
  if (!map.is_defined()) return map;
  const auto ranges = static_cast<std::uint32_t>(map.range_count());
  Domain variables(map.domain().variables(VarKind::kDim),
                   concat(map.domain().variables(VarKind::kRange), map.domain().variables(VarKind::kRuntime)), {});
  IndexingMap out = rewritten(map, std::move(variables), map.domain().constraints(), [&](Var v) {
    return v.kind == VarKind::kRuntime ? Expr::range(ranges + v.index) : Expr::variable(v);
  });
  out.runtime_sources().clear();
  return out;
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

}  // namespace hlo_index::indexing

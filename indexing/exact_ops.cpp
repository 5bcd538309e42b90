#include "indexing/exact_ops.hpp"

#include <algorithm>
#include <set>

#include "indexing/isl_bridge.hpp"
#include "indexing/map_ops.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

unsigned count_of(const IndexingMap& m, VarKind k) { return static_cast<unsigned>(m.domain().count(k)); }

// { (d, rt, r) } with the range variables projected out.
isl::set relation_set(const IndexingMap& m) {
  isl::set graph = graph_set(m.domain(), m.results());
  return project_out(graph, count_of(m, VarKind::kDim), count_of(m, VarKind::kRange));
}

}  // namespace

std::optional<bool> is_empty(const IndexingMap& map) {
  if (map.is_known_empty()) return true;
  if (map.is_undefined()) return std::nullopt;
  if (map.domain().has_empty_bounds()) return true;
  if (map.domain().constraints().empty()) return false;
  return within_isl_budget([&] { return std::optional<bool>(graph_set(map.domain(), {}).is_empty()); },
                           [] { return std::optional<bool>(); });
}

namespace {

// The results at dimension values d and runtime values rt: every image of
// (d, rt), found by enumerating the range variables (at most `limit`
// combinations; nullopt when there are more). Empty: (d, rt) is not in the
// domain.
std::optional<std::set<std::vector<std::int64_t>>> images_at(const IndexingMap& m, const std::vector<std::int64_t>& d,
                                                             const std::vector<std::int64_t>& rt, std::int64_t limit) {
  const Domain& domain = m.domain();
  for (Var v : domain.all_variables()) {
    if (v.kind == VarKind::kRange) continue;
    const std::int64_t x = v.kind == VarKind::kDim ? d[v.index] : rt[v.index];
    if (!domain.bounds(v).contains(x)) return std::set<std::vector<std::int64_t>>{};
  }
  const auto& ranges = domain.variables(VarKind::kRange);
  std::int64_t combinations = 1;
  for (const Variable& r : ranges) {
    combinations = simplify::saturating_mul(combinations, r.bounds.size());
    if (combinations > limit) return std::nullopt;
  }
  std::set<std::vector<std::int64_t>> out;
  std::vector<std::int64_t> s;
  for (const Variable& r : ranges) s.push_back(r.bounds.lo);
  for (std::int64_t n = 0; n < combinations; ++n) {
    const simplify::VarValues values{d, s, rt};
    bool inside = std::all_of(domain.constraints().begin(), domain.constraints().end(), [&](const Constraint& c) {
      return c.interval.contains(simplify::evaluate(c.expr, values));
    });
    if (inside) {
      std::vector<std::int64_t> image;
      for (const Expr& e : m.results()) image.push_back(simplify::evaluate(e, values));
      out.insert(std::move(image));
    }
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (++s[k] <= ranges[k].bounds.hi) break;
      s[k] = ranges[k].bounds.lo;
    }
  }
  return out;
}

// A cheap proof of inequality before asking isl: two relations differ if
// their images differ at a corner of either domain box.
bool differ_at_a_corner(const IndexingMap& a, const IndexingMap& b) {
  constexpr std::int64_t k_limit = 256;
  try {
    for (const IndexingMap* m : {&a, &b}) {
      for (bool upper : {false, true}) {
        std::vector<std::int64_t> d, rt;
        for (const Variable& v : m->domain().variables(VarKind::kDim)) d.push_back(upper ? v.bounds.hi : v.bounds.lo);
        for (const Variable& v : m->domain().variables(VarKind::kRuntime))
          rt.push_back(upper ? v.bounds.hi : v.bounds.lo);
        auto x = images_at(a, d, rt, k_limit), y = images_at(b, d, rt, k_limit);
        if (x && y && *x != *y) return true;
      }
    }
  } catch (const simplify::ArithmeticOverflow&) {
    return false;
  }
  return false;
}

}  // namespace

std::optional<bool> are_equal(const IndexingMap& a, const IndexingMap& b) {
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
  if (a.is_known_empty() || b.is_known_empty()) {
    auto ea = is_empty(a), eb = is_empty(b);
    if (!ea.has_value() || !eb.has_value()) return std::nullopt;
    return *ea && *eb;
  }
  // The replica id is part of the relation: (index) -> (element, replica).
  if (a.replica_id().size() != b.replica_id().size()) return false;
  if (a.has_replica_id()) return are_equal(replica_id_as_results(a), replica_id_as_results(b));
  if (a.dim_count() != b.dim_count() || a.runtime_count() != b.runtime_count() ||
      a.results().size() != b.results().size()) {
    return false;
  }
  if (a.runtime_sources().size() != b.runtime_sources().size()) return false;
  for (std::size_t i = 0; i < a.runtime_sources().size(); ++i) {
    const RuntimeSource& x = a.runtime_sources()[i];
    const RuntimeSource& y = b.runtime_sources()[i];
    if (x.source != y.source || x.operand != y.operand || (x.map == nullptr) != (y.map == nullptr)) return false;
    if (x.map) {
      auto same = are_equal(*x.map, *y.map);
      if (!same.has_value() || !*same) return same;
    }
  }
  if (a == b) return true;
  if (differ_at_a_corner(a, b)) return false;
  return within_isl_budget([&] { return std::optional<bool>(relation_set(a).is_equal(relation_set(b))); },
                           [] { return std::optional<bool>(); });
}

namespace {

// Variables of an inverse map, in the order of its graph's set dimensions:
// results become dimensions, runtime variables stay, and (for a
// non-function) the original dimensions become range variables.
std::vector<Var> inverse_vars(std::size_t results, std::size_t runtimes, std::size_t dims_as_ranges) {
  std::vector<Var> vars;
  for (std::uint32_t i = 0; i < results; ++i) vars.push_back({VarKind::kDim, i});
  for (std::uint32_t i = 0; i < runtimes; ++i) vars.push_back({VarKind::kRuntime, i});
  for (std::uint32_t i = 0; i < dims_as_ranges; ++i) vars.push_back({VarKind::kRange, i});
  return vars;
}

// Sound (interval arithmetic) intervals of the results.
std::vector<Variable> result_intervals(const IndexingMap& map) {
  simplify::RangeEvaluator ranges(map.domain(), true);
  std::vector<Variable> out;
  for (const Expr& r : map.results()) out.push_back({ranges(r), ""});
  return out;
}

// (r)[s...]{rt} -> (s...): every original index for every result index.
IndexingMap over_approximate_inverse(const IndexingMap& map) {
  std::vector<Expr> results;
  for (std::uint32_t i = 0; i < map.dim_count(); ++i) results.push_back(Expr::range(i));
  IndexingMap out(
      Domain(result_intervals(map), map.domain().variables(VarKind::kDim), map.domain().variables(VarKind::kRuntime)),
      std::move(results));
  out.runtime_sources() = map.runtime_sources();
  out.mark_approximate();
  return out;
}

// The reversed map, built symbolically: dimensions r (one per result, with
// sound intervals), range variables for the original dimensions then the
// original range variables, the same runtime variables, and constraints
// r_k = results[k]. Its graph with results = the original dimensions is
// the inverse relation once the range variables are projected out.
Domain reversed_domain(const IndexingMap& map) {
  const auto n_dim = static_cast<std::uint32_t>(map.dim_count());
  std::vector<Variable> ranges = map.domain().variables(VarKind::kDim);
  const auto& inner = map.domain().variables(VarKind::kRange);
  ranges.insert(ranges.end(), inner.begin(), inner.end());
  Domain reversed(result_intervals(map), ranges, map.domain().variables(VarKind::kRuntime));
  auto rename = [&](Var v) {
    switch (v.kind) {
      case VarKind::kDim: return Expr::range(v.index);
      case VarKind::kRange: return Expr::range(n_dim + v.index);
      case VarKind::kRuntime: break;
    }
    return Expr::variable(v);
  };
  for (const Constraint& c : map.domain().constraints()) {
    (void)reversed.add_constraint(simplify::substitute(c.expr, rename), c.interval);
  }
  for (std::size_t k = 0; k < map.results().size(); ++k) {
    Expr e = simplify::substitute(map.results()[k], rename) - Expr::dim(static_cast<std::uint32_t>(k));
    (void)reversed.add_constraint(e, Interval::point(0));
  }
  return reversed;
}

std::vector<IndexingMap> inverse_within_budget(const IndexingMap& map) {
  const std::size_t n_res = map.results().size(), n_rt = map.runtime_count(), n_dim = map.dim_count();
  std::vector<Expr> original_dims;
  for (std::uint32_t i = 0; i < n_dim; ++i) original_dims.push_back(Expr::range(i));
  // Graph [r, s (original d, original s), rt, d']; projected: [r, rt, d'].
  isl::set inverse_graph = project_out(graph_set(reversed_domain(map), original_dims), static_cast<unsigned>(n_res),
                                       static_cast<unsigned>(n_dim + map.range_count()));
  std::vector<IndexingMap> out;
  if (inverse_graph.is_empty()) return out;
  std::vector<Var> in_vars = inverse_vars(n_res, n_rt, 0);
  if (auto functions = function_pieces(inverse_graph, static_cast<unsigned>(n_res + n_rt), in_vars)) {
    for (const FunctionPiece& f : *functions) {
      for (Domain& piece : symbolic_pieces(f.domain, in_vars)) out.emplace_back(std::move(piece), f.results);
    }
  } else {
    for (Domain& piece : symbolic_pieces(inverse_graph, inverse_vars(n_res, n_rt, n_dim))) {
      out.emplace_back(std::move(piece), original_dims);
      eliminate_determined_symbols(out.back());
    }
  }
  for (IndexingMap& m : out) m.runtime_sources() = map.runtime_sources();
  return out;
}

}  // namespace

std::vector<IndexingMap> inverse(const IndexingMap& map, bool simplify_pieces) {
  if (map.is_undefined()) return {IndexingMap::undefined(map.undefined_reason())};
  std::vector<IndexingMap> out;
  if (!map.is_known_empty()) {
    out = within_isl_budget([&] { return inverse_within_budget(map); },
                            [&] { return std::vector<IndexingMap>{over_approximate_inverse(map)}; });
  }
  if (out.empty()) {
    // KNOWN EMPTY, with the inverse's variable and result counts.
    std::vector<Variable> dims(map.results().size(), Variable{{0, -1}, ""});
    std::vector<Variable> runtimes(map.runtime_count(), Variable{{0, -1}, ""});
    out.emplace_back(Domain(dims, {}, runtimes), std::vector<Expr>(map.dim_count()));
    out.back().set_known_empty();
  }
  if (simplify_pieces) {
    for (IndexingMap& m : out) simplify(m);
  }
  return out;
}

namespace {

// `v mod c in [a, b]` on a bare variable: the rules already keep v's
// interval exact for it (merge_mod_constraints aligns the bounds), and
// interval evaluation already drops it when it is implied.
bool rules_keep_exact(const Constraint& c) {
  return c.expr.kind() == Expr::Kind::kMod && c.expr.operand().is_variable();
}

bool tighten_domain_within_budget(IndexingMap& map) {
  Domain& domain = map.domain();
  // Variables whose interval isl may narrow: those in a constraint the
  // rules do not handle exactly. The others are exact already.
  std::vector<Var> linked;
  std::vector<Var> with_mod;
  for (const Constraint& c : domain.constraints()) {
    if (rules_keep_exact(c)) {
      // Two residue constraints on one variable interact: isl decides.
      Var v = c.expr.operand().variable();
      if (std::find(with_mod.begin(), with_mod.end(), v) != with_mod.end()) linked.push_back(v);
      with_mod.push_back(v);
      continue;
    }
    simplify::for_each_variable(c.expr, [&](Var v) {
      if (std::find(linked.begin(), linked.end(), v) == linked.end()) linked.push_back(v);
    });
  }
  if (linked.empty()) return false;
  // One isl set per constraint, built once: dropping a constraint to test
  // whether it is redundant is then an intersection, not a rebuild.
  isl::set box = box_set(domain);
  std::vector<isl::set> parts;
  for (const Constraint& c : domain.constraints()) parts.push_back(constraint_set(domain, c));
  auto intersect_all_but = [&](std::size_t skip) {
    isl::set s = box;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i != skip) s = s.intersect(parts[i]);
    }
    return s;
  };
  isl::set full = intersect_all_but(parts.size());
  if (full.is_empty()) {
    map.set_known_empty();
    return true;
  }
  bool changed = false;
  for (std::size_t i = parts.size(); i-- > 0;) {
    if (rules_keep_exact(domain.constraints()[i])) continue;
    if (intersect_all_but(i).is_subset(full)) {
      domain.remove_constraint(i);
      parts.erase(parts.begin() + static_cast<long>(i));
      changed = true;
    }
  }
  for (Var v : linked) {
    auto b = dimension_bounds(full, static_cast<unsigned>(domain.position(v)));
    if (b && *b != domain.bounds(v)) {
      domain.set_bounds(v, *b);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool tighten_domain(IndexingMap& map) {
  if (!map.is_defined() || map.domain().constraints().empty()) return false;
  return within_isl_budget([&] { return tighten_domain_within_budget(map); }, [] { return false; });
}

}  // namespace hlo_index::indexing

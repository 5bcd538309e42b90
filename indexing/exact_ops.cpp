#include "indexing/exact_ops.hpp"

#include <algorithm>

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
                           std::optional<bool>());
}

std::optional<bool> are_equal(const IndexingMap& a, const IndexingMap& b) {
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
  if (a.is_known_empty() || b.is_known_empty()) {
    auto ea = is_empty(a), eb = is_empty(b);
    if (!ea.has_value() || !eb.has_value()) return std::nullopt;
    return *ea && *eb;
  }
  if (a.dim_count() != b.dim_count() || a.runtime_count() != b.runtime_count() ||
      a.results().size() != b.results().size()) {
    return false;
  }
  if (a.runtime_sources().size() != b.runtime_sources().size()) return false;
  for (std::size_t i = 0; i < a.runtime_sources().size(); ++i) {
    const RuntimeSource& x = a.runtime_sources()[i];
    const RuntimeSource& y = b.runtime_sources()[i];
    if (x.source != y.source || (x.map == nullptr) != (y.map == nullptr)) return false;
    if (x.map) {
      auto same = are_equal(*x.map, *y.map);
      if (!same.has_value() || !*same) return same;
    }
  }
  if (a == b) return true;
  return within_isl_budget([&] { return std::optional<bool>(relation_set(a).is_equal(relation_set(b))); },
                           std::optional<bool>());
}

namespace {

// Variables of an inverse map: results become dimensions, runtime
// variables stay, and (for a non-function) the original dimensions become
// range variables.
std::vector<Var> inverse_vars(std::size_t results, std::size_t runtimes, std::size_t dims_as_ranges) {
  std::vector<Var> vars;
  for (std::uint32_t i = 0; i < results; ++i) vars.push_back({VarKind::kDim, i});
  for (std::uint32_t i = 0; i < runtimes; ++i) vars.push_back({VarKind::kRuntime, i});
  for (std::uint32_t i = 0; i < dims_as_ranges; ++i) vars.push_back({VarKind::kRange, i});
  return vars;
}

Domain domain_of_piece(const SymbolicPiece& piece, std::span<const Var> vars, std::size_t results,
                       std::size_t runtimes, std::size_t ranges) {
  std::vector<Variable> by_kind[simplify::k_var_kinds];
  by_kind[0].resize(results);
  by_kind[1].resize(ranges);
  by_kind[2].resize(runtimes);
  for (std::size_t i = 0; i < vars.size(); ++i) by_kind[static_cast<int>(vars[i].kind)][vars[i].index] = {piece.bounds[i], ""};
  Domain d(by_kind[0], by_kind[1], by_kind[2]);
  for (const Constraint& c : piece.constraints) (void)d.add_constraint(c.expr, c.interval);
  return d;
}

IndexingMap over_approximate_inverse(const IndexingMap& map) {
  // (r)[s...]{rt} -> (s...): every original index for every result index.
  std::vector<Variable> dims(map.results().size(), Variable{Interval::unbounded(), ""});
  // Result intervals from interval arithmetic (sound, possibly wide).
  simplify::RangeEvaluator ranges(map.domain(), true);
  for (std::size_t k = 0; k < dims.size(); ++k) dims[k].bounds = ranges(map.results()[k]);
  std::vector<Expr> results;
  for (std::uint32_t i = 0; i < map.dim_count(); ++i) results.push_back(Expr::range(i));
  IndexingMap out(Domain(dims, map.domain().variables(VarKind::kDim), map.domain().variables(VarKind::kRuntime)),
                  std::move(results));
  out.runtime_sources() = map.runtime_sources();
  out.mark_approximate();
  return out;
}

}  // namespace

std::vector<IndexingMap> inverse(const IndexingMap& map, bool simplify_pieces) {
  if (map.is_undefined()) return {IndexingMap::undefined(map.undefined_reason())};
  const std::size_t n_res = map.results().size(), n_rt = map.runtime_count(), n_dim = map.dim_count();
  auto empty_inverse = [&] {
    std::vector<Variable> dims(n_res, Variable{{0, -1}, ""});
    std::vector<Variable> runtimes(n_rt, Variable{{0, -1}, ""});
    std::vector<Expr> results(n_dim);
    IndexingMap out(Domain(dims, {}, runtimes), results);
    out.set_known_empty();
    return std::vector<IndexingMap>{out};
  };
  if (map.is_known_empty()) return empty_inverse();
  std::vector<IndexingMap> out;
  try {
    IslBudget budget;
    // Graph over [d, s, rt, r]; keep (r, rt, d) in that order.
    isl::set graph = graph_set(map.domain(), map.results());
    unsigned nd = static_cast<unsigned>(n_dim), ns = static_cast<unsigned>(map.range_count());
    isl::set rel = project_out(graph, nd, ns);  // [d, rt, r]
    if (rel.is_empty()) return empty_inverse();
    // The reversed relation is built symbolically (results as dimensions,
    // original dimensions as range variables) and handed to isl as a graph.
    std::vector<Var> in_vars = inverse_vars(n_res, n_rt, 0);
    Domain swapped;
    {
      // Dimensions: r (exact intervals), runtime: rt, ranges: original d.
      std::vector<Variable> res_dims;
      for (unsigned k = 0; k < n_res; ++k) {
        auto b = dimension_bounds(rel, nd + static_cast<unsigned>(n_rt) + k);
        if (!b) throw IslLimitReached();
        res_dims.push_back({*b, ""});
      }
      std::vector<Variable> ranges = map.domain().variables(VarKind::kDim);
      std::vector<Variable> inner_ranges = map.domain().variables(VarKind::kRange);
      ranges.insert(ranges.end(), inner_ranges.begin(), inner_ranges.end());
      swapped = Domain(res_dims, ranges, map.domain().variables(VarKind::kRuntime));
      // Old dims d_i -> s_i, old ranges s_j -> s_{n_dim + j}, results r_k = d_k.
      auto rename = [&](Var v) {
        switch (v.kind) {
          case VarKind::kDim: return Expr::range(v.index);
          case VarKind::kRange: return Expr::range(static_cast<std::uint32_t>(n_dim) + v.index);
          case VarKind::kRuntime: return Expr::variable(v);
        }
        return Expr::variable(v);
      };
      for (const Constraint& c : map.domain().constraints()) {
        (void)swapped.add_constraint(simplify::substitute(c.expr, rename), c.interval);
      }
      for (std::size_t k = 0; k < n_res; ++k) {
        Expr e = simplify::substitute(map.results()[k], rename) - Expr::dim(static_cast<std::uint32_t>(k));
        (void)swapped.add_constraint(e, Interval::point(0));
      }
    }
    // Graph of the swapped map with results = original dims: [r, s(d, s_old), rt, d'].
    std::vector<Expr> original_dims;
    for (std::uint32_t i = 0; i < n_dim; ++i) original_dims.push_back(Expr::range(i));
    isl::set swapped_graph = graph_set(swapped, original_dims);
    // Project out the old dims and old ranges: [r, rt, d'].
    isl::set inv = project_out(swapped_graph, static_cast<unsigned>(n_res),
                               static_cast<unsigned>(n_dim + map.range_count()));
    auto functions = function_pieces(inv, static_cast<unsigned>(n_res + n_rt), in_vars);
    if (functions) {
      for (const FunctionPiece& f : *functions) {
        for (const SymbolicPiece& p : symbolic_pieces(f.domain, in_vars)) {
          IndexingMap m(domain_of_piece(p, in_vars, n_res, n_rt, 0), f.results);
          m.runtime_sources() = map.runtime_sources();
          out.push_back(std::move(m));
        }
      }
    } else {
      std::vector<Var> vars = inverse_vars(n_res, n_rt, n_dim);
      for (const SymbolicPiece& p : symbolic_pieces(inv, vars)) {
        std::vector<Expr> results;
        for (std::uint32_t i = 0; i < n_dim; ++i) results.push_back(Expr::range(i));
        IndexingMap m(domain_of_piece(p, vars, n_res, n_rt, n_dim), results);
        m.runtime_sources() = map.runtime_sources();
        eliminate_determined_symbols(m);
        out.push_back(std::move(m));
      }
    }
    if (simplify_pieces) {
      for (IndexingMap& m : out) simplify(m);
    }
  } catch (const IslLimitReached&) {
    return {over_approximate_inverse(map)};
  } catch (const isl::exception_quota&) {
    return {over_approximate_inverse(map)};
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
    unsigned pos = v.index;
    for (int k = 0; k < static_cast<int>(v.kind); ++k) pos += static_cast<unsigned>(domain.count(static_cast<VarKind>(k)));
    auto b = dimension_bounds(full, pos);
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
  return within_isl_budget([&] { return tighten_domain_within_budget(map); }, false);
}

}  // namespace hlo_index::indexing

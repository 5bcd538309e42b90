#include "indexing/maps/inverse.hpp"

#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/isl_bridge.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/non_affine.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

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
  out.mark_approximate("the exact inverse is past the isl operation budget");
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
  if (has_non_affine(map)) {
    // isl cannot represent the map: the inverse of an over-approximation it
    // can, approximate.
    std::vector<IndexingMap> out = inverse(abstract_non_affine(map), simplify_pieces);
    for (IndexingMap& m : out) m.mark_approximate("the inverse of a map with non-affine terms");
    return out;
  }
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

}  // namespace hlo_index::indexing

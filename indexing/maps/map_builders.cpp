#include "indexing/maps/map_builders.hpp"

#include <stdexcept>

#include "simplify/interval.hpp"

namespace hlo_index::indexing::build {

std::vector<Variable> variables(const std::vector<std::int64_t>& sizes) {
  std::vector<Variable> out;
  out.reserve(sizes.size());
  for (std::int64_t s : sizes) out.push_back(Variable{Interval{0, s - 1}, {}});
  return out;
}

std::vector<Expr> dims(std::size_t n) {
  std::vector<Expr> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(Expr::dim(static_cast<std::uint32_t>(i)));
  return out;
}

std::vector<Expr> ranges(std::size_t n, std::uint32_t first) {
  std::vector<Expr> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(Expr::range(first + static_cast<std::uint32_t>(i)));
  return out;
}

IndexingMap map(const std::vector<std::int64_t>& dim_sizes, std::vector<Expr> results,
                const std::vector<std::int64_t>& range_sizes) {
  return IndexingMap(Domain(variables(dim_sizes), variables(range_sizes), {}), std::move(results));
}

void mark_contracted(IndexingMap& m) {
  for (Variable& v : m.domain().variables(VarKind::kRange)) v.contracted = true;
}

IndexingMap scalar(const std::vector<std::int64_t>& dim_sizes) { return map(dim_sizes, {}); }

IndexingMap to_every_element(const std::vector<std::int64_t>& sizes) { return map({}, ranges(sizes.size()), sizes); }

IndexingMap turned_scalar(const IndexingMap& scalar_map) {
  if (!scalar_map.is_defined()) return scalar_map;
  const auto& dim_vars = scalar_map.domain().variables(VarKind::kDim);
  IndexingMap out(Domain({}, dim_vars, {}), ranges(dim_vars.size()));
  for (const Constraint& c : scalar_map.domain().constraints()) {
    out.add_constraint(
        simplify::substitute(c.expr,
                             [](Var v) { return v.kind == VarKind::kDim ? Expr::range(v.index) : Expr::variable(v); }),
        c.interval);
  }
  return out;
}

std::int64_t product(const std::vector<std::int64_t>& sizes) {
  std::int64_t p = 1;
  for (std::int64_t s : sizes) p = simplify::checked_mul(p, s);
  return p;
}

std::vector<Expr> reshape_index(const std::vector<std::int64_t>& from, const std::vector<Expr>& from_exprs,
                                const std::vector<std::int64_t>& to) {
  std::vector<Expr> out(to.size(), Expr::constant(0));
  if (product(from) == 0 || product(to) == 0) return out;  // no elements: nothing to index
  std::size_t i = 0, j = 0;
  while (i < from.size() || j < to.size()) {
    // A group: the shortest runs of dimensions on both sides with equal element counts.
    const std::size_t gi = i, gj = j;
    std::int64_t pf = 1, pt = 1;
    if (i < from.size()) pf *= from[i++];
    if (j < to.size()) pt *= to[j++];
    while (pf != pt) {
      if (pf < pt && i < from.size()) {
        pf = simplify::checked_mul(pf, from[i++]);
      } else if (pt < pf && j < to.size()) {
        pt = simplify::checked_mul(pt, to[j++]);
      } else {
        throw std::invalid_argument("reshape between shapes of different element counts");
      }
    }
    Expr linear = Expr::constant(0);
    std::int64_t stride = 1;
    for (std::size_t k = i; k-- > gi;) {
      linear = linear + from_exprs[k] * stride;
      stride *= from[k];
    }
    stride = 1;
    for (std::size_t k = j; k-- > gj;) {
      Expr e = stride == 1 ? linear : simplify::floor_div(linear, stride);
      if (k != gj) e = simplify::mod(e, to[k]);
      out[k] = e;
      stride *= to[k];
    }
  }
  return out;
}

}  // namespace hlo_index::indexing::build

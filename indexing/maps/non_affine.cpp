#include "indexing/maps/non_affine.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "simplify/compiled_expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

bool has_non_affine(const IndexingMap& map) {
  if (!map.is_defined()) return false;
  for (const Expr& r : map.results()) {
    if (simplify::has_non_affine(r)) return true;
  }
  for (const Expr& r : map.replica_id()) {
    if (simplify::has_non_affine(r)) return true;
  }
  for (const Constraint& c : map.domain().constraints()) {
    if (simplify::has_non_affine(c.expr)) return true;
  }
  return false;
}

namespace {

// `e` with each non-affine node replaced by its variable in `vars`.
Expr replace_nodes(const Expr& e, const std::map<Expr, Expr>& vars) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kVariable: return e;
    case Expr::Kind::kSum: {
      std::vector<simplify::Term> terms;
      for (const simplify::Term& t : e.terms()) terms.push_back({replace_nodes(t.atom, vars), t.coefficient});
      return simplify::linear_combination(terms, e.sum_constant());
    }
    case Expr::Kind::kFloorDiv: return simplify::floor_div(replace_nodes(e.operand(), vars), e.divisor());
    case Expr::Kind::kMod: return simplify::mod(replace_nodes(e.operand(), vars), e.divisor());
    case Expr::Kind::kNonAffine: return vars.at(e);
  }
  return e;
}

}  // namespace

IndexingMap abstract_non_affine(const IndexingMap& map) {
  const Domain& domain = map.domain();
  const simplify::RangeEvaluator ranges(domain, /*use_constraints=*/true);
  std::vector<Variable> new_ranges = domain.variables(VarKind::kRange);
  std::map<Expr, Expr> vars;
  const auto add = [&](const Expr& node) {
    if (vars.count(node) != 0) return;
    vars.emplace(node, Expr::range(static_cast<std::uint32_t>(new_ranges.size())));
    new_ranges.push_back({ranges(node), ""});
  };
  for (const Expr& r : map.results()) simplify::for_each_non_affine(r, add);
  for (const Expr& r : map.replica_id()) simplify::for_each_non_affine(r, add);
  for (const Constraint& c : domain.constraints()) simplify::for_each_non_affine(c.expr, add);

  std::vector<Expr> results;
  for (const Expr& r : map.results()) results.push_back(replace_nodes(r, vars));
  IndexingMap out(Domain(domain.variables(VarKind::kDim), new_ranges, domain.variables(VarKind::kRuntime)),
                  std::move(results));
  for (const Constraint& c : domain.constraints()) {
    if (out.is_defined()) out.add_constraint(replace_nodes(c.expr, vars), c.interval);
  }
  if (out.is_defined()) {
    for (const Expr& r : map.replica_id()) out.replica_id().push_back(replace_nodes(r, vars));
    out.runtime_sources() = map.runtime_sources();
  }
  out.mark_approximate("non-affine terms replaced by range variables");
  return out;
}

namespace {

// Walks every point of the box of variable intervals in order, the last
// variable fastest.
class PointWalker {
public:
  PointWalker(const IndexingMap& map, bool with_inputs) : m_map(map), m_with_inputs(with_inputs) {
    m_vars = map.domain().all_variables();
    // Compiled once: evaluated at up to k_max_enumerated_points points (evaluate()'s arithmetic).
    for (const Constraint& c : map.domain().constraints())
      m_constraints.emplace_back(simplify::CompiledExpr(c.expr), c.interval);
    for (const Expr& r : map.results()) m_results.emplace_back(r);
    if (with_inputs)
      for (const Expr& r : map.replica_id()) m_replica_id.emplace_back(r);
    for (int k = 0; k < simplify::k_var_kinds; ++k) m_values[k].assign(map.domain().count(static_cast<VarKind>(k)), 0);
    m_arity = m_results.size() + m_replica_id.size() +
              (with_inputs ? m_values[0].size() + m_values[2].size() : std::size_t{0});
  }

  std::optional<std::set<std::vector<std::int64_t>>> run() {
    if (!walk()) return std::nullopt;
    std::set<std::vector<std::int64_t>> tuples;
    for (std::size_t at = 0; at < m_flat.size(); at += m_arity)
      tuples.emplace(m_flat.begin() + static_cast<std::ptrdiff_t>(at),
                     m_flat.begin() + static_cast<std::ptrdiff_t>(at + m_arity));
    return tuples;
  }

  // The number of distinct tuples, without building a set of them (sorted in place).
  std::optional<std::int64_t> count() {
    if (!walk()) return std::nullopt;
    if (m_arity == 0) return m_flat.empty() && !m_any ? 0 : 1;
    const std::size_t n = m_flat.size() / m_arity;
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0U);
    const auto tuple = [this](std::uint32_t k) { return m_flat.begin() + static_cast<std::ptrdiff_t>(k * m_arity); };
    const auto less = [&](std::uint32_t a, std::uint32_t b) {
      return std::lexicographical_compare(tuple(a), tuple(a) + static_cast<std::ptrdiff_t>(m_arity), tuple(b),
                                          tuple(b) + static_cast<std::ptrdiff_t>(m_arity));
    };
    std::sort(order.begin(), order.end(), less);
    std::int64_t distinct = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == 0 || less(order[k - 1], order[k])) ++distinct;
    }
    return distinct;
  }

private:
  // Every point of the domain's box visited; false past k_max_enumerated_points or on overflow.
  bool walk() {
    std::int64_t box = 1;
    for (Var v : m_vars) {
      Interval b = m_map.domain().bounds(v);
      if (b.empty()) return true;
      if (__builtin_mul_overflow(box, b.size(), &box) || box > k_max_enumerated_points) return false;
      value(v) = b.lo;
    }
    try {
      do {
        visit();
      } while (next());
    } catch (const simplify::ArithmeticOverflow&) {
      return false;
    }
    return true;
  }

  std::int64_t& value(Var v) { return m_values[static_cast<int>(v.kind)][v.index]; }
  simplify::VarValues values() const { return {m_values[0], m_values[1], m_values[2]}; }

  bool next() {
    for (std::size_t i = m_vars.size(); i-- > 0;) {
      Interval b = m_map.domain().bounds(m_vars[i]);
      if (value(m_vars[i]) < b.hi) {
        ++value(m_vars[i]);
        return true;
      }
      value(m_vars[i]) = b.lo;
    }
    return false;
  }

  void visit() {
    const simplify::VarValues at = values();
    for (const auto& [expr, interval] : m_constraints) {
      if (!interval.contains(expr(at))) return;
    }
    m_any = true;
    if (m_with_inputs) {
      m_flat.insert(m_flat.end(), m_values[0].begin(), m_values[0].end());
      m_flat.insert(m_flat.end(), m_values[2].begin(), m_values[2].end());
    }
    for (const simplify::CompiledExpr& r : m_results) m_flat.push_back(r(at));
    for (const simplify::CompiledExpr& r : m_replica_id) m_flat.push_back(r(at));
  }

  const IndexingMap& m_map;
  bool m_with_inputs;
  std::vector<Var> m_vars;
  std::vector<std::int64_t> m_values[simplify::k_var_kinds];
  std::size_t m_arity = 0;           // numbers per tuple
  std::vector<std::int64_t> m_flat;  // the tuples visited, m_arity numbers each
  bool m_any = false;                // a point passed the constraints
  std::vector<std::pair<simplify::CompiledExpr, Interval>> m_constraints;
  std::vector<simplify::CompiledExpr> m_results, m_replica_id;  // replica ids: with inputs only
};

}  // namespace

std::optional<std::set<std::vector<std::int64_t>>> enumerate_relation(const IndexingMap& map, bool with_inputs) {
  if (!map.is_defined()) return std::nullopt;
  return PointWalker(map, with_inputs).run();
}

std::optional<std::int64_t> enumerated_image_size(const IndexingMap& map) {
  if (!map.is_defined()) return std::nullopt;
  return PointWalker(map, /*with_inputs=*/false).count();
}

}  // namespace hlo_index::indexing

#include "simplify/domain.hpp"

#include <algorithm>

namespace hlo_index::simplify {

Domain::Domain(std::vector<Variable> dims, std::vector<Variable> ranges, std::vector<Variable> runtimes) {
  m_variables[0] = std::move(dims);
  m_variables[1] = std::move(ranges);
  m_variables[2] = std::move(runtimes);
}

std::size_t Domain::variable_count() const {
  return m_variables[0].size() + m_variables[1].size() + m_variables[2].size();
}

std::size_t Domain::position(Var v) const {
  std::size_t base = 0;
  for (int k = 0; k < static_cast<int>(v.kind); ++k) base += m_variables[k].size();
  return base + v.index;
}

std::vector<Var> Domain::all_variables() const {
  std::vector<Var> vars;
  for (int k = 0; k < k_var_kinds; ++k) {
    for (std::uint32_t i = 0; i < m_variables[k].size(); ++i) vars.push_back({static_cast<VarKind>(k), i});
  }
  return vars;
}

Domain Domain::restricted_to(const std::function<bool(Var)>& keep) const {
  Domain out = *this;
  out.m_constraints.clear();
  for (Var v : all_variables()) {
    if (!keep(v)) out.set_bounds(v, {0, 0});
  }
  for (const Constraint& c : m_constraints) {
    bool all_kept = true;
    for_each_variable(c.expr, [&](Var v) { all_kept = all_kept && keep(v); });
    if (all_kept) out.m_constraints.push_back(c);  // already sorted and unique
  }
  return out;
}

const Interval* Domain::find_constraint(const Expr& e) const {
  auto it = std::lower_bound(m_constraints.begin(), m_constraints.end(), e,
                             [](const Constraint& c, const Expr& x) { return (c.expr <=> x) < 0; });
  if (it != m_constraints.end() && it->expr == e) return &it->interval;
  return nullptr;
}

bool Domain::add_constraint(const Expr& expr, Interval interval) {
  if (interval.empty()) return false;
  if (expr.is_constant()) return interval.contains(expr.constant_value());
  if (expr.is_variable()) {
    Var v = expr.variable();
    Interval b = bounds(v).intersect(interval);
    set_bounds(v, b);
    return !b.empty();
  }
  auto it = std::lower_bound(m_constraints.begin(), m_constraints.end(), expr,
                             [](const Constraint& c, const Expr& x) { return (c.expr <=> x) < 0; });
  if (it != m_constraints.end() && it->expr == expr) {
    it->interval = it->interval.intersect(interval);
    return !it->interval.empty();
  }
  m_constraints.insert(it, Constraint{expr, interval});
  return true;
}

bool Domain::has_empty_bounds() const {
  for (const auto& vars : m_variables) {
    for (const Variable& v : vars) {
      if (v.bounds.empty()) return true;
    }
  }
  return false;
}

}  // namespace hlo_index::simplify

#include "simplify/constraint_rules.hpp"

#include <map>
#include <vector>

namespace hlo_index::simplify {

std::optional<ConstraintRewrite> constraint_fold_constant(const Constraint& c, const RangeEvaluator&) {
  if (!c.expr.is_constant()) return std::nullopt;
  return c.interval.contains(c.expr.constant_value()) ? ConstraintRewrite::drop() : ConstraintRewrite::infeasible();
}

std::optional<ConstraintRewrite> constraint_always_true(const Constraint& c, const RangeEvaluator& ranges) {
  Interval r = ranges(c.expr);
  if (!r.empty() && c.interval.contains(r)) return ConstraintRewrite::drop();
  return std::nullopt;
}

std::optional<ConstraintRewrite> constraint_never_true(const Constraint& c, const RangeEvaluator& ranges) {
  if (c.interval.empty() || ranges(c.expr).intersect(c.interval).empty()) return ConstraintRewrite::infeasible();
  return std::nullopt;
}

std::optional<ConstraintRewrite> constraint_clip_to_range(const Constraint& c, const RangeEvaluator& ranges) {
  Interval r = ranges(c.expr);
  Interval clipped = c.interval.intersect(r);
  if (clipped == c.interval || clipped.empty()) return std::nullopt;
  return ConstraintRewrite::replace(c.expr, clipped);
}

std::optional<ConstraintRewrite> constraint_move_constant(const Constraint& c, const RangeEvaluator&) {
  if (c.expr.kind() != Expr::Kind::kSum || c.expr.sum_constant() == 0) return std::nullopt;
  std::int64_t k = c.expr.sum_constant();
  return ConstraintRewrite::replace(
      c.expr - k, {checked_add(c.interval.lo, checked_neg(k)), checked_add(c.interval.hi, checked_neg(k))});
}

std::optional<ConstraintRewrite> constraint_divide_common_factor(const Constraint& c, const RangeEvaluator&) {
  if (c.expr.kind() != Expr::Kind::kSum || c.expr.sum_constant() != 0) return std::nullopt;
  std::int64_t g = 0;
  for (const Term& t : c.expr.terms()) g = gcd(g, t.coefficient);
  if (g == 1) return std::nullopt;
  std::vector<Term> terms(c.expr.terms().begin(), c.expr.terms().end());
  for (Term& t : terms) t.coefficient /= g;
  Interval i = g > 0 ? Interval{ceil_div(c.interval.lo, g), simplify::floor_div(c.interval.hi, g)}
                     : Interval{ceil_div(c.interval.hi, g), simplify::floor_div(c.interval.lo, g)};
  if (i.empty()) return ConstraintRewrite::infeasible();
  return ConstraintRewrite::replace(linear_combination(terms, 0), i);
}

std::optional<ConstraintRewrite> constraint_unfold_floordiv(const Constraint& c, const RangeEvaluator&) {
  if (c.expr.kind() != Expr::Kind::kFloorDiv) return std::nullopt;
  std::int64_t k = c.expr.divisor();
  return ConstraintRewrite::replace(
      c.expr.operand(), {saturating_mul(c.interval.lo, k), saturating_add(saturating_mul(c.interval.hi, k), k - 1)});
}

std::optional<ConstraintRewrite> constraint_drop_bounded_remainder(const Constraint& c, const RangeEvaluator& ranges) {
  if (c.expr.kind() != Expr::Kind::kSum || c.expr.terms().size() < 2) return std::nullopt;
  std::vector<Term> terms(c.expr.terms().begin(), c.expr.terms().end());
  std::int64_t constant = c.expr.sum_constant();
  std::vector<Term> multiple, remainder;
  for (const Term& candidate : terms) {
    std::int64_t g = candidate.coefficient < 0 ? -candidate.coefficient : candidate.coefficient;
    if (g <= 1) continue;
    split_by_factor(terms, g, multiple, remainder);
    if (remainder.empty()) continue;
    Interval b = ranges(linear_combination(remainder, constant));
    if (b.empty()) continue;
    // lo <= g*A + B  <=>  A >= ceil((lo - B) / g), constant over B's range?
    std::int64_t lo1 = ceil_div(saturating_add(c.interval.lo, -b.lo), g);
    std::int64_t lo2 = ceil_div(saturating_add(c.interval.lo, -b.hi), g);
    std::int64_t hi1 = simplify::floor_div(saturating_add(c.interval.hi, -b.lo), g);
    std::int64_t hi2 = simplify::floor_div(saturating_add(c.interval.hi, -b.hi), g);
    if (lo1 != lo2 || hi1 != hi2) continue;
    if (lo1 > hi1) return ConstraintRewrite::infeasible();
    return ConstraintRewrite::replace(linear_combination(multiple, 0), {lo1, hi1});
  }
  return std::nullopt;
}

bool leads_negative(const Expr& e) {
  if (e.kind() != Expr::Kind::kSum) return false;
  const Term* lead = &e.terms()[0];
  for (const Term& t : e.terms()) {
    if ((t.atom <=> lead->atom) < 0) lead = &t;
  }
  return lead->coefficient < 0;
}

std::optional<ConstraintRewrite> constraint_normalize_sign(const Constraint& c, const RangeEvaluator&) {
  if (!leads_negative(c.expr)) return std::nullopt;
  return ConstraintRewrite::replace(-c.expr, {checked_neg(c.interval.hi), checked_neg(c.interval.lo)});
}

namespace {

std::int64_t lcm(std::int64_t a, std::int64_t b) { return checked_mul(a / gcd(a, b), b); }

// Smallest value >= lo whose residue mod c lies in [a, b] (0 <= a <= b < c).
std::int64_t first_with_residue(std::int64_t lo, std::int64_t c, Interval residues) {
  std::int64_t m = floor_mod(lo, c);
  if (residues.contains(m)) return lo;
  if (m < residues.lo) return lo + (residues.lo - m);
  return saturating_add(lo, c - m + residues.lo);
}
// Largest value <= hi whose residue mod c lies in [a, b].
std::int64_t last_with_residue(std::int64_t hi, std::int64_t c, Interval residues) {
  std::int64_t m = floor_mod(hi, c);
  if (residues.contains(m)) return hi;
  if (m > residues.hi) return hi - (m - residues.hi);
  return saturating_add(hi, -(m + c - residues.hi));
}

}  // namespace

bool merge_mod_constraints(Domain& domain, bool& changed) {
  // Group `x mod c in [r, r]` by (x, r).
  std::vector<Constraint> constraints = domain.take_constraints();
  std::vector<Constraint> kept;
  std::vector<std::pair<std::pair<Expr, std::int64_t>, std::int64_t>> groups;  // ((x, r), lcm)
  std::vector<std::size_t> group_sizes;
  for (Constraint& c : constraints) {
    if (c.expr.kind() == Expr::Kind::kMod && c.interval.is_point()) {
      bool found = false;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        if (groups[g].first.first == c.expr.operand() && groups[g].first.second == c.interval.lo) {
          groups[g].second = lcm(groups[g].second, c.expr.divisor());
          ++group_sizes[g];
          found = true;
          break;
        }
      }
      if (!found) {
        groups.push_back({{c.expr.operand(), c.interval.lo}, c.expr.divisor()});
        group_sizes.push_back(1);
      }
      continue;
    }
    kept.push_back(std::move(c));
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (group_sizes[g] > 1) changed = true;
    const auto& [key, modulus] = groups[g];
    kept.push_back({mod(key.first, modulus), Interval::point(key.second)});
  }
  bool feasible = true;
  for (Constraint& c : kept) {
    if (!domain.add_constraint(c.expr, c.interval)) feasible = false;
  }
  if (!feasible) return false;
  // Align the bounds of bare variables with their residue constraints.
  for (const Constraint& c : domain.constraints()) {
    if (c.expr.kind() != Expr::Kind::kMod || !c.expr.operand().is_variable()) continue;
    Var v = c.expr.operand().variable();
    Interval b = domain.bounds(v);
    Interval residues = c.interval.intersect({0, c.expr.divisor() - 1});
    if (residues.empty()) return false;
    Interval aligned{first_with_residue(b.lo, c.expr.divisor(), residues),
                     last_with_residue(b.hi, c.expr.divisor(), residues)};
    if (aligned != b) {
      domain.set_bounds(v, aligned);
      changed = true;
      if (aligned.empty()) return false;
    }
  }
  return true;
}

namespace {

// A range variable `c` can be solved for: a term of coefficient +-1 whose
// variable appears nowhere else in the constraint, and the rest of the sum.
struct SolvableTerm {
  Term term;
  Expr rest;  // c.expr - coefficient * variable
};

std::optional<SolvableTerm> solvable_range_term(const Constraint& c) {
  if (c.interval.lo != c.interval.hi || c.expr.kind() != Expr::Kind::kSum) return std::nullopt;
  for (const Term& t : c.expr.terms()) {
    if (!t.atom.is_variable() || t.atom.variable().kind != VarKind::kRange) continue;
    if (t.coefficient != 1 && t.coefficient != -1) continue;
    Expr rest = c.expr - t.atom * t.coefficient;
    if (uses_variable(rest, t.atom.variable())) continue;
    return SolvableTerm{t, std::move(rest)};
  }
  return std::nullopt;
}

// `s` occurs inside a non-affine term of the results or the constraints:
// substituting there could turn a divisor positive on the domain into one
// that is zero at points outside it (which evaluation still visits).
bool inside_non_affine(const std::vector<Expr>& results, const Domain& domain, Var s) {
  bool found = false;
  const auto check = [&](const Expr& node) { found = found || uses_variable(node, s); };
  for (const Expr& r : results) for_each_non_affine(r, check);
  for (const Constraint& c : domain.constraints()) for_each_non_affine(c.expr, check);
  return found;
}

}  // namespace

bool solve_range_equality(std::vector<Expr>& results, Domain& domain, bool& changed) {
  const std::vector<Constraint>& constraints = domain.constraints();
  for (std::size_t k = 0; k < constraints.size(); ++k) {
    const std::optional<SolvableTerm> solvable = solvable_range_term(constraints[k]);
    if (!solvable) continue;
    const Var s = solvable->term.atom.variable();
    if (inside_non_affine(results, domain, s)) continue;
    // coefficient * s + rest = c, coefficient = +-1: s = coefficient * (c - rest).
    const Expr value = (Expr::constant(constraints[k].interval.lo) - solvable->rest) * solvable->term.coefficient;
    const Interval bounds = domain.bounds(s);
    std::vector<Constraint> others = domain.take_constraints();
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(k));
    const auto replace = [&](Var v) { return v == s ? value : Expr::variable(v); };
    for (Expr& r : results) {
      if (uses_variable(r, s)) r = substitute(r, replace);
    }
    changed = true;
    if (!domain.add_constraint(value, bounds)) return false;
    for (const Constraint& o : others) {
      if (!domain.add_constraint(uses_variable(o.expr, s) ? substitute(o.expr, replace) : o.expr, o.interval))
        return false;
    }
    return true;
  }
  return true;
}

}  // namespace hlo_index::simplify

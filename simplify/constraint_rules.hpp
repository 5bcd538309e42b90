// Rewrite rules for one domain constraint `expr in [lo, hi]`. Each rule is
// exact: the set of points of the variable box that satisfy the constraint
// does not change. A rule either leaves the constraint alone (nullopt),
// replaces it, drops it as always true, or finds it never true.
#pragma once

#include <optional>

#include "simplify/domain.hpp"
#include "simplify/range.hpp"

namespace hlo_index::simplify {

struct ConstraintRewrite {
  enum class Action { kReplace, kDrop, kInfeasible };
  Action action = Action::kReplace;
  Constraint replacement;

  static ConstraintRewrite drop() { return {Action::kDrop, {}}; }
  static ConstraintRewrite infeasible() { return {Action::kInfeasible, {}}; }
  static ConstraintRewrite replace(Expr e, Interval i) { return {Action::kReplace, {std::move(e), i}}; }
};

using ConstraintRule = std::optional<ConstraintRewrite> (*)(const Constraint&, const RangeEvaluator&);

/// `c in [lo, hi]` for a constant c: dropped if it holds, infeasible if not.
std::optional<ConstraintRewrite> constraint_fold_constant(const Constraint& c, const RangeEvaluator& ranges);
/// The expression's range lies inside the interval: always true, dropped.
std::optional<ConstraintRewrite> constraint_always_true(const Constraint& c, const RangeEvaluator& ranges);
/// The expression's range misses the interval: never true.
std::optional<ConstraintRewrite> constraint_never_true(const Constraint& c, const RangeEvaluator& ranges);
/// The interval reaches outside the expression's range: cut it to the range.
std::optional<ConstraintRewrite> constraint_clip_to_range(const Constraint& c, const RangeEvaluator& ranges);
/// `e + k in [lo, hi]` is `e in [lo - k, hi - k]`.
std::optional<ConstraintRewrite> constraint_move_constant(const Constraint& c, const RangeEvaluator& ranges);
/// `g*e in [lo, hi]` (all coefficients share g, sign included) is
/// `e in [ceil(lo/g), floor(hi/g)]`.
std::optional<ConstraintRewrite> constraint_divide_common_factor(const Constraint& c, const RangeEvaluator& ranges);
/// `e floordiv k in [lo, hi]` is `e in [lo*k, hi*k + k - 1]`.
std::optional<ConstraintRewrite> constraint_unfold_floordiv(const Constraint& c, const RangeEvaluator& ranges);
/// `g*A + B in [lo, hi]` where B is too small to move the bounds on A is
/// `A in [ceil((lo - B)/g), floor((hi - B)/g)]` (both constant over B's range).
std::optional<ConstraintRewrite> constraint_drop_bounded_remainder(const Constraint& c, const RangeEvaluator& ranges);

/// True if the term of `e` with the least atom has a negative coefficient.
/// Unlike the term order, the atom order does not depend on coefficients, so
/// exactly one of e and -e leads negative: the canonical sign of a constraint.
bool leads_negative(const Expr& e);

/// `e in [lo, hi]` whose term with the least atom has a negative
/// coefficient is `-e in [-hi, -lo]`, so that both spellings of one
/// constraint meet.
std::optional<ConstraintRewrite> constraint_normalize_sign(const Constraint& c, const RangeEvaluator& ranges);

/// The rules in the order the simplifier tries them.
inline constexpr ConstraintRule k_constraint_rules[] = {
    constraint_fold_constant,   constraint_never_true,
    constraint_always_true,     constraint_clip_to_range,
    constraint_move_constant,   constraint_divide_common_factor,
    constraint_unfold_floordiv, constraint_drop_bounded_remainder,
    constraint_normalize_sign,
};

/// Map-level rule: constraints `x mod c in [r, r]` on the same x and r
/// merge into one with the lcm of the moduli, and a bare variable with a
/// constraint `v mod c in [a, b]` gets bounds that satisfy it. Returns false
/// when the domain became infeasible; sets `changed`.
bool merge_mod_constraints(Domain& domain, bool& changed);

/// Map-level rule: a constraint `s + e in [c, c]` (or `-s + e`) on a range
/// variable s that e does not use fixes s at `c - e` (or `e - c`) for every
/// value of the other variables. s is replaced by that expression in
/// `results` and the other constraints, and the equality becomes `c - e in
/// [s's bounds]`; s is then unused. Exact, because range variables are
/// existential and exactly one value of s meets the equality: the relation
/// and the number of its points (reads) stay the same. One variable per
/// call. Returns false when the domain became infeasible; sets `changed`.
bool solve_range_equality(std::vector<Expr>& results, Domain& domain, bool& changed);

}  // namespace hlo_index::simplify

// The range-aware rewrite rules of the expression simplifier. Each rule
// looks at the top node of `e` only, returns the rewritten expression when
// it applies and std::nullopt when it does not. Every rule is an identity
// on all points whose variables lie in the ranges `ranges` reports, so a
// rewrite never changes a map on its domain.
#pragma once

#include <optional>

#include "simplify/expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::simplify {

/// A non-constant expression whose range is one value becomes that value.
std::optional<Expr> replace_point_range(const Expr& e, const RangeEvaluator& ranges);

/// `x mod c` with x inside one period [k*c, k*c + c - 1] is `x - k*c`
/// (k = 0: the mod is dropped).
std::optional<Expr> mod_within_one_period(const Expr& e, const RangeEvaluator& ranges);

/// `x floordiv c` with x inside one period [k*c, k*c + c - 1] is `k`.
std::optional<Expr> floordiv_within_one_period(const Expr& e, const RangeEvaluator& ranges);

/// `(h*M + B) floordiv (h*d)` with B in [k*h, k*h + h - 1] is
/// `(M + k) floordiv d`: B cannot carry into the quotient.
std::optional<Expr> floordiv_drop_bounded_remainder(const Expr& e, const RangeEvaluator& ranges);

/// `(h*M + B) mod (h*m)` with B in [k*h, k*h + h - 1] is
/// `((M + k) mod m) * h + B - k*h`: the mod splits over the two parts.
std::optional<Expr> mod_split_bounded_remainder(const Expr& e, const RangeEvaluator& ranges);

/// `(x mod (a*b)) floordiv a` is `(x floordiv a) mod b`.
std::optional<Expr> floordiv_of_mod(const Expr& e, const RangeEvaluator& ranges);

/// `(t floordiv c + R) floordiv d` is `(t + R*c) floordiv (c*d)` when the
/// sum has exactly one floordiv summand, with coefficient 1.
std::optional<Expr> floordiv_absorb_inner_floordiv(const Expr& e, const RangeEvaluator& ranges);

/// In a sum, `(x mod c) * a + (x floordiv c) * (a*c)` is `x * a`: a
/// delinearised pair recombines (the reshape-after-reshape case).
std::optional<Expr> sum_recombine_div_mod(const Expr& e, const RangeEvaluator& ranges);

/// In a sum, `((x floordiv a) mod b) * (k*a) + (x mod a) * k` is
/// `(x mod (a*b)) * k`: two adjacent digits of x merge (a tiled layout read
/// back, or a bitcast between tilings).
std::optional<Expr> sum_merge_mod_digits(const Expr& e, const RangeEvaluator& ranges);

/// In a sum that contains `a*x` and `(x floordiv c) * (-a*c)`, the two are
/// `(x mod c) * a`; applied only when the result is smaller.
std::optional<Expr> sum_fold_into_mod(const Expr& e, const RangeEvaluator& ranges);

/// `y floordiv c` where every coefficient of y and its constant are
/// negative is `-((-y + c - 1) floordiv c)`: the form isl produces for
/// ceilings, turned back into a positive floordiv.
std::optional<Expr> floordiv_of_negative_sum(const Expr& e, const RangeEvaluator& ranges);

/// `y mod c` where, after reducing each coefficient and the constant to
/// the residue of least magnitude, all are negative is
/// `c - 1 - ((-y - 1) mod c)`.
std::optional<Expr> mod_of_negative_sum(const Expr& e, const RangeEvaluator& ranges);

}  // namespace hlo_index::simplify

// Interval evaluation of expressions over a domain: sound bounds from the
// variable intervals (and, optionally, from constraints on exactly the same
// subexpression). The simplifier's rules ask it whether a subexpression
// stays inside one period of a floordiv or mod.
#pragma once

#include <optional>
#include <string>

#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "simplify/expr_print.hpp"

namespace hlo_index::simplify {

class RangeEvaluator {
public:
  RangeEvaluator(const Domain& domain, bool use_constraints) : m_domain(domain), m_use_constraints(use_constraints) {}

  Interval operator()(const Expr& e) const;
  const Domain& domain() const { return m_domain; }
  /// A sound interval of `x op y` for x and y in the given intervals.
  static Interval non_affine(const Interval& x, const Interval& y, Expr::NonAffineOp op);

private:
  const Domain& m_domain;
  bool m_use_constraints;
};

/// The first subexpression of `e` (operands before their expression) whose
/// values over the intervals of `domain` may leave the int64 range, as
/// "`<subexpression>` reaches <value>", computed exactly (128 bits); nullopt
/// when every subexpression stays inside. The simplifier and counting work in
/// int64, so a map failing this is refused rather than answered wrongly.
std::optional<std::string> int64_overflow(const Expr& e, const Domain& domain,
                                          const VarNamer& namer = default_var_name);

}  // namespace hlo_index::simplify

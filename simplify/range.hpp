// Interval evaluation of expressions over a domain: sound bounds from the
// variable intervals (and, optionally, from constraints on exactly the same
// subexpression). The simplifier's rules ask it whether a subexpression
// stays inside one period of a floordiv or mod.
#pragma once

#include "simplify/domain.hpp"
#include "simplify/expr.hpp"

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

}  // namespace hlo_index::simplify

#include "simplify/range.hpp"

#include <algorithm>
#include <limits>

namespace hlo_index::simplify {

namespace {

constexpr std::int64_t k_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

// The smallest interval holding f at the four corners of x * y.
template <typename F>
Interval corners(const Interval& x, const Interval& y, F f) {
  std::int64_t v[4] = {f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)};
  return {*std::min_element(v, v + 4), *std::max_element(v, v + 4)};
}

}  // namespace

// Products are monotone in each factor on each sign, so their extremes are
// at corners; so are floor(x / y) and ceil(x / y) for positive y. A divisor
// whose range is not positive (the map parser refuses those) gives no bound.
Interval RangeEvaluator::non_affine(const Interval& x, const Interval& y, Expr::NonAffineOp op) {
  if (x.empty() || y.empty()) return {1, 0};
  if (op == Expr::NonAffineOp::kMul) return corners(x, y, saturating_mul);
  if (y.lo <= 0) return {k_min, k_max};
  switch (op) {
    case Expr::NonAffineOp::kFloorDiv:
      return corners(x, y, [](std::int64_t a, std::int64_t b) { return floor_div(a, b); });
    case Expr::NonAffineOp::kCeilDiv:
      return corners(x, y, [](std::int64_t a, std::int64_t b) { return ceil_div(a, b); });
    default:
      // x mod y is in [0, y - 1], and is x itself when 0 <= x < y.
      if (x.lo >= 0) return {x.hi < y.lo ? x.lo : 0, std::min(x.hi, y.hi - 1)};
      return {0, y.hi - 1};
  }
}

Interval RangeEvaluator::operator()(const Expr& e) const {
  Interval r;
  switch (e.kind()) {
    case Expr::Kind::kConstant: return Interval::point(e.constant_value());
    case Expr::Kind::kVariable: return m_domain.bounds(e.variable());
    case Expr::Kind::kSum: {
      r = Interval::point(e.sum_constant());
      for (const Term& t : e.terms()) r = r + scale((*this)(t.atom), t.coefficient);
      break;
    }
    case Expr::Kind::kFloorDiv: {
      Interval x = (*this)(e.operand());
      r = {simplify::floor_div(x.lo, e.divisor()), simplify::floor_div(x.hi, e.divisor())};
      break;
    }
    case Expr::Kind::kMod: {
      Interval x = (*this)(e.operand());
      std::int64_t c = e.divisor();
      if (!x.empty() && simplify::floor_div(x.lo, c) == simplify::floor_div(x.hi, c)) {
        std::int64_t base = simplify::floor_div(x.lo, c) * c;
        r = {x.lo - base, x.hi - base};
      } else {
        r = {0, c - 1};
      }
      break;
    }
    case Expr::Kind::kNonAffine: r = non_affine((*this)(e.operand()), (*this)(e.rhs()), e.non_affine_op()); break;
  }
  if (m_use_constraints) {
    if (const Interval* c = m_domain.find_constraint(e)) r = r.intersect(*c);
  }
  return r;
}

}  // namespace hlo_index::simplify

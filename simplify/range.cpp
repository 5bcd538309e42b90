#include "simplify/range.hpp"

#include <algorithm>
#include <limits>

#include "simplify/wide.hpp"

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

namespace {

__extension__ using Int128 = __int128;

struct WideInterval {
  Int128 lo;
  Int128 hi;
};

constexpr Int128 k_int64_lo = std::numeric_limits<std::int64_t>::min();
constexpr Int128 k_int64_hi = std::numeric_limits<std::int64_t>::max();

std::string int128_text(Int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  auto magnitude = static_cast<Wide>(negative ? -v : v);  // |v| < 2^127 here
  std::string digits;
  while (magnitude != 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

Int128 floor_div128(Int128 a, Int128 b) {
  Int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// Thrown with the subexpression whose values leave the int64 range.
struct Leaves {
  std::string what;
};

class OverflowCheck {
public:
  OverflowCheck(const Domain& domain, const VarNamer& namer) : m_domain(domain), m_namer(namer) {}

  // Values of `e`, every subexpression checked first.
  WideInterval operator()(const Expr& e) const { return checked(e, evaluate(e)); }

private:
  WideInterval checked(const Expr& e, WideInterval v) const {
    if (v.lo < k_int64_lo) throw Leaves{"`" + to_string(e, m_namer) + "` reaches " + int128_text(v.lo)};
    if (v.hi > k_int64_hi) throw Leaves{"`" + to_string(e, m_namer) + "` reaches " + int128_text(v.hi)};
    return v;
  }

  WideInterval evaluate(const Expr& e) const {
    switch (e.kind()) {
      case Expr::Kind::kConstant: return {e.constant_value(), e.constant_value()};
      case Expr::Kind::kVariable: {
        const Interval b = m_domain.bounds(e.variable());
        return {b.lo, b.hi};
      }
      case Expr::Kind::kSum: {
        // Terms of int64 values times int64 coefficients fit 127 bits, and a
        // sum of checked terms stays far inside 128 bits.
        WideInterval total{e.sum_constant(), e.sum_constant()};
        for (const Term& t : e.terms()) {
          const WideInterval a = (*this)(t.atom);
          const Int128 x = a.lo * t.coefficient, y = a.hi * t.coefficient;
          total.lo += std::min(x, y);
          total.hi += std::max(x, y);
          if (total.lo < 4 * k_int64_lo || total.hi > 4 * k_int64_hi) return checked(e, total);
        }
        return total;
      }
      case Expr::Kind::kFloorDiv: {
        const WideInterval a = (*this)(e.operand());
        return {floor_div128(a.lo, e.divisor()), floor_div128(a.hi, e.divisor())};
      }
      case Expr::Kind::kMod: {
        (*this)(e.operand());
        return {0, e.divisor() - 1};
      }
      case Expr::Kind::kNonAffine: {
        const WideInterval a = (*this)(e.operand());
        const WideInterval b = (*this)(e.rhs());
        if (e.non_affine_op() == Expr::NonAffineOp::kMul) {
          const Int128 p[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
          return {*std::min_element(std::begin(p), std::end(p)), *std::max_element(std::begin(p), std::end(p))};
        }
        // A division or modulo by a variable: no larger in magnitude than
        // the larger of its operands' (a divisor of 0 is evaluate()'s error).
        const Int128 m = std::max({-a.lo, a.hi, -b.lo, b.hi});
        return {-m, m};
      }
    }
    return {0, 0};
  }

  const Domain& m_domain;
  const VarNamer& m_namer;
};

}  // namespace

std::optional<std::string> int64_overflow(const Expr& e, const Domain& domain, const VarNamer& namer) {
  try {
    OverflowCheck{domain, namer}(e);
  } catch (const Leaves& leaves) {
    return leaves.what;
  }
  return std::nullopt;
}

}  // namespace hlo_index::simplify

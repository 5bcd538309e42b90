#include "simplify/range.hpp"

namespace hlo_index::simplify {

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
  }
  if (m_use_constraints) {
    if (const Interval* c = m_domain.find_constraint(e)) r = r.intersect(*c);
  }
  return r;
}

}  // namespace hlo_index::simplify

#include "simplify/expr_rules.hpp"

#include <algorithm>
#include <vector>

namespace hlo_index::simplify {

namespace {

// Which period of `divisor` the interval lies in, if it lies in one.
std::optional<std::int64_t> single_period(const Interval& x, std::int64_t divisor) {
  if (x.empty()) return std::nullopt;
  std::int64_t k = simplify::floor_div(x.lo, divisor);
  if (simplify::floor_div(x.hi, divisor) != k) return std::nullopt;
  return k;
}

// Splits the linear form of `operand` into h*M + B for the largest useful
// h > 1 dividing `divisor` such that B lies in one period of h. Returns
// {M, B, h, k}.
struct RemainderSplit {
  Expr multiple;   // M
  Expr remainder;  // B
  std::int64_t h = 1;
  std::int64_t k = 0;
};

std::optional<RemainderSplit> split_bounded_remainder(const Expr& operand, std::int64_t divisor,
                                                      const RangeEvaluator& ranges) {
  std::vector<Term> terms;
  std::int64_t constant;
  decompose_linear(operand, terms, constant);
  if (terms.size() < 2 && constant == 0) return std::nullopt;
  // Candidate factors: gcd(coefficient, divisor) of every term.
  std::vector<std::int64_t> candidates;
  for (const Term& t : terms) {
    std::int64_t h = gcd(t.coefficient, divisor);
    if (h > 1) candidates.push_back(h);
  }
  std::sort(candidates.begin(), candidates.end(), std::greater<>());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<Term> multiple, remainder;
  for (std::int64_t h : candidates) {
    split_by_factor(terms, h, multiple, remainder);
    if (remainder.empty() && constant == 0) continue;
    Expr b = linear_combination(remainder, constant);
    auto k = single_period(ranges(b), h);
    if (!k) continue;
    return RemainderSplit{linear_combination(multiple, 0), b, h, *k};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Expr> replace_point_range(const Expr& e, const RangeEvaluator& ranges) {
  if (e.is_constant()) return std::nullopt;
  Interval r = ranges(e);
  if (!r.empty() && r.is_point()) return Expr::constant(r.lo);
  return std::nullopt;
}

std::optional<Expr> mod_within_one_period(const Expr& e, const RangeEvaluator& ranges) {
  if (e.kind() != Expr::Kind::kMod) return std::nullopt;
  auto k = single_period(ranges(e.operand()), e.divisor());
  if (!k) return std::nullopt;
  return e.operand() - checked_mul(*k, e.divisor());
}

std::optional<Expr> floordiv_within_one_period(const Expr& e, const RangeEvaluator& ranges) {
  if (e.kind() != Expr::Kind::kFloorDiv) return std::nullopt;
  auto k = single_period(ranges(e.operand()), e.divisor());
  if (!k) return std::nullopt;
  return Expr::constant(*k);
}

std::optional<Expr> floordiv_drop_bounded_remainder(const Expr& e, const RangeEvaluator& ranges) {
  if (e.kind() != Expr::Kind::kFloorDiv) return std::nullopt;
  auto split = split_bounded_remainder(e.operand(), e.divisor(), ranges);
  if (!split) return std::nullopt;
  return floor_div(split->multiple + split->k, e.divisor() / split->h);
}

std::optional<Expr> mod_split_bounded_remainder(const Expr& e, const RangeEvaluator& ranges) {
  if (e.kind() != Expr::Kind::kMod) return std::nullopt;
  auto split = split_bounded_remainder(e.operand(), e.divisor(), ranges);
  if (!split) return std::nullopt;
  return mod(split->multiple + split->k, e.divisor() / split->h) * split->h + split->remainder -
         checked_mul(split->k, split->h);
}

std::optional<Expr> floordiv_of_mod(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kFloorDiv || e.operand().kind() != Expr::Kind::kMod) return std::nullopt;
  std::int64_t a = e.divisor(), ab = e.operand().divisor();
  if (ab % a != 0) return std::nullopt;
  return mod(floor_div(e.operand().operand(), a), ab / a);
}

std::optional<Expr> floordiv_absorb_inner_floordiv(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kFloorDiv || e.operand().kind() != Expr::Kind::kSum) return std::nullopt;
  const Expr& sum = e.operand();
  const Term* inner = nullptr;
  for (const Term& t : sum.terms()) {
    if (t.atom.kind() != Expr::Kind::kFloorDiv) continue;
    if (inner != nullptr || t.coefficient != 1) return std::nullopt;
    inner = &t;
  }
  if (inner == nullptr) return std::nullopt;
  std::int64_t c = inner->atom.divisor();
  Expr rest = sum - inner->atom;
  return floor_div(inner->atom.operand() + rest * c, checked_mul(c, e.divisor()));
}

std::optional<Expr> sum_recombine_div_mod(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kSum) return std::nullopt;
  auto terms = e.terms();
  for (const Term& m : terms) {
    if (m.atom.kind() != Expr::Kind::kMod) continue;
    const Expr& x = m.atom.operand();
    std::int64_t c = m.atom.divisor();
    for (const Term& d : terms) {
      if (d.atom.kind() != Expr::Kind::kFloorDiv || d.atom.divisor() != c || !(d.atom.operand() == x)) continue;
      if (d.coefficient != checked_mul(m.coefficient, c)) continue;
      // x*a == (x mod c)*a + (x floordiv c)*(a*c).
      return e - m.atom * m.coefficient - d.atom * d.coefficient + x * m.coefficient;
    }
  }
  return std::nullopt;
}

std::optional<Expr> sum_merge_mod_digits(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kSum) return std::nullopt;
  auto terms = e.terms();
  for (const Term& low : terms) {
    if (low.atom.kind() != Expr::Kind::kMod) continue;
    const Expr& x = low.atom.operand();
    std::int64_t a = low.atom.divisor();
    for (const Term& high : terms) {
      if (high.atom.kind() != Expr::Kind::kMod) continue;
      const Expr& quotient = high.atom.operand();
      if (quotient.kind() != Expr::Kind::kFloorDiv || quotient.divisor() != a || !(quotient.operand() == x)) continue;
      if (high.coefficient != checked_mul(low.coefficient, a)) continue;
      // (x mod a) + ((x floordiv a) mod b) * a == x mod (a*b), for every integer x.
      const std::int64_t b = high.atom.divisor();
      return e - low.atom * low.coefficient - high.atom * high.coefficient +
             mod(x, checked_mul(a, b)) * low.coefficient;
    }
  }
  return std::nullopt;
}

std::optional<Expr> sum_fold_into_mod(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kSum) return std::nullopt;
  for (const Term& d : e.terms()) {
    if (d.atom.kind() != Expr::Kind::kFloorDiv) continue;
    std::int64_t c = d.atom.divisor();
    if (d.coefficient % c != 0) continue;
    std::int64_t a = -(d.coefficient / c);
    const Expr& x = d.atom.operand();
    // e = R + d.coefficient * D = (R - a*x) + a*(x mod c).
    Expr candidate = e - d.atom * d.coefficient - x * a + mod(x, c) * a;
    if (candidate.node_count() < e.node_count()) return candidate;
  }
  return std::nullopt;
}

namespace {
bool all_negative(const std::vector<Term>& terms, std::int64_t constant) {
  if (terms.empty() || constant >= 0) return false;
  for (const Term& t : terms) {
    if (t.coefficient >= 0) return false;
  }
  return true;
}
// k's residue modulo c of least magnitude (ties go to the negative side).
std::int64_t balanced(std::int64_t k, std::int64_t c) {
  std::int64_t r = floor_mod(k, c);
  return 2 * r >= c ? r - c : r;
}
}  // namespace

std::optional<Expr> floordiv_of_negative_sum(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kFloorDiv) return std::nullopt;
  std::vector<Term> terms;
  std::int64_t constant;
  decompose_linear(e.operand(), terms, constant);
  if (!all_negative(terms, constant)) return std::nullopt;
  return -floor_div(-e.operand() + (e.divisor() - 1), e.divisor());
}

std::optional<Expr> mod_of_negative_sum(const Expr& e, const RangeEvaluator&) {
  if (e.kind() != Expr::Kind::kMod) return std::nullopt;
  std::int64_t c = e.divisor();
  std::vector<Term> terms;
  std::int64_t constant;
  decompose_linear(e.operand(), terms, constant);
  for (Term& t : terms) t.coefficient = balanced(t.coefficient, c);
  constant = balanced(constant, c);
  if (!all_negative(terms, constant)) return std::nullopt;
  Expr y = linear_combination(terms, constant);
  return Expr::constant(c - 1) - mod(-y - 1, c);
}

}  // namespace hlo_index::simplify

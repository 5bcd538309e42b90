#include "simplify/expr.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace hlo_index::simplify {

class ExprFactory {
public:
  static Expr wrap(std::shared_ptr<const ExprNode> node) { return Expr(std::move(node)); }
  static const ExprNode& node(const Expr& e) { return *e.m_node; }
  static const ExprNode* ptr(const Expr& e) { return e.m_node.get(); }
};

Expr ExprNode::nullptr_expr() { return ExprFactory::wrap(nullptr); }

namespace {

std::size_t mix(std::size_t seed, std::size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

Expr make_constant(std::int64_t v) {
  auto n = std::make_shared<ExprNode>(Expr::Kind::kConstant);
  n->value = v;
  n->hash = mix(1, static_cast<std::size_t>(v));
  return ExprFactory::wrap(std::move(n));
}

const Expr& zero() {
  // One node per thread: every default-constructed Expr and every constant 0 shares it, and two
  // threads counting references to one node contend for its cache line (diff analyses the two
  // dumps on two threads).
  static thread_local const Expr z = make_constant(0);
  return z;
}

Expr make_division(Expr::Kind kind, Expr operand, std::int64_t divisor) {
  auto n = std::make_shared<ExprNode>(kind);
  n->value = divisor;
  n->hash = mix(mix(static_cast<std::size_t>(kind) + 3, operand.hash()), static_cast<std::size_t>(divisor));
  n->nodes = operand.node_count() + 2;
  n->operand = std::move(operand);
  return ExprFactory::wrap(std::move(n));
}

Expr make_non_affine(Expr::NonAffineOp op, Expr lhs, Expr rhs) {
  auto n = std::make_shared<ExprNode>(Expr::Kind::kNonAffine);
  n->value = static_cast<std::int64_t>(op);
  n->hash = mix(mix(mix(11, static_cast<std::size_t>(op)), lhs.hash()), rhs.hash());
  n->nodes = lhs.node_count() + rhs.node_count() + 1;
  n->operand = std::move(lhs);
  n->rhs = std::move(rhs);
  return ExprFactory::wrap(std::move(n));
}

// XLA's order of node kinds: add, mul, mod, floordiv, ..., variable, constant
// (non-affine nodes after the quasi-affine divisions).
int rank(const Expr& e) {
  switch (e.kind()) {
    case Expr::Kind::kSum: return e.is_scaled_atom() ? 1 : 0;
    case Expr::Kind::kMod: return 2;
    case Expr::Kind::kFloorDiv: return 3;
    case Expr::Kind::kNonAffine: return 4;
    case Expr::Kind::kVariable: return 7;
    case Expr::Kind::kConstant: return 8;
  }
  return 9;
}
int rank(const Term& t) { return t.coefficient == 1 ? rank(t.atom) : 1; }

std::strong_ordering compare_terms(const Term& a, const Term& b) {
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra <=> rb;
  if (auto c = a.atom <=> b.atom; c != 0) return c;
  return a.coefficient <=> b.coefficient;
}

// Accumulates a linear combination; build() canonicalises.
class LinearBuilder {
public:
  void add(const Expr& e, std::int64_t k) {
    if (k == 0) return;
    switch (e.kind()) {
      case Expr::Kind::kConstant: m_constant = checked_add(m_constant, checked_mul(e.constant_value(), k)); return;
      case Expr::Kind::kSum:
        for (const Term& t : e.terms()) m_terms.push_back({t.atom, checked_mul(t.coefficient, k)});
        m_constant = checked_add(m_constant, checked_mul(e.sum_constant(), k));
        return;
      default: m_terms.push_back({e, k});
    }
  }
  void add_constant(std::int64_t c) { m_constant = checked_add(m_constant, c); }

  Expr build() {
    std::vector<Term>& t = m_terms;
    if (t.size() > 1) {
      std::sort(t.begin(), t.end(), [](const Term& a, const Term& b) { return (a.atom <=> b.atom) < 0; });
      std::size_t out = 0;
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (out > 0 && t[out - 1].atom == t[i].atom) {
          t[out - 1].coefficient = checked_add(t[out - 1].coefficient, t[i].coefficient);
        } else {
          t[out++] = t[i];
        }
      }
      t.resize(out);
    }
    t.erase(std::remove_if(t.begin(), t.end(), [](const Term& x) { return x.coefficient == 0; }), t.end());
    if (t.empty()) return Expr::constant(m_constant);
    if (t.size() == 1 && t[0].coefficient == 1 && m_constant == 0) return t[0].atom;
    std::sort(t.begin(), t.end(), [](const Term& a, const Term& b) { return compare_terms(a, b) < 0; });
    auto n = std::make_shared<ExprNode>(Expr::Kind::kSum);
    n->value = m_constant;
    std::size_t h = mix(2, static_cast<std::size_t>(m_constant));
    std::size_t nodes = 1;
    for (const Term& x : t) {
      h = mix(mix(h, x.atom.hash()), static_cast<std::size_t>(x.coefficient));
      nodes += x.atom.node_count() + (x.coefficient == 1 ? 0 : 1) + 1;
    }
    n->hash = h;
    n->nodes = nodes;
    n->terms = std::move(t);
    return ExprFactory::wrap(std::move(n));
  }

private:
  std::vector<Term> m_terms;
  std::int64_t m_constant = 0;
};

// Truncating split of a constant into a multiple of `d` and a remainder with
// the sign of the constant: only whole multiples move.
std::int64_t whole_multiples(std::int64_t constant, std::int64_t d) { return constant / d; }

}  // namespace

Expr::Expr() : m_node(zero().m_node) {}

Expr Expr::constant(std::int64_t value) { return value == 0 ? zero() : make_constant(value); }

Expr Expr::variable(Var v) {
  auto n = std::make_shared<ExprNode>(Kind::kVariable);
  n->var = v;
  n->hash = mix(mix(7, static_cast<std::size_t>(v.kind)), v.index);
  return ExprFactory::wrap(std::move(n));
}

bool operator==(const Expr& a, const Expr& b) {
  if (a.m_node == b.m_node) return true;
  const ExprNode& x = *a.m_node;
  const ExprNode& y = *b.m_node;
  if (x.hash != y.hash || x.kind != y.kind || x.value != y.value) return false;
  switch (x.kind) {
    case Expr::Kind::kConstant: return true;
    case Expr::Kind::kVariable: return x.var == y.var;
    case Expr::Kind::kSum: return x.terms == y.terms;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: return x.operand == y.operand;
    case Expr::Kind::kNonAffine: return x.operand == y.operand && x.rhs == y.rhs;
  }
  return false;
}

std::strong_ordering operator<=>(const Expr& a, const Expr& b) {
  if (a.m_node == b.m_node) return std::strong_ordering::equal;
  int ra = rank(a), rb = rank(b);
  if (ra != rb) return ra <=> rb;
  switch (a.kind()) {
    case Expr::Kind::kConstant: return a.constant_value() <=> b.constant_value();
    case Expr::Kind::kVariable: return a.variable() <=> b.variable();
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod:
      if (auto c = a.operand() <=> b.operand(); c != 0) return c;
      return a.divisor() <=> b.divisor();
    case Expr::Kind::kNonAffine:
      if (a.non_affine_op() != b.non_affine_op()) return a.non_affine_op() <=> b.non_affine_op();
      if (auto c = a.operand() <=> b.operand(); c != 0) return c;
      return a.rhs() <=> b.rhs();
    case Expr::Kind::kSum: {
      auto ta = a.terms(), tb = b.terms();
      for (std::size_t i = 0; i < ta.size() && i < tb.size(); ++i) {
        if (auto c = compare_terms(ta[i], tb[i]); c != 0) return c;
      }
      if (ta.size() != tb.size()) return ta.size() <=> tb.size();
      return a.sum_constant() <=> b.sum_constant();
    }
  }
  return std::strong_ordering::equal;
}

Expr linear_combination(std::span<const Term> terms, std::int64_t constant) {
  LinearBuilder b;
  for (const Term& t : terms) b.add(t.atom, t.coefficient);
  b.add_constant(constant);
  return b.build();
}

void decompose_linear(const Expr& e, std::vector<Term>& terms, std::int64_t& constant) {
  terms.clear();
  constant = 0;
  switch (e.kind()) {
    case Expr::Kind::kConstant: constant = e.constant_value(); return;
    case Expr::Kind::kSum:
      terms.assign(e.terms().begin(), e.terms().end());
      constant = e.sum_constant();
      return;
    default: terms.push_back({e, 1});
  }
}

void split_by_factor(std::span<const Term> terms, std::int64_t factor, std::vector<Term>& multiple,
                     std::vector<Term>& remainder) {
  multiple.clear();
  remainder.clear();
  for (const Term& t : terms) {
    if (t.coefficient % factor == 0) {
      multiple.push_back({t.atom, t.coefficient / factor});
    } else {
      remainder.push_back(t);
    }
  }
}

Expr operator+(const Expr& a, const Expr& b) {
  if (b.is_constant(0)) return a;
  if (a.is_constant(0)) return b;
  LinearBuilder builder;
  builder.add(a, 1);
  builder.add(b, 1);
  return builder.build();
}
Expr operator+(const Expr& a, std::int64_t c) { return a + Expr::constant(c); }
Expr operator-(const Expr& a, const Expr& b) { return a + b * -1; }
Expr operator-(const Expr& a, std::int64_t c) { return a + Expr::constant(checked_neg(c)); }
Expr operator-(const Expr& a) { return a * -1; }

Expr operator*(const Expr& a, std::int64_t k) {
  if (k == 0) return Expr();
  if (k == 1) return a;
  if (a.is_constant()) return Expr::constant(checked_mul(a.constant_value(), k));
  LinearBuilder builder;
  builder.add(a, k);
  return builder.build();
}

Expr operator*(const Expr& a, const Expr& b) {
  if (b.is_constant()) return a * b.constant_value();
  if (a.is_constant()) return b * a.constant_value();
  // Constant factors move out (`(d0 * 2) * s0` is `(d0 * s0) * 2`), and the
  // operands go in canonical order, so equal products are equal trees.
  if (a.is_scaled_atom()) return (a.terms()[0].atom * b) * a.terms()[0].coefficient;
  if (b.is_scaled_atom()) return (a * b.terms()[0].atom) * b.terms()[0].coefficient;
  // Commutative: the operands in canonical order, so `s1 * s0 == s0 * s1`.
  if ((b <=> a) < 0) return make_non_affine(Expr::NonAffineOp::kMul, b, a);
  return make_non_affine(Expr::NonAffineOp::kMul, a, b);
}

Expr floor_div(const Expr& a, std::int64_t divisor) {
  if (divisor == 0) throw NotQuasiAffine("division by zero");
  if (divisor < 0) return floor_div(-a, checked_neg(divisor));
  if (divisor == 1) return a;
  if (a.is_constant()) return Expr::constant(simplify::floor_div(a.constant_value(), divisor));
  if (a.kind() == Expr::Kind::kFloorDiv) return floor_div(a.operand(), checked_mul(a.divisor(), divisor));

  std::vector<Term> terms;
  std::int64_t constant;
  decompose_linear(a, terms, constant);
  std::vector<Term> whole, inside;
  split_by_factor(terms, divisor, whole, inside);
  LinearBuilder outside;
  for (const Term& t : whole) outside.add(t.atom, t.coefficient);
  if (constant >= divisor || constant <= -divisor) {
    std::int64_t q = whole_multiples(constant, divisor);
    outside.add_constant(q);
    constant -= q * divisor;
  }
  std::int64_t g = gcd(divisor, constant);
  for (const Term& t : inside) g = gcd(g, t.coefficient);
  if (g > 1) {
    for (Term& t : inside) t.coefficient /= g;
    constant /= g;
    divisor /= g;
  }
  if (inside.empty()) {
    outside.add_constant(simplify::floor_div(constant, divisor));
    return outside.build();
  }
  Expr inner = linear_combination(inside, constant);
  Expr quotient = divisor == 1 ? inner
                  : inner.kind() == Expr::Kind::kFloorDiv
                      ? floor_div(inner.operand(), checked_mul(inner.divisor(), divisor))
                      : make_division(Expr::Kind::kFloorDiv, inner, divisor);
  outside.add(quotient, 1);
  return outside.build();
}

Expr ceil_div(const Expr& a, std::int64_t divisor) {
  if (divisor == 0) throw NotQuasiAffine("division by zero");
  if (divisor < 0) return -floor_div(a, checked_neg(divisor));
  return floor_div(a + (divisor - 1), divisor);
}

Expr mod(const Expr& a, std::int64_t modulus) {
  if (modulus == 0) throw NotQuasiAffine("modulo by zero");
  if (modulus < 0) return -mod(-a, checked_neg(modulus));
  if (modulus == 1) return Expr();
  if (a.is_constant()) return Expr::constant(floor_mod(a.constant_value(), modulus));
  if (a.kind() == Expr::Kind::kMod && a.divisor() % modulus == 0) return mod(a.operand(), modulus);

  std::vector<Term> terms;
  std::int64_t constant;
  decompose_linear(a, terms, constant);
  std::vector<Term> multiples, inside;  // multiples of the modulus vanish
  split_by_factor(terms, modulus, multiples, inside);
  if (constant >= modulus || constant <= -modulus) constant -= whole_multiples(constant, modulus) * modulus;
  if (inside.empty()) return Expr::constant(floor_mod(constant, modulus));
  std::int64_t g = gcd(modulus, constant);
  for (const Term& t : inside) g = gcd(g, t.coefficient);
  if (g > 1) {
    for (Term& t : inside) t.coefficient /= g;
    return mod(linear_combination(inside, constant / g), modulus / g) * g;
  }
  Expr inner = linear_combination(inside, constant);
  if (inner.kind() == Expr::Kind::kMod && inner.divisor() % modulus == 0) return mod(inner.operand(), modulus);
  return make_division(Expr::Kind::kMod, inner, modulus);
}

Expr floor_div(const Expr& a, const Expr& d) {
  if (d.is_constant()) return floor_div(a, d.constant_value());
  if (a.is_constant(0)) return a;
  return make_non_affine(Expr::NonAffineOp::kFloorDiv, a, d);
}
Expr ceil_div(const Expr& a, const Expr& d) {
  if (d.is_constant()) return ceil_div(a, d.constant_value());
  if (a.is_constant(0)) return a;
  return make_non_affine(Expr::NonAffineOp::kCeilDiv, a, d);
}
Expr mod(const Expr& a, const Expr& m) {
  if (m.is_constant()) return mod(a, m.constant_value());
  if (a.is_constant(0)) return a;
  return make_non_affine(Expr::NonAffineOp::kMod, a, m);
}

namespace {
Expr apply(Expr::NonAffineOp op, const Expr& a, const Expr& b) {
  switch (op) {
    case Expr::NonAffineOp::kMul: return a * b;
    case Expr::NonAffineOp::kFloorDiv: return floor_div(a, b);
    case Expr::NonAffineOp::kCeilDiv: return ceil_div(a, b);
    case Expr::NonAffineOp::kMod: return mod(a, b);
  }
  return a;
}

}  // namespace

std::int64_t apply_non_affine(Expr::NonAffineOp op, std::int64_t a, std::int64_t b) {
  if (op == Expr::NonAffineOp::kMul) return checked_mul(a, b);
  // The map parser refuses divisors whose range is not positive; a zero
  // here is a map built some other way.
  if (b == 0) throw ArithmeticOverflow("division by zero in a non-affine expression");
  switch (op) {
    case Expr::NonAffineOp::kFloorDiv: return simplify::floor_div(a, b);
    case Expr::NonAffineOp::kCeilDiv: return simplify::ceil_div(a, b);
    default: return floor_mod(a, b);
  }
}

std::int64_t VarValues::operator[](Var v) const {
  // A caller that gives no value for a variable of the expression: an error, not a read past
  // the values (a lint rule once passed no runtime values for a gather's map).
  const std::span<const std::int64_t> values = v.kind == VarKind::kDim     ? dims
                                               : v.kind == VarKind::kRange ? ranges
                                                                           : runtimes;
  if (v.index >= values.size()) throw std::out_of_range("evaluate: no value for a variable of the expression");
  return values[v.index];
}

std::int64_t evaluate(const Expr& e, const VarValues& values) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return e.constant_value();
    case Expr::Kind::kVariable: return values[e.variable()];
    case Expr::Kind::kSum: {
      std::int64_t r = e.sum_constant();
      for (const Term& t : e.terms()) r = checked_add(r, checked_mul(evaluate(t.atom, values), t.coefficient));
      return r;
    }
    case Expr::Kind::kFloorDiv: return simplify::floor_div(evaluate(e.operand(), values), e.divisor());
    case Expr::Kind::kMod: return floor_mod(evaluate(e.operand(), values), e.divisor());
    case Expr::Kind::kNonAffine:
      return apply_non_affine(e.non_affine_op(), evaluate(e.operand(), values), evaluate(e.rhs(), values));
  }
  return 0;
}

Expr substitute(const Expr& e, const std::function<Expr(Var)>& replacement) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return e;
    case Expr::Kind::kVariable: return replacement(e.variable());
    case Expr::Kind::kSum: {
      LinearBuilder b;
      for (const Term& t : e.terms()) b.add(substitute(t.atom, replacement), t.coefficient);
      b.add_constant(e.sum_constant());
      return b.build();
    }
    case Expr::Kind::kFloorDiv: return floor_div(substitute(e.operand(), replacement), e.divisor());
    case Expr::Kind::kMod: return mod(substitute(e.operand(), replacement), e.divisor());
    case Expr::Kind::kNonAffine:
      return apply(e.non_affine_op(), substitute(e.operand(), replacement), substitute(e.rhs(), replacement));
  }
  return e;
}

void for_each_variable(const Expr& e, const std::function<void(Var)>& fn) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return;
    case Expr::Kind::kVariable: fn(e.variable()); return;
    case Expr::Kind::kSum:
      for (const Term& t : e.terms()) for_each_variable(t.atom, fn);
      return;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: for_each_variable(e.operand(), fn); return;
    case Expr::Kind::kNonAffine:
      for_each_variable(e.operand(), fn);
      for_each_variable(e.rhs(), fn);
      return;
  }
}

namespace {
bool any_variable(const Expr& e, const std::function<bool(Var)>& pred) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return false;
    case Expr::Kind::kVariable: return pred(e.variable());
    case Expr::Kind::kSum:
      for (const Term& t : e.terms()) {
        if (any_variable(t.atom, pred)) return true;
      }
      return false;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: return any_variable(e.operand(), pred);
    case Expr::Kind::kNonAffine: return any_variable(e.operand(), pred) || any_variable(e.rhs(), pred);
  }
  return false;
}
}  // namespace

bool uses_kind(const Expr& e, VarKind kind) {
  return any_variable(e, [kind](Var v) { return v.kind == kind; });
}
bool uses_variable(const Expr& e, Var var) {
  return any_variable(e, [var](Var v) { return v == var; });
}

bool has_division(const Expr& e) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kVariable: return false;
    case Expr::Kind::kSum:
      for (const Term& t : e.terms()) {
        if (has_division(t.atom)) return true;
      }
      return false;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod:
    case Expr::Kind::kNonAffine: return true;
  }
  return false;
}

void for_each_non_affine(const Expr& e, const std::function<void(const Expr&)>& fn) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kVariable: return;
    case Expr::Kind::kSum:
      for (const Term& t : e.terms()) for_each_non_affine(t.atom, fn);
      return;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: for_each_non_affine(e.operand(), fn); return;
    case Expr::Kind::kNonAffine: fn(e); return;
  }
}

bool has_non_affine(const Expr& e) {
  bool found = false;
  for_each_non_affine(e, [&found](const Expr&) { found = true; });
  return found;
}

}  // namespace hlo_index::simplify

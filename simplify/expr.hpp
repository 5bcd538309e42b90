// Expressions over dimension, range and runtime variables: integer
// constants, variables, linear combinations, floordiv / mod by positive
// constants (the quasi-affine fragment), and non-affine nodes for the rest
// of what XLA's maps may hold: products of two non-constant expressions and
// floordiv / ceildiv / mod by a non-constant one. A non-affine node is an
// atom to the simplifier (rules simplify inside its operands, never across
// it) and to isl (which cannot express it). Values are immutable trees of shared nodes; every
// constructor folds what holds for all integers (like terms, constants,
// multiples of the divisor, common factors, nested divisions), so equal
// expressions built in different ways usually end up as equal trees.
// Range-dependent rewrites live in the simplifier (expr_rules.hpp).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "simplify/interval.hpp"

namespace hlo_index::simplify {

/// Dimension variables index the tensor a map starts from, range variables
/// enumerate values (a reduced dimension), runtime variables are values read
/// at run time (a dynamic-slice offset). The order of the enumerators is the
/// canonical order of variables: dimensions first.
enum class VarKind : std::uint8_t { kDim = 0, kRange = 1, kRuntime = 2 };
inline constexpr int k_var_kinds = 3;

struct Var {
  VarKind kind = VarKind::kDim;
  std::uint32_t index = 0;
  auto operator<=>(const Var&) const = default;
};

/// Thrown for a division or modulo by the constant zero (products and
/// divisions by non-constants build non-affine nodes instead).
class NotQuasiAffine : public std::invalid_argument {
public:
  using std::invalid_argument::invalid_argument;
};

class ExprNode;
struct Term;

class Expr {
public:
  enum class Kind : std::uint8_t { kConstant, kVariable, kSum, kFloorDiv, kMod, kNonAffine };
  /// The operation of a kNonAffine node, as written.
  enum class NonAffineOp : std::uint8_t { kMul, kFloorDiv, kCeilDiv, kMod };

  Expr();  // the constant 0
  static Expr constant(std::int64_t value);
  static Expr variable(Var v);
  static Expr dim(std::uint32_t i) { return variable({VarKind::kDim, i}); }
  static Expr range(std::uint32_t i) { return variable({VarKind::kRange, i}); }
  static Expr runtime(std::uint32_t i) { return variable({VarKind::kRuntime, i}); }

  Kind kind() const;
  bool is_constant() const { return kind() == Kind::kConstant; }
  bool is_variable() const { return kind() == Kind::kVariable; }
  /// True for a constant equal to `v`.
  bool is_constant(std::int64_t v) const;

  std::int64_t constant_value() const;  // kConstant only
  Var variable() const;                 // kVariable only

  /// kSum: a linear combination `sum(coefficient * atom) + constant` with at
  /// least one term; atoms are variables, floordivs or mods, each at most
  /// once, sorted in canonical order, no zero coefficients.
  std::span<const Term> terms() const;
  std::int64_t sum_constant() const;
  /// True for a sum that is a single term `atom * k` (k != 1), no constant.
  bool is_scaled_atom() const;

  /// kFloorDiv / kMod: operand and the (positive, > 1) divisor.
  const Expr& operand() const;
  std::int64_t divisor() const;

  /// kNonAffine: the operation and its operands `lhs() op rhs()` (neither a
  /// constant; lhs() is operand()).
  NonAffineOp non_affine_op() const;
  const Expr& rhs() const;

  std::size_t hash() const;
  /// Nodes in the tree (a measure of how complex an expression prints).
  std::size_t node_count() const;

  friend bool operator==(const Expr& a, const Expr& b);
  /// The canonical total order (XLA's: sums, products, mod, floordiv,
  /// variables, constants; variables by kind then index).
  friend std::strong_ordering operator<=>(const Expr& a, const Expr& b);

private:
  explicit Expr(std::shared_ptr<const ExprNode> node) : m_node(std::move(node)) {}
  friend class ExprFactory;
  std::shared_ptr<const ExprNode> m_node;
};

struct Term {
  Expr atom;
  std::int64_t coefficient = 1;
  bool operator==(const Term&) const = default;
};

Expr operator+(const Expr& a, const Expr& b);
Expr operator+(const Expr& a, std::int64_t c);
Expr operator-(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, std::int64_t c);
Expr operator-(const Expr& a);
Expr operator*(const Expr& a, std::int64_t k);
/// A product with a constant side folds into a linear combination;
/// otherwise a kNonAffine node.
Expr operator*(const Expr& a, const Expr& b);
Expr floor_div(const Expr& a, std::int64_t divisor);
Expr ceil_div(const Expr& a, std::int64_t divisor);
Expr mod(const Expr& a, std::int64_t modulus);
/// Divisor and modulus given as expressions: a constant one folds as above,
/// a non-constant one makes a kNonAffine node (the caller makes sure the
/// divisor is positive wherever it is evaluated).
Expr floor_div(const Expr& a, const Expr& divisor);
Expr ceil_div(const Expr& a, const Expr& divisor);
Expr mod(const Expr& a, const Expr& modulus);

/// The node behind an Expr. Defined here so that the accessors below inline: the simplifier,
/// composition and the comparisons of maps call them by the hundred million.
class ExprNode {
public:
  Expr::Kind kind = Expr::Kind::kConstant;
  std::int64_t value = 0;  // constant value, sum constant, or divisor
  Var var{};
  std::vector<Term> terms;  // kSum
  Expr operand;             // kFloorDiv, kMod, kNonAffine (its lhs)
  Expr rhs;                 // kNonAffine
  std::size_t hash = 0;
  std::size_t nodes = 1;

  explicit ExprNode(Expr::Kind k) : kind(k), operand(nullptr_expr()), rhs(nullptr_expr()) {}

private:
  static Expr nullptr_expr();
};

inline Expr::Kind Expr::kind() const { return m_node->kind; }
inline bool Expr::is_constant(std::int64_t v) const { return is_constant() && m_node->value == v; }
inline std::int64_t Expr::constant_value() const { return m_node->value; }
inline Var Expr::variable() const { return m_node->var; }
inline std::span<const Term> Expr::terms() const { return m_node->terms; }
inline std::int64_t Expr::sum_constant() const { return m_node->value; }
inline bool Expr::is_scaled_atom() const {
  return kind() == Kind::kSum && m_node->terms.size() == 1 && m_node->value == 0;
}
inline const Expr& Expr::operand() const { return m_node->operand; }
inline std::int64_t Expr::divisor() const { return m_node->value; }
inline Expr::NonAffineOp Expr::non_affine_op() const { return static_cast<NonAffineOp>(m_node->value); }
inline const Expr& Expr::rhs() const { return m_node->rhs; }
inline std::size_t Expr::hash() const { return m_node->hash; }
inline std::size_t Expr::node_count() const { return m_node->nodes; }

/// Builds `sum(coefficient * atom) + constant` from arbitrary expressions as
/// atoms (sums are expanded).
Expr linear_combination(std::span<const Term> terms, std::int64_t constant);
/// The expression as a linear combination: its terms and constant. Atoms of
/// non-sums are the expression itself.
void decompose_linear(const Expr& e, std::vector<Term>& terms, std::int64_t& constant);

/// Splits terms into those whose coefficient `factor` divides (their
/// quotients go to `multiple`) and the others (unchanged, to `remainder`):
/// sum(terms) == factor * sum(multiple) + sum(remainder).
void split_by_factor(std::span<const Term> terms, std::int64_t factor, std::vector<Term>& multiple,
                     std::vector<Term>& remainder);

/// Values of the variables for evaluation, indexed by VarKind.
struct VarValues {
  std::span<const std::int64_t> dims;
  std::span<const std::int64_t> ranges;
  std::span<const std::int64_t> runtimes;
  std::int64_t operator[](Var v) const;
};
/// Evaluates with floor semantics for floordiv and mod. Overflow throws
/// ArithmeticOverflow.
std::int64_t evaluate(const Expr& e, const VarValues& values);
/// `a op b` for the values of a non-affine node's operands, as evaluate() does it
/// (ArithmeticOverflow on overflow and on a zero divisor).
std::int64_t apply_non_affine(Expr::NonAffineOp op, std::int64_t a, std::int64_t b);

/// Replaces every variable by `replacement(var)` and refolds.
Expr substitute(const Expr& e, const std::function<Expr(Var)>& replacement);
/// Calls `fn` for each variable occurrence.
void for_each_variable(const Expr& e, const std::function<void(Var)>& fn);
bool uses_kind(const Expr& e, VarKind kind);
bool uses_variable(const Expr& e, Var v);
/// True if the tree has a floordiv, mod or non-affine node.
bool has_division(const Expr& e);
/// True if the tree has a kNonAffine node.
bool has_non_affine(const Expr& e);
/// Calls `fn` for each kNonAffine node, outermost first (not inside one).
void for_each_non_affine(const Expr& e, const std::function<void(const Expr&)>& fn);

struct ExprHash {
  std::size_t operator()(const Expr& e) const { return e.hash(); }
};

}  // namespace hlo_index::simplify

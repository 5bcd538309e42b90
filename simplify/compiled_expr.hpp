// CompiledExpr: an expression flattened once into a postfix program, for
// evaluating it at many points (the coalescing analysis samples thousands of
// points of each map). evaluate() walks the tree of shared nodes recursively
// at every point; the program is one array, a step per node, and sums of
// variables take one step per term. The arithmetic, its order and its errors
// (ArithmeticOverflow) are evaluate()'s.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "simplify/expr.hpp"

namespace hlo_index::simplify {

class CompiledExpr {
public:
  /// The values of the parts of the expression that read no range variable, kept from one point
  /// to the next while the dimension and runtime values stay (a sampled thread walks its range
  /// box at one output position): each is worked out when the program first reaches it, as
  /// evaluate() would, and reused after.
  class Memo {
  public:
    /// Forgets every value: the dimension or runtime values change.
    void reset() { std::fill(m_known.begin(), m_known.end(), 0); }

  private:
    friend class CompiledExpr;
    std::vector<std::int64_t> m_values;
    std::vector<char> m_known;
  };

  explicit CompiledExpr(const Expr& e);

  /// evaluate(e, values), for the `e` it was compiled from.
  std::int64_t operator()(const VarValues& values) const;
  /// The same, with the range-free parts from `memo` (made by memo(), reset whenever the dimension
  /// or runtime values differ from the last call's).
  std::int64_t operator()(const VarValues& values, Memo& memo) const;
  Memo memo() const;
  /// Whether the expression reads a range variable (else its value at one point is its value at
  /// every point with the same dimension and runtime values).
  bool reads_ranges() const { return m_reads_ranges; }

private:
  enum class Op : std::uint8_t {
    kPushConstant,  // push value
    kPushVariable,  // push the variable (kind, index)
    kAddVariable,   // top += variable * value
    kAddTop,        // pop a; top += a * value
    kFloorDiv,      // top = floor(top / value)
    kMod,           // top = top mod value
    kNonAffine,     // pop b, pop a; push a op b
    kRecall,        // memo slot `index` known: push it and skip `value` steps; else go on
    kRemember,      // memo slot `index` = top
  };
  struct Step {
    Op op = Op::kPushConstant;
    VarKind kind = VarKind::kDim;
    Expr::NonAffineOp non_affine = Expr::NonAffineOp::kMul;
    std::uint32_t index = 0;
    std::int64_t value = 0;
  };

  void compile(const Expr& e, std::size_t depth);
  void compile_node(const Expr& e, std::size_t depth);
  std::int64_t run(const VarValues& values, Memo* memo) const;

  std::vector<Step> m_steps;
  std::size_t m_max_depth = 0;  // stack entries the program needs
  std::uint32_t m_slots = 0;    // memo slots: range-free parts
  bool m_in_slot = false;       // compiling a part inside a slot: no slot within it
  bool m_reads_ranges = false;
};

}  // namespace hlo_index::simplify

#include "simplify/compiled_expr.hpp"

#include <array>

namespace hlo_index::simplify {

CompiledExpr::CompiledExpr(const Expr& e) : m_reads_ranges(uses_kind(e, VarKind::kRange)) { compile(e, 1); }

// `depth`: the stack entries in use once e's value is pushed. A part that reads no range variable
// (and is more than a constant or a variable) is wrapped in a memo slot; its own parts are not.
void CompiledExpr::compile(const Expr& e, std::size_t depth) {
  if (m_in_slot || e.is_constant() || e.is_variable() || uses_kind(e, VarKind::kRange)) {
    compile_node(e, depth);
    return;
  }
  const std::uint32_t slot = m_slots++;
  const std::size_t recall = m_steps.size();
  m_steps.push_back({Op::kRecall, {}, {}, slot, 0});
  m_in_slot = true;
  compile_node(e, depth);
  m_in_slot = false;
  m_steps.push_back({Op::kRemember, {}, {}, slot, 0});
  m_steps[recall].value = static_cast<std::int64_t>(m_steps.size() - recall - 1);  // what a known slot skips
}

void CompiledExpr::compile_node(const Expr& e, std::size_t depth) {
  m_max_depth = std::max(m_max_depth, depth);
  switch (e.kind()) {
    case Expr::Kind::kConstant: m_steps.push_back({Op::kPushConstant, {}, {}, 0, e.constant_value()}); return;
    case Expr::Kind::kVariable:
      m_steps.push_back({Op::kPushVariable, e.variable().kind, {}, e.variable().index, 0});
      return;
    case Expr::Kind::kSum:
      m_steps.push_back({Op::kPushConstant, {}, {}, 0, e.sum_constant()});
      for (const Term& t : e.terms()) {
        if (t.atom.is_variable()) {
          m_steps.push_back({Op::kAddVariable, t.atom.variable().kind, {}, t.atom.variable().index, t.coefficient});
        } else {
          compile(t.atom, depth + 1);
          m_steps.push_back({Op::kAddTop, {}, {}, 0, t.coefficient});
        }
      }
      return;
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod:
      compile(e.operand(), depth);
      m_steps.push_back({e.kind() == Expr::Kind::kMod ? Op::kMod : Op::kFloorDiv, {}, {}, 0, e.divisor()});
      return;
    case Expr::Kind::kNonAffine:
      compile(e.operand(), depth);
      compile(e.rhs(), depth + 1);
      m_steps.push_back({Op::kNonAffine, {}, e.non_affine_op(), 0, 0});
      return;
  }
}

CompiledExpr::Memo CompiledExpr::memo() const {
  Memo memo;
  memo.m_values.resize(m_slots);
  memo.m_known.resize(m_slots);
  return memo;
}

std::int64_t CompiledExpr::operator()(const VarValues& values) const { return run(values, nullptr); }

std::int64_t CompiledExpr::operator()(const VarValues& values, Memo& memo) const { return run(values, &memo); }

// The interpreter loop every enumeration runs (heat maps evaluate it millions of times): its
// speed moved by 10% with where the linker happened to place it, so it starts on a cache line.
[[gnu::aligned(64)]] std::int64_t CompiledExpr::run(const VarValues& values, Memo* memo) const {
  constexpr std::size_t k_inline_depth = 32;
  std::array<std::int64_t, k_inline_depth> inline_stack;  // NOLINT(cppcoreguidelines-pro-type-member-init)
  std::vector<std::int64_t> deep;
  std::int64_t* stack = inline_stack.data();
  if (m_max_depth > k_inline_depth) {
    deep.resize(m_max_depth);
    stack = deep.data();
  }
  const std::int64_t* const variables[k_var_kinds] = {values.dims.data(), values.ranges.data(), values.runtimes.data()};
  std::size_t top = 0;  // stack[top - 1] is the top
  for (std::size_t pc = 0; pc < m_steps.size(); ++pc) {
    const Step& s = m_steps[pc];
    switch (s.op) {
      case Op::kPushConstant: stack[top++] = s.value; break;
      case Op::kPushVariable: stack[top++] = variables[static_cast<int>(s.kind)][s.index]; break;
      case Op::kAddVariable:
        stack[top - 1] =
            checked_add(stack[top - 1], checked_mul(variables[static_cast<int>(s.kind)][s.index], s.value));
        break;
      case Op::kAddTop:
        --top;
        stack[top - 1] = checked_add(stack[top - 1], checked_mul(stack[top], s.value));
        break;
      case Op::kFloorDiv: stack[top - 1] = floor_div(stack[top - 1], s.value); break;
      case Op::kMod: stack[top - 1] = floor_mod(stack[top - 1], s.value); break;
      case Op::kNonAffine:
        --top;
        stack[top - 1] = apply_non_affine(s.non_affine, stack[top - 1], stack[top]);
        break;
      case Op::kRecall:
        if (memo != nullptr && memo->m_known[s.index] != 0) {
          stack[top++] = memo->m_values[s.index];
          pc += static_cast<std::size_t>(s.value);
        }
        break;
      case Op::kRemember:
        if (memo != nullptr) {
          memo->m_values[s.index] = stack[top - 1];
          memo->m_known[s.index] = 1;
        }
        break;
    }
  }
  return stack[0];
}

}  // namespace hlo_index::simplify

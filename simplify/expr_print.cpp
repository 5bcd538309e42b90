#include "simplify/expr_print.hpp"

#include <vector>

namespace hlo_index::simplify {

void default_var_name(Var v, std::string& out) {
  switch (v.kind) {
    case VarKind::kDim: out += 'd'; break;
    case VarKind::kRange: out += 's'; break;
    case VarKind::kRuntime: out += "rt"; break;
  }
  out += std::to_string(v.index);
}

namespace {

// Absolute value as text, safe for INT64_MIN.
std::string magnitude(std::int64_t v) {
  std::uint64_t m = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  return std::to_string(m);
}

class Printer {
public:
  Printer(std::string& out, const VarNamer& namer) : m_out(out), m_namer(namer) {}

  // `strong`: the expression is an operand of *, floordiv, mod or unary
  // minus, so a compound expression needs parentheses.
  void expr(const Expr& e, bool strong) {
    switch (e.kind()) {
      case Expr::Kind::kConstant: m_out += std::to_string(e.constant_value()); return;
      case Expr::Kind::kVariable: m_namer(e.variable(), m_out); return;
      case Expr::Kind::kFloorDiv:
      case Expr::Kind::kMod:
        if (strong) m_out += '(';
        expr(e.operand(), true);
        m_out += e.kind() == Expr::Kind::kMod ? " mod " : " floordiv ";
        m_out += std::to_string(e.divisor());
        if (strong) m_out += ')';
        return;
      case Expr::Kind::kSum: sum(e, strong); return;
      case Expr::Kind::kNonAffine:
        if (strong) m_out += '(';
        expr(e.operand(), true);
        m_out += non_affine_op(e.non_affine_op());
        expr(e.rhs(), true);
        if (strong) m_out += ')';
        return;
    }
  }

private:
  static const char* non_affine_op(Expr::NonAffineOp op) {
    switch (op) {
      case Expr::NonAffineOp::kMul: return " * ";
      case Expr::NonAffineOp::kFloorDiv: return " floordiv ";
      case Expr::NonAffineOp::kCeilDiv: return " ceildiv ";
      case Expr::NonAffineOp::kMod: return " mod ";
    }
    return " ? ";
  }

  void scaled(const Term& t) {
    if (t.coefficient == 1) {
      expr(t.atom, false);
    } else if (t.coefficient == -1) {
      m_out += '-';
      expr(t.atom, true);
    } else {
      expr(t.atom, true);
      m_out += " * ";
      m_out += std::to_string(t.coefficient);
    }
  }

  void sum(const Expr& e, bool strong) {
    auto terms = e.terms();
    if (strong) m_out += '(';
    // MLIR builds sums left to right and swaps `acc + t` to `t + acc` when
    // acc uses only symbols and t uses a dimension.
    std::vector<const Term*> order;
    bool symbolic = true;
    for (const Term& t : terms) {
      bool uses_dim = uses_kind(t.atom, VarKind::kDim);
      if (!order.empty() && symbolic && uses_dim) {
        order.insert(order.begin(), &t);
      } else {
        order.push_back(&t);
      }
      symbolic = symbolic && !uses_dim;
    }
    scaled(*order[0]);
    for (std::size_t i = 1; i < order.size(); ++i) {
      const Term& t = *order[i];
      if (t.coefficient > 0) {
        m_out += " + ";
        scaled(t);
      } else if (t.coefficient == -1) {
        m_out += " - ";
        expr(t.atom, false);
      } else {
        m_out += " - ";
        expr(t.atom, true);
        m_out += " * ";
        m_out += magnitude(t.coefficient);
      }
    }
    if (std::int64_t c = e.sum_constant(); c != 0) {
      m_out += c > 0 ? " + " : " - ";
      m_out += magnitude(c);
    }
    if (strong) m_out += ')';
  }

  std::string& m_out;
  const VarNamer& m_namer;
};

}  // namespace

void print(const Expr& e, std::string& out, const VarNamer& namer) { Printer(out, namer).expr(e, false); }

std::string to_string(const Expr& e, const VarNamer& namer) {
  std::string out;
  print(e, out, namer);
  return out;
}

}  // namespace hlo_index::simplify

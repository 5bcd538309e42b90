#include "simplify/simplifier.hpp"

#include "simplify/constraint_rules.hpp"
#include "simplify/expr_rules.hpp"
#include "simplify/range.hpp"

namespace hlo_index::simplify {

namespace {

using ExprRule = std::optional<Expr> (*)(const Expr&, const RangeEvaluator&);

constexpr ExprRule k_expr_rules[] = {
    mod_within_one_period,       floordiv_within_one_period,     floordiv_of_mod,       floordiv_drop_bounded_remainder,
    mod_split_bounded_remainder, floordiv_absorb_inner_floordiv, sum_recombine_div_mod, sum_merge_mod_digits,
    sum_fold_into_mod,           floordiv_of_negative_sum,       mod_of_negative_sum,
};

constexpr int k_max_passes = 16;

class ExprSimplifier {
public:
  ExprSimplifier(const RangeEvaluator& ranges, const SimplifyOptions& options) : m_ranges(ranges), m_options(options) {}

  Expr run(const Expr& e) {
    Expr current = e;
    for (int pass = 0; pass < k_max_passes; ++pass) {
      Expr next = rewrite(current);
      if (next == current) break;
      current = next;
    }
    return current;
  }

private:
  // One bottom-up pass: children first, then at most one rule per node.
  Expr rewrite(const Expr& e) {
    Expr node = rebuild_children(e);
    if (m_options.replace_points) {
      if (auto point = replace_point_range(node, m_ranges)) return *point;
    }
    for (ExprRule rule : k_expr_rules) {
      if (auto out = rule(node, m_ranges)) return *out;
    }
    return node;
  }

  Expr rebuild_children(const Expr& e) {
    switch (e.kind()) {
      case Expr::Kind::kConstant:
      case Expr::Kind::kVariable: return e;
      case Expr::Kind::kSum: {
        std::vector<Term> terms;
        bool changed = false;
        for (const Term& t : e.terms()) {
          Expr atom = rewrite(t.atom);
          changed = changed || !(atom == t.atom);
          terms.push_back({std::move(atom), t.coefficient});
        }
        return changed ? linear_combination(terms, e.sum_constant()) : e;
      }
      case Expr::Kind::kFloorDiv: {
        Expr x = rewrite(e.operand());
        return x == e.operand() ? e : floor_div(x, e.divisor());
      }
      case Expr::Kind::kMod: {
        Expr x = rewrite(e.operand());
        return x == e.operand() ? e : mod(x, e.divisor());
      }
      case Expr::Kind::kNonAffine: {
        // Inside the operands only: no rule rewrites across the node.
        Expr x = rewrite(e.operand()), y = rewrite(e.rhs());
        if (x == e.operand() && y == e.rhs()) return e;
        switch (e.non_affine_op()) {
          case Expr::NonAffineOp::kMul: return x * y;
          case Expr::NonAffineOp::kFloorDiv: return floor_div(x, y);
          case Expr::NonAffineOp::kCeilDiv: return ceil_div(x, y);
          case Expr::NonAffineOp::kMod: return mod(x, y);
        }
        return e;
      }
    }
    return e;
  }

  const RangeEvaluator& m_ranges;
  const SimplifyOptions& m_options;
};

// Applies constraint rules to one constraint until none fires.
ConstraintRewrite simplify_constraint(Constraint c, const RangeEvaluator& ranges) {
  for (int step = 0; step < k_max_passes; ++step) {
    bool fired = false;
    for (ConstraintRule rule : k_constraint_rules) {
      auto out = rule(c, ranges);
      if (!out) continue;
      if (out->action != ConstraintRewrite::Action::kReplace) return *out;
      c = std::move(out->replacement);
      fired = true;
      break;
    }
    if (!fired) break;
  }
  return ConstraintRewrite::replace(c.expr, c.interval);
}

}  // namespace

Expr simplify_expr(const Expr& e, const Domain& domain, bool use_constraints, const SimplifyOptions& options) {
  RangeEvaluator ranges(domain, use_constraints);
  return ExprSimplifier(ranges, options).run(e);
}

SimplifyStatus simplify_map(std::vector<Expr>& results, Domain& domain, const SimplifyOptions& options) {
  if (domain.has_empty_bounds()) return SimplifyStatus::kEmpty;
  bool changed = false;
  // Constraints see only the variable bounds, never each other: a
  // constraint must not be used to simplify itself away.
  SimplifyOptions constraint_options;
  for (int pass = 0; pass < k_max_passes; ++pass) {
    Domain before = domain;
    std::vector<Constraint> constraints = domain.take_constraints();
    RangeEvaluator ranges(domain, /*use_constraints=*/false);
    ExprSimplifier simplifier(ranges, constraint_options);
    std::vector<Constraint> rewritten;
    for (const Constraint& c : constraints) {
      ConstraintRewrite r = simplify_constraint({simplifier.run(c.expr), c.interval}, ranges);
      if (r.action == ConstraintRewrite::Action::kInfeasible) return SimplifyStatus::kEmpty;
      if (r.action == ConstraintRewrite::Action::kReplace) rewritten.push_back(std::move(r.replacement));
    }
    // Added after the loop so that bounds narrowed by one constraint do not
    // change the ranges the others were simplified with mid-pass.
    for (const Constraint& c : rewritten) {
      if (!domain.add_constraint(c.expr, c.interval)) return SimplifyStatus::kEmpty;
    }
    bool merged = false;
    if (!merge_mod_constraints(domain, merged)) return SimplifyStatus::kEmpty;
    if (options.solve_range_equalities && !solve_range_equality(results, domain, merged)) return SimplifyStatus::kEmpty;
    if (domain.has_empty_bounds()) return SimplifyStatus::kEmpty;
    if (domain == before) break;
    changed = true;
  }
  RangeEvaluator ranges(domain, /*use_constraints=*/true);
  ExprSimplifier simplifier(ranges, options);
  for (Expr& r : results) {
    Expr s = simplifier.run(r);
    if (!(s == r)) {
      r = std::move(s);
      changed = true;
    }
  }
  return changed ? SimplifyStatus::kChanged : SimplifyStatus::kUnchanged;
}

}  // namespace hlo_index::simplify

// The range-aware simplifier: rewrites result expressions and domain
// constraints of a map with the rules of expr_rules.hpp and
// constraint_rules.hpp until nothing changes. Symbolic only; the isl-backed
// steps (exact bounds, emptiness, redundancy) are added by indexing/.
#pragma once

#include <vector>

#include "simplify/domain.hpp"
#include "simplify/expr.hpp"

namespace hlo_index::simplify {

struct SimplifyOptions {
  /// Replace subexpressions (including variables) whose range is a single
  /// value by that value. XLA's kReplace; off is its kPreserve.
  bool replace_points = true;
  /// Replace a range variable an equality constraint fixes by its value
  /// (solve_range_equality). XLA does not; off reproduces its maps.
  bool solve_range_equalities = false;
};

/// Simplifies one expression with the ranges of `domain` (its constraints
/// included when `use_constraints`).
Expr simplify_expr(const Expr& e, const Domain& domain, bool use_constraints, const SimplifyOptions& options = {});

enum class SimplifyStatus { kUnchanged, kChanged, kEmpty };

/// Simplifies constraints (folding, dropping always-true ones, moving
/// single-variable ones into bounds, merging mod constraints) and then the
/// results. kEmpty: the domain is infeasible; results and domain are then
/// unspecified and the caller marks the map KNOWN EMPTY.
SimplifyStatus simplify_map(std::vector<Expr>& results, Domain& domain, const SimplifyOptions& options = {});

}  // namespace hlo_index::simplify

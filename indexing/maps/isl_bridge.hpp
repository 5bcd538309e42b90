// Conversions between the symbolic form of maps (simplify::Domain, Expr)
// and isl sets, and the few isl queries hlo-index needs. This is the only
// file pair that calls isl's C API; everything else holds isl objects as
// RAII values from isl/cpp.h. Every function here must run inside an
// IslBudget and throws IslLimitReached when the budget runs out.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "indexing/maps/isl_context.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "simplify/wide.hpp"

namespace hlo_index::indexing {

/// Nesting of floordiv / mod given to isl at most; deeper expressions are
/// answered as when isl's budget runs out (IslLimitReached): see to_aff.
inline constexpr int k_max_isl_division_depth = 16;

using simplify::Domain;
using simplify::Expr;
using simplify::Interval;
using simplify::Var;

/// The set of points (d..., s..., rt..., r...) with (d, s, rt) in the domain
/// and r_k = results[k]: the graph of a map. Set dimensions are in that order
/// (Domain::position, then the results).
isl::set graph_set(const Domain& domain, std::span<const Expr> results);

/// The box of variable intervals over [d, s, rt] (no constraints), and the
/// set of points of that space satisfying one constraint. graph_set of a
/// domain without results is their intersection; building the pieces once
/// lets callers test constraints one by one without rebuilding the rest.
isl::set box_set(const Domain& domain);
isl::set constraint_set(const Domain& domain, const simplify::Constraint& constraint);

/// Removes `n` set dimensions starting at `first`, keeping the projection
/// exact (existentially quantified).
isl::set project_out(const isl::set& set, unsigned first, unsigned n);

/// Exact lower and upper bound of a set dimension; nullopt when unbounded
/// or the set is empty.
std::optional<Interval> dimension_bounds(const isl::set& set, unsigned pos);

/// One integer point of the set, its coordinates in set-dimension order; nullopt
/// when the set is empty or a coordinate does not fit 64 bits.
std::optional<std::vector<std::int64_t>> sample_point(const isl::set& set);

/// The number of integer points; isl enumerates all but the innermost
/// dimension, so callers use it for small sets only.
simplify::Wide count_points(const isl::set& set);

/// True if the relation from the first `n_in` set dimensions to the rest is
/// injective (no two inputs share an output).
bool is_injective(const isl::set& graph, unsigned n_in);

/// The set as disjoint pieces, each a symbolic domain over the variables
/// `vars` names (one per set dimension; each kind gets as many variables as
/// its largest index asks for): exact intervals of the piece and its
/// constraints. Existential variables become floordiv subexpressions.
std::vector<Domain> symbolic_pieces(const isl::set& set, std::span<const Var> vars);

/// A single-valued relation from the first `n_in` set dimensions to the
/// rest, as pieces: the domain piece (as a set over the n_in dimensions)
/// and the result expressions over `vars` (one per input dimension).
struct FunctionPiece {
  isl::set domain;
  std::vector<Expr> results;
};
/// nullopt when the relation is not single-valued.
std::optional<std::vector<FunctionPiece>> function_pieces(const isl::set& graph, unsigned n_in,
                                                          std::span<const Var> vars);

/// A relation between two leaves of a loop's state: from the first `n_in`
/// dimensions of `graph` (an element of leaf `from`) to the rest (an element
/// of leaf `to`).
struct LeafRelation {
  std::size_t from = 0;
  std::size_t to = 0;
  isl::set graph;
  unsigned n_in = 0;
};

/// Elements of a loop's state leaf: a set over that leaf's dimensions.
struct LeafElements {
  std::size_t leaf = 0;
  isl::set elements;
};

/// The `power`-th power (power >= 1) of the union of the relations `step`,
/// restricted to the elements `start`: every leaf element reached from them
/// in exactly `power` steps, one relation per pair of leaves, sorted by
/// (from, to). isl computes fixed powers by repeated squaring, exactly.
std::vector<LeafRelation> leaf_relation_power(std::span<const LeafRelation> step, std::int64_t power,
                                              std::span<const LeafElements> start);

/// The expression isl considers the simplest for `e` on `domain`: the gist
/// of its quasi-affine form.
Expr isl_canonical_form(const Expr& e, const Domain& domain);

}  // namespace hlo_index::indexing

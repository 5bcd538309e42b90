// Symbolic operations on indexing maps: composition (XLA's semantics and
// symbol order) and variable renaming. The bottom layer of the map
// operations: it calls simplify/'s rules and nothing else of indexing/
// (layers: map_ops <- exact_ops <- simplify_map <- inverse).
#pragma once

#include <functional>
#include <span>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// The map over `variables` (intervals only) whose results, replica id and
/// `constraints` are map's with every variable v replaced by replacement(v).
/// Runtime sources and the approximation mark carry over.
IndexingMap rewritten(const IndexingMap& map, Domain variables, std::span<const Constraint> constraints,
                      const std::function<Expr(Var)>& replacement);

/// `first` then `second`: maps first's domain through first's results into
/// second's domain, then through second. Symbols of the result: second's
/// range variables, first's range variables, second's runtime variables,
/// first's runtime variables. The domain adds second's constraints (in
/// terms of first's results) and that first's results lie in second's
/// dimension intervals. Not simplified. Throws std::invalid_argument when
/// first's result count differs from second's dimension count.
/// Replica ids: first's (renamed like its results), then second's (read at
/// first's results): a path through two all-gathers has two.
IndexingMap compose(const IndexingMap& first, const IndexingMap& second);

/// Whether two runtime sources denote the same runtime value at every point
/// of a map's domain: the same producing instruction (in the computation
/// being composed; whichever operand position read it), the same element of it as a function of the dimensions
/// alone (structurally equal results), the same clamping (`feasible`) and
/// kind. Sources without a producing instruction (internal to a called
/// computation, or the device's position) never compare equal: a called
/// computation's internal value differs per call site.
bool same_runtime_value(const RuntimeSource& a, const RuntimeSource& b);

/// True when the expressions use dimension variables only.
bool over_dimensions_only(const std::vector<Expr>& results);

/// Merges the runtime variables of `map` that denote the same runtime value
/// (same_runtime_value) into the first of them, whose interval becomes the
/// intersection of theirs: one value cannot take two values at one point.
/// Exact (the relation is unchanged as a function of the runtime values),
/// and both directions of a composition (dynamic-update-slice then
/// dynamic-slice at the same offset) then cancel. Returns whether any merged.
bool merge_same_runtime_values(IndexingMap& map);

/// The map with its replica-id results appended to its results (and no
/// replica id): the relation { (d, rt) -> (e, replica) } for the isl
/// questions (equality) that know results only.
IndexingMap replica_id_as_results(const IndexingMap& map);

/// The map with its runtime variables turned into range variables (after
/// its own): the relation over d alone. Verifies a simplification that
/// dropped runtime variables (which changes what the relation is a function of).
IndexingMap runtime_as_range(const IndexingMap& map);

/// The map with its dimensions turned into range variables (before its
/// own): ()[d.., s..] -> (results), every element that any point of the
/// domain reads, as the map of a scalar (a reduction over the whole output).
IndexingMap dims_as_ranges(const IndexingMap& map);

}  // namespace hlo_index::indexing

// The one entry point for simplifying indexing maps: simplify() with a
// named policy (what the analysis, the layouts and the op maps ask for), or
// with the individual options (the `map` command, tests, benchmarks).
//
// Layers, each calling only the ones below it:
//   inverse       inverse relations, simplified piece by piece
//   simplify_map  this file: the pipeline (rules, then isl) and the policies
//   exact_ops     isl questions (emptiness, equality, tighten_domain) and
//                 the variable clean-ups that need them
//   map_ops       symbolic operations: composition, renaming
//   simplify/     the expression rules
#pragma once

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// What "simplify" means at each place that asks for it.
enum class SimplifyPolicy {
  /// Leave the map as built (--no-simplify; XLA's policy for most single ops).
  kNone,
  /// Rules, then isl (exact intervals, no redundant constraints, isl's form
  /// of large results); runtime variables dropped only where they say
  /// nothing; the element maps of runtime sources simplified too.
  kExact,
  /// kExact without isl: the cheap step between compositions.
  kExactRulesOnly,
  /// XLA's SimplifyIndexingMap: rules without isl, dropping unused range and
  /// runtime variables. XLA's policy for composed maps, reduce-window and
  /// convolution.
  kXlaCompatible,
  /// XLA's policy for reshape and bitcast: rules that keep point dimensions
  /// and unused symbols.
  kXlaKeepPoints,
  /// XLA's policy for the ops with runtime offsets (dynamic-slice,
  /// dynamic-update-slice, gather): only unused symbols, runtime ones too.
  kXlaUnusedSymbolsOnly,
  /// Layout maps: the rules keep tile digits (floordiv / mod by tile sizes)
  /// readable, then isl makes the domain exact.
  kRulesThenExactDomain,
  /// isl makes the domain exact; results are left alone.
  kExactDomain,
};

/// Simplifies in place under `policy`.
void simplify(IndexingMap& map, SimplifyPolicy policy);

struct MapSimplifyOptions {
  /// Replace subexpressions whose range is a single value by the value.
  bool replace_points = true;
  /// Drop range variables nothing depends on.
  bool remove_unused_symbols = true;
  /// Replace a range variable an equality constraint fixes by its value
  /// (simplify::solve_range_equality); XLA does not.
  bool solve_range_equalities = true;
  /// ... and runtime variables too (XLA's RemoveUnusedSymbols).
  bool remove_unused_runtime_variables = false;
  /// Run the isl steps: exact emptiness, exact variable intervals, removal
  /// of redundant constraints, isl's form of results when it is smaller.
  bool use_isl = true;
  /// Check with isl that the simplified map equals the input (throws
  /// std::logic_error if not). For tests and --verify.
  bool verify = false;
};

/// Simplifies in place; returns true if the map changed.
bool simplify(IndexingMap& map, const MapSimplifyOptions& options = {});

}  // namespace hlo_index::indexing

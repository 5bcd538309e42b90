// Symbolic operations on indexing maps: composition (XLA's semantics and
// symbol order), variable clean-ups, and the full simplification pipeline
// (rules from simplify/, then the exact isl steps).
#pragma once

#include "indexing/indexing_map.hpp"

namespace hlo_index::indexing {

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

/// The map with its replica-id results appended to its results (and no
/// replica id): the relation { (d, rt) -> (e, replica) } for the isl
/// questions (equality) that know results only.
IndexingMap replica_id_as_results(const IndexingMap& map);

/// Drops range variables (and runtime variables when `runtime_too`) that
/// neither the results nor a constraint involving a used variable mention
/// (with the constraints that only mention unused ones, after checking they
/// can hold), renumbering the rest. Returns true if something was removed.
/// Runtime variables are kept by default: they are inputs of the relation
/// { (d, rt) -> r }, so dropping one changes what the map is a function of
/// (XLA drops them; its compatibility mode asks for that).
bool remove_unused_symbols(IndexingMap& map, bool runtime_too = false);

/// A range variable fixed by an equality constraint `s + e in [c, c]`
/// (coefficient +-1, e free of s) is replaced by `c - e` everywhere, and
/// its interval becomes a constraint on `c - e`. Returns true on change.
bool eliminate_determined_symbols(IndexingMap& map);

struct MapSimplifyOptions {
  /// Replace subexpressions whose range is a single value by the value.
  bool replace_points = true;
  /// Drop range variables nothing depends on.
  bool remove_unused_symbols = true;
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

// Symbolic tiles, as XLA's SymbolicTile (xla/codegen/tiling/symbolic_tile.cc)
// derives them: from an indexing map root index -> instruction index, the
// tile of the instruction that a tile of the root reads, as functions of the
// root tile's sizes (d0, d1, ...: one per root dimension):
//   offset map  the first element the tile of the root at offset 0 reads
//               (runtime variables kept, range variables at 0);
//   size map    elements per instruction dimension;
//   stride map  the step between them;
//   constraints a disjunction of conjunctions `expr in [lo, hi]` on the
//               sizes under which the tile is a strided box.
// The derivation follows XLA's rules case by case (a dimension, a symbol, a
// floordiv or mod of a dimension, a sum whose strides chain), so that the
// printed tiles and constraints are XLA's where XLA is exact; where XLA gives
// up the reason says which rule failed and what would make the tile a box.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::tiles {

using indexing::Expr;
using indexing::Interval;

/// `expr in [lo, hi]` over the tile sizes, or (when `modulus` is set)
/// `expr mod modulus in [lo, hi]` where one side is a constant and the other
/// an expression of the sizes (XLA's `6 mod d0`, which the expression type
/// cannot hold: its divisors are constants or non-constant expressions).
struct TileConstraint {
  Expr expr;
  std::optional<Expr> modulus;
  Interval interval;
  bool operator==(const TileConstraint&) const = default;
};

/// XLA's ConstraintExpression: a disjunction of conjunctions, or
/// unsatisfiable. No conjunction and satisfiable: always satisfied.
class TileConstraints {
public:
  static TileConstraints always() { return {}; }
  static TileConstraints never();
  static TileConstraints of(TileConstraint c);

  bool always_satisfied() const { return m_satisfiable && m_conjunctions.empty(); }
  bool satisfiable() const { return m_satisfiable; }
  const std::vector<std::vector<TileConstraint>>& conjunctions() const { return m_conjunctions; }

  friend TileConstraints operator&&(const TileConstraints& a, const TileConstraints& b);
  friend TileConstraints operator||(const TileConstraints& a, const TileConstraints& b);

  /// Drops constraints on constants that hold, conjunctions with one that
  /// fails, sorts and deduplicates (XLA's Simplify: no subsumption).
  void simplify();
  /// Whether sizes `sizes` (one per root dimension) satisfy it.
  bool holds(std::span<const std::int64_t> sizes) const;
  /// XLA's text: `always satisfied`, `unsatisfiable`, or `a in [1, 1] && b in [2, 2] || ...`.
  std::string to_string() const;

private:
  bool m_satisfiable = true;
  std::vector<std::vector<TileConstraint>> m_conjunctions;
};

struct SymbolicTile {
  std::size_t parameters = 0;     // root rank: the size variables d0...
  std::vector<Interval> bounds;   // of each size variable: [1, root dimension]
  std::vector<Expr> offsets;      // may use runtime variables (rt0 ...)
  std::vector<Interval> runtime;  // the intervals of those runtime variables
  std::vector<Expr> sizes, strides;
  TileConstraints constraints;
};

/// The tile of one instruction, or why there is none.
struct TileDerivation {
  std::optional<SymbolicTile> tile;
  /// No tile: which rule of XLA's failed, on which result.
  std::string reason;
  /// No tile: what would make it a strided box (a condition on the sizes), when one is known.
  std::string fix;
};

/// Derives the tile of `map` (root index -> instruction index), simplified as it is.
TileDerivation derive_symbolic_tile(const indexing::IndexingMap& map);

/// Values of the offset, size and stride maps at `sizes` (strides with the
/// sizes clamped to their bounds, as XLA's EvaluateTileStrides; offsets with
/// runtime variables at `runtime`, or 0).
std::vector<std::int64_t> evaluate_offsets(const SymbolicTile& tile, std::span<const std::int64_t> sizes,
                                           std::span<const std::int64_t> runtime = {});
std::vector<std::int64_t> evaluate_sizes(const SymbolicTile& tile, std::span<const std::int64_t> sizes);
std::vector<std::int64_t> evaluate_strides(const SymbolicTile& tile, std::span<const std::int64_t> sizes);

/// XLA's SymbolicTile::ToString without the tabs: `offset_map: ...`,
/// `size_map: ...`, `stride_map: ...`, `rt_vars: ...` when there are runtime
/// variables, `constraints: ...` unless always satisfied; one per line, each
/// line starting with `indent`.
std::string print_symbolic_tile(const SymbolicTile& tile, const std::string& indent = "  ");
/// `(d0, d1) -> (e0, e1)` (runtime variables as [s0, ...], as XLA's offset map prints them).
std::string print_tile_map(std::size_t parameters, std::span<const Expr> results, bool runtime_as_symbols = false);

}  // namespace hlo_index::tiles

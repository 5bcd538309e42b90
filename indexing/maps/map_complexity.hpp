// How complex a composed map has become, counted on its expressions (not on
// the clock), so that a walk of a called computation stops at the same step
// on every machine. A chain of reshapes between unrelated shapes composes
// into floordiv/mod terms that grow with every step and no longer simplify
// (fusion_reshape_chain_200_* in ../shared/regressions); simplifying such
// maps, and isl's questions about them (one integer division per floordiv or
// mod), cost more at every step. Past the caps a walk stops as it does past
// k_max_compositions_per_walk: output -> operand answers with the output's
// sound dependence fallback, approximate.
#pragma once

#include <cstddef>
#include <string>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

struct MapComplexity {
  /// Expression nodes of the results, constraints and replica ids together
  /// (shared subtrees counted at every use: the size the map prints at).
  std::size_t nodes = 0;
  /// The deepest nesting of floordiv / mod (constant or not) in any of them.
  int division_depth = 0;
  /// floordiv / mod nodes among `nodes`.
  std::size_t divisions = 0;
  /// Maps of runtime variables' sources, theirs in turn included, counted at
  /// each use (as hashing and comparing maps visit them); only up to
  /// `node_limit + 1`.
  std::size_t source_maps = 0;
};

/// The complexity of a defined map (zeros for an UNDEFINED or KNOWN EMPTY
/// one). The depth and divisions are only counted when `nodes` is at most
/// `node_limit`, and the depth only up to `depth_limit + 1`: enough to
/// compare with the caps, in time bounded by them.
MapComplexity map_complexity(const IndexingMap& map, std::size_t node_limit, int depth_limit);

// The caps, from the largest maps any composition step reaches over
// ../shared/corpus (every computation, both directions, exact and XLA style,
// with and without simplification, and lint's walk): 98 nodes, division depth
// 2, 19 divisions (unsimplified; 48, 1 and 4 simplified), 127 source maps. Chains of the
// regressions pass them within 10 to 30 steps; below them every prefix of
// those chains is answered in well under a second.

/// Expression nodes a composed map may hold (20 times the corpus's largest).
inline constexpr std::size_t k_max_composed_map_nodes = 2000;
/// Nesting of floordiv / mod a composed map may hold (3 times the corpus's
/// deepest; isl is not given more than k_max_isl_division_depth).
inline constexpr int k_max_composed_division_depth = 6;
/// floordiv / mod nodes a composed map may hold: isl's time on a map grows
/// steeply with its integer divisions (a map of 36 took 5 s to canonicalise).
inline constexpr std::size_t k_max_composed_divisions = 48;

/// Maps of runtime variables' sources a composed map may hold, nested ones
/// counted at each use. In XLA's style a chain of dynamic slices nests them
/// (each offset's source map holds the earlier offsets'), doubling with every
/// step what hashing and comparing the map visit. The corpus reaches 127 (11
/// simplified); the chain of 200 dynamic slices of the regressions 599 in the
/// exact style, where they do not nest, and past 2,000 within 10 steps in XLA's.
inline constexpr std::size_t k_max_composed_source_maps = 2000;

/// Constraints a composed map may hold. Operand -> output through a chain of
/// dynamic slices adds a runtime variable and two constraints at every step
/// (the output index is the operand's minus an offset, within the slice),
/// and isl's time on such maps grows steeply with them: walks of the
/// 200-slice chain of the regressions took 0.1 s each past 16 constraints.
/// The corpus reaches 5. Runtime variables alone are not capped: output ->
/// operand through the same chain sums 200 offsets in one exact, cheap map.
inline constexpr std::size_t k_max_composed_constraints = 16;

/// True when `map` is past any of the caps.
bool exceeds_composition_caps(const IndexingMap& map);

/// Why a walk stopped at the caps (CompositionLimitReached's reason).
std::string composition_caps_reason();

}  // namespace hlo_index::indexing

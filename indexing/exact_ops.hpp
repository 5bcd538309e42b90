// Exact (isl-decided) questions about indexing maps. Each runs under an isl
// operation budget; std::nullopt means the budget ran out.
#pragma once

#include <optional>
#include <vector>

#include "indexing/indexing_map.hpp"

namespace hlo_index::indexing {

/// True if the domain has no integer point. nullopt for UNDEFINED maps and
/// when the budget ran out.
std::optional<bool> is_empty(const IndexingMap& map);

/// Semantic equality: same relation { (d, rt) -> r } (range variables are
/// existential), same runtime-variable sources. Two UNDEFINED maps are
/// equal; UNDEFINED never equals a defined map. Empty relations are equal
/// whatever their arity (a KNOWN EMPTY typed as text has none).
std::optional<bool> are_equal(const IndexingMap& a, const IndexingMap& b);

/// The inverse relation { (r, rt) -> d } as maps from the result space
/// (dimension intervals: the exact image) to the original dimensions. One
/// map per convex piece; where the inverse is not a function, the
/// undetermined dimensions become range variables. When the budget runs out,
/// a single over-approximating map (every dimension a range variable) marked
/// approximate. `simplify_pieces`: simplify each map (the default).
std::vector<IndexingMap> inverse(const IndexingMap& map, bool simplify_pieces = true);

/// Makes the domain exact where rules cannot: KNOWN EMPTY if it has no
/// integer point, constraints implied by the others removed, every variable
/// interval narrowed to the exact projection of the domain. Returns true on
/// change; leaves the map alone when the budget runs out.
bool tighten_domain(IndexingMap& map);

}  // namespace hlo_index::indexing

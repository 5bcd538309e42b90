// Inverse relations of indexing maps, computed by isl and simplified piece
// by piece: above simplify_map.hpp in the layers it describes.
#pragma once

#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// The inverse relation { (r, rt) -> d } as maps from the result space
/// (dimension intervals: the exact image) to the original dimensions. One
/// map per convex piece; where the inverse is not a function, the
/// undetermined dimensions become range variables. When the budget runs out,
/// a single over-approximating map (every dimension a range variable) marked
/// approximate. `simplify_pieces`: simplify each map (the default).
std::vector<IndexingMap> inverse(const IndexingMap& map, bool simplify_pieces = true);

}  // namespace hlo_index::indexing

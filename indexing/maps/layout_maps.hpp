// Indexing maps between an array's logical index and its physical element
// offset (layout/ says where each element lives; these are the maps).
#pragma once

#include "indexing/maps/indexing_map.hpp"
#include "layout/physical_layout.hpp"

namespace hlo_index::indexing {

/// (d0, ..., dn-1) -> (offset): the logical index to the linear element
/// offset in the buffer (tiles and their padding included). Exact.
IndexingMap logical_to_physical(const layout::PhysicalLayout& layout, bool simplify = true);

/// (d0) -> (d0', ..., dn-1'): an element offset in [0, allocated - 1] to the
/// logical index stored there; padding slots are outside the domain (the
/// constraints exclude them). Exact.
IndexingMap physical_to_logical(const layout::PhysicalLayout& layout, bool simplify = true);

/// `map` (from the logical index of an array with layout `from` to the
/// logical index of one with layout `to`) restated in element offsets:
/// (offset in from's buffer) -> (offset in to's buffer). Padding slots of
/// `from` are outside the domain. Runtime variables and approximation carry
/// over. `simplify`: rules and isl as for any composed map.
IndexingMap in_physical_offsets(const IndexingMap& map, const layout::PhysicalLayout& from,
                                const layout::PhysicalLayout& to, bool simplify = true);

/// `map` (to the logical index of an array with layout `to`) with its results
/// restated as the element offset in to's buffer; its domain stays as it is.
/// What counting the offsets a map reaches needs: an offset domain would
/// bring floordiv and mod chains that isl projects slowly.
IndexingMap to_physical_offsets(const IndexingMap& map, const layout::PhysicalLayout& to, bool simplify = true);

}  // namespace hlo_index::indexing

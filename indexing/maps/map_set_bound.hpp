// A bound on the size of the map sets composition carries. Composing through
// chains of conditionals multiplies the maps of every branch (each keeps its
// selector condition, so pieces from different branches never merge), and
// the work of composing and deduplicating grows with the product. Past a
// fixed number of maps for one array (an operand, or one element of a tuple
// operand) the set is replaced by one map: every element of the bounding box
// of what the maps read, for every index of the hull of their domains. That
// is a sound superset, marked approximate. The bound is a count, so the
// answer does not depend on the machine or its load.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// Maps one set may hold for one array while composing before it is bounded,
/// when one of them is under a branch selector's condition or approximate
/// (the sets that multiply along torax's chains of conditionals and loops).
inline constexpr std::size_t k_max_maps_per_array = 8;
/// The cap for a set of exact maps none of which is under a branch
/// selector's condition: those do not multiply along chains of conditionals.
inline constexpr std::size_t k_max_maps_per_exact_array = 64;

/// When `set` (maps into one array of dimension sizes `array`) holds more
/// than `cap` defined maps (k_max_maps_per_exact_array when none is under a
/// branch condition or approximate), replaces them by their bounding box.
/// UNDEFINED maps stay (the set is UNDEFINED either way); maps with replica
/// ids are left alone.
void bound_maps(MapSet& set, const std::vector<std::int64_t>& array, std::size_t cap = k_max_maps_per_array);

/// The same for a set of maps into a tuple whose first result names the
/// element (a call's or conditional's maps into a tuple operand): bounded per
/// element. `elements` are the dimension sizes of each element.
void bound_tuple_maps(MapSet& set, const std::vector<std::vector<std::int64_t>>& elements,
                      std::size_t cap = k_max_maps_per_array);

}  // namespace hlo_index::indexing

// Maps holding non-affine nodes (a product of two variables, a floordiv,
// ceildiv or mod by a variable: forms XLA's serialization accepts and the
// map parser reads) are beyond isl, which represents quasi-affine sets only.
// Their exact questions (image counts, equality) are answered by
// enumerating every point of a small domain; larger ones get the sound
// fallbacks of an exhausted isl budget (upper bounds, unknown, approximate).
// The HLO analysis never builds such maps.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// True when a result, a constraint or the replica id of a defined map has
/// a non-affine node.
bool has_non_affine(const IndexingMap& map);

/// An over-approximation isl can represent: each distinct non-affine term
/// becomes a new range variable (existential) bounded by the term's sound
/// interval, appended after the map's range variables. Marked approximate.
/// Requires a defined map.
IndexingMap abstract_non_affine(const IndexingMap& map);

/// Domains with more points than this (in the box of variable intervals)
/// are not enumerated.
inline constexpr std::int64_t k_max_enumerated_points = std::int64_t{1} << 20;

/// Every tuple (d..., rt..., results..., replica id...) of the relation of a
/// defined map (`with_inputs`), or (results...) of its image; nullopt when
/// the box has more than k_max_enumerated_points points or an evaluation
/// overflows.
std::optional<std::set<std::vector<std::int64_t>>> enumerate_relation(const IndexingMap& map, bool with_inputs);
/// The number of distinct (results...) tuples of the image of a defined map, enumerated under
/// the same limits as enumerate_relation, without building a set of them.
std::optional<std::int64_t> enumerated_image_size(const IndexingMap& map);

}  // namespace hlo_index::indexing

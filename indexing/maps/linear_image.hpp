// The image of a map with one result that is a sum of terms over distinct
// variables, each term reading one variable (`d1 * 1380 + s0 * 690 + s2`,
// `d2 * 16 + d3 floordiv 8`), possibly divided or reduced by a constant as a
// whole (the transfer unit a convolution's window reaches): counted without
// isl as the values the sum reaches, a bit set built term by term (each a
// union of shifted copies of the set so far), then the distinct quotients or
// remainders. isl's projection of such maps splits into many pieces; this is
// linear in the span of the sum.
#pragma once

#include <optional>

#include "indexing/maps/count.hpp"
#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

/// The exact number of values `map`'s one result takes, or nullopt when the
/// map is not of that form, its domain has constraints, or the sum spans
/// more values than a bit set here may hold.
std::optional<Count> linear_image_count(const IndexingMap& map);

}  // namespace hlo_index::indexing

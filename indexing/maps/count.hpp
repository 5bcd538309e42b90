// Exact point counting for indexing maps without enumerating large sets:
// independent groups of variables multiply, a group of one variable is
// counted in closed form per residue class of its divisors, larger groups
// enumerate their outer variables under a work bound, and isl counts what
// is left within its operation budget. When a bound is hit the count is an
// upper bound and says so.
#pragma once

#include <cstdint>
#include <span>

#include "indexing/maps/indexing_map.hpp"

namespace hlo_index::indexing {

struct Count {
  std::int64_t value = 0;
  bool exact = true;  // false: `value` is an upper bound
};

/// Points (d, s, rt) of the domain.
Count count_domain(const IndexingMap& map);
/// Distinct result tuples over the domain (elements the map reaches).
Count count_image(const IndexingMap& map);
/// Distinct pairs ((d, rt), r) of the relation.
Count count_relation(const IndexingMap& map);

/// Distinct result tuples reached by any of `maps` (all with the same
/// number of results): the size of the union of their images.
Count count_union_image(std::span<const IndexingMap> maps);

/// Points of a symbolic domain (all variables).
Count count_points(const Domain& domain);

}  // namespace hlo_index::indexing

#include "indexing/maps/layout_maps.hpp"

#include "indexing/maps/map_builders.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "simplify/simplifier.hpp"

namespace hlo_index::indexing {

// The maps are simplified piece by piece: each digit of the physical index
// (index floordiv tile, index mod tile, ...) on its own, then the linear
// combination. Simplifying the whole sum would trade the tile structure for
// fewer nodes (e.g. `(d0 floordiv 128) * -511 + (d0 floordiv 512) * 508 +
// d0 * 4`), which is exact but unreadable.

IndexingMap logical_to_physical(const layout::PhysicalLayout& layout, bool simplify_map) {
  const auto& dims = layout.logical_dims();
  IndexingMap map = build::map(dims, {});
  std::vector<Expr> digits = layout.physical_index(build::dims(dims.size()));
  if (simplify_map)
    for (Expr& digit : digits) digit = simplify::simplify_expr(digit, map.domain(), false);
  map.results().push_back(layout.linearize(digits));
  return map;
}

IndexingMap physical_to_logical(const layout::PhysicalLayout& layout, bool simplify_map) {
  layout::PhysicalLayout::Inverse inverse = layout.logical_index(Expr::dim(0));
  IndexingMap map = build::map({layout.allocated_elements()}, std::move(inverse.logical));
  for (const Constraint& c : inverse.holds_element) {
    map.add_constraint(simplify_map ? simplify::simplify_expr(c.expr, map.domain(), false) : c.expr, c.interval);
    if (map.is_known_empty()) return map;
  }
  if (!simplify_map) return map;
  // isl: the last slot that holds an element, and no redundant conditions.
  simplify(map, SimplifyPolicy::kExactDomain);
  for (Expr& e : map.results()) e = simplify::simplify_expr(e, map.domain(), true);
  return map;
}

IndexingMap in_physical_offsets(const IndexingMap& map, const layout::PhysicalLayout& from,
                                const layout::PhysicalLayout& to, bool simplify_map) {
  if (!map.is_defined()) return map;
  IndexingMap physical = compose(compose(physical_to_logical(from, false), map), logical_to_physical(to, false));
  if (simplify_map) {
    simplify(physical, SimplifyPolicy::kRulesThenExactDomain);
  }
  return physical;
}

IndexingMap to_physical_offsets(const IndexingMap& map, const layout::PhysicalLayout& to, bool simplify_map) {
  if (!map.is_defined()) return map;
  IndexingMap physical = compose(map, logical_to_physical(to, false));
  // The rules only: the domain is the map's own, which isl would not narrow further for counting.
  if (simplify_map) simplify(physical, SimplifyPolicy::kExactRulesOnly);
  return physical;
}

}  // namespace hlo_index::indexing

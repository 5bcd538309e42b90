#include "indexing/maps/map_complexity.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "indexing/maps/isl_bridge.hpp"

namespace hlo_index::indexing {

static_assert(k_max_composed_division_depth < k_max_isl_division_depth,
              "composed maps stop well before isl refuses their divisions");
static_assert(k_max_composed_source_maps <= k_max_composed_map_nodes,
              "map_complexity counts source maps up to its node limit");

namespace {

bool is_division(const Expr& e) {
  return e.kind() == Expr::Kind::kFloorDiv || e.kind() == Expr::Kind::kMod ||
         (e.kind() == Expr::Kind::kNonAffine && e.non_affine_op() != Expr::NonAffineOp::kMul);
}

// Division depth of `e` counted no deeper than `limit`, and its divisions
// added to `divisions` (a tree walk: the caller bounds the tree's size).
int measure(const Expr& e, int limit, std::size_t& divisions) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kVariable: return 0;
    case Expr::Kind::kSum: {
      int deepest = 0;
      for (const simplify::Term& t : e.terms()) deepest = std::max(deepest, measure(t.atom, limit, divisions));
      return deepest;
    }
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod:
    case Expr::Kind::kNonAffine: break;
  }
  const int own = is_division(e) ? 1 : 0;
  divisions += static_cast<std::size_t>(own);
  int inner = measure(e.operand(), limit, divisions);
  if (e.kind() == Expr::Kind::kNonAffine) inner = std::max(inner, measure(e.rhs(), limit, divisions));
  return std::min(limit, own + inner);
}

// Adds the runtime-source maps under `map` to `count`, stopping past `limit`.
void count_source_maps(const IndexingMap& map, std::size_t limit, std::size_t& count) {
  for (const RuntimeSource& s : map.runtime_sources()) {
    if (count > limit) return;
    if (!s.map) continue;
    ++count;
    count_source_maps(*s.map, limit, count);
  }
}

}  // namespace

MapComplexity map_complexity(const IndexingMap& map, std::size_t node_limit, int depth_limit) {
  MapComplexity c;
  if (!map.is_defined()) return c;
  for (const Expr& e : map.results()) c.nodes += e.node_count();
  for (const Constraint& k : map.domain().constraints()) c.nodes += k.expr.node_count();
  for (const Expr& e : map.replica_id()) c.nodes += e.node_count();
  count_source_maps(map, node_limit, c.source_maps);
  if (c.nodes > node_limit) return c;
  auto add = [&](const Expr& e) {
    c.division_depth = std::max(c.division_depth, measure(e, depth_limit + 1, c.divisions));
  };
  for (const Expr& e : map.results()) add(e);
  for (const Constraint& k : map.domain().constraints()) add(k.expr);
  for (const Expr& e : map.replica_id()) add(e);
  return c;
}

bool exceeds_composition_caps(const IndexingMap& map) {
  if (map.is_defined() && map.domain().constraints().size() > k_max_composed_constraints) return true;
  const MapComplexity c = map_complexity(map, k_max_composed_map_nodes, k_max_composed_division_depth);

  return c.nodes > k_max_composed_map_nodes || c.division_depth > k_max_composed_division_depth ||
         c.divisions > k_max_composed_divisions || c.source_maps > k_max_composed_source_maps;
}

std::string composition_caps_reason() {
  return fmt::format(
      "a composed map past the caps: {} nodes, {} nested or {} divisions, {} constraints or {} source maps",
      k_max_composed_map_nodes, k_max_composed_division_depth, k_max_composed_divisions, k_max_composed_constraints,
      k_max_composed_source_maps);
}

}  // namespace hlo_index::indexing

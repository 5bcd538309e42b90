// The integer relation of an indexing map by enumeration, for brute-force
// tests: every point of its domain (variable intervals and constraints), the
// pairs (dimension point, results), with range and runtime variables over
// every value of their intervals; and the points of a shape.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <utility>
#include <vector>

#include "indexing/maps/indexing_map.hpp"
#include "simplify/expr.hpp"

namespace hlo_index::test {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;

/// The relation at each assignment of the runtime variables (range variables
/// enumerated), and the replica id of every pair into `replica` when given.
inline std::map<Point, Relation> relation_by_runtime(const indexing::IndexingMap& map,
                                                     std::map<std::pair<Point, Point>, Point>* replica = nullptr) {
  std::map<Point, Relation> out;
  REQUIRE(map.is_defined());
  const auto vars = map.domain().all_variables();
  const std::size_t nd = map.dim_count(), nr = map.range_count();
  std::vector<std::int64_t> values(vars.size());
  std::function<void(std::size_t)> walk = [&](std::size_t v) {
    if (v == vars.size()) {
      simplify::VarValues at{std::span(values).subspan(0, nd), std::span(values).subspan(nd, nr),
                             std::span(values).subspan(nd + nr)};
      for (const auto& c : map.domain().constraints())
        if (!c.interval.contains(simplify::evaluate(c.expr, at))) return;
      Point result;
      for (const auto& e : map.results()) result.push_back(simplify::evaluate(e, at));
      const Point in(values.begin(), values.begin() + static_cast<long>(nd));
      out[Point(values.begin() + static_cast<long>(nd + nr), values.end())].insert({in, result});
      if (replica != nullptr) {
        Point id;
        for (const auto& e : map.replica_id()) id.push_back(simplify::evaluate(e, at));
        (*replica)[{in, result}] = id;
      }
      return;
    }
    const auto bounds = map.domain().bounds(vars[v]);
    for (std::int64_t x = bounds.lo; x <= bounds.hi; ++x) {
      values[v] = x;
      walk(v + 1);
    }
  };
  walk(0);
  return out;
}

/// The union of the relations over every value of the runtime variables.
inline Relation relation_of_any_runtime(const indexing::IndexingMap& map) {
  Relation out;
  for (const auto& [runtime, pairs] : relation_by_runtime(map)) out.insert(pairs.begin(), pairs.end());
  return out;
}

/// Every index of an array of shape `dims`, in row-major order.
inline std::vector<Point> all_points(const std::vector<std::int64_t>& dims) {
  std::vector<Point> points{{}};
  for (std::int64_t size : dims) {
    std::vector<Point> next;
    for (const Point& p : points) {
      for (std::int64_t x = 0; x < size; ++x) {
        Point q = p;
        q.push_back(x);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  return points;
}

/// The pairs turned around.
inline Relation inverse(const Relation& r) {
  Relation out;
  for (const auto& [a, b] : r) out.insert({b, a});
  return out;
}

/// The relation of a map without runtime variables.
inline Relation relation_of(const indexing::IndexingMap& map) {
  REQUIRE(map.runtime_count() == 0);
  return relation_of_any_runtime(map);
}

/// The union of the relations of a set's maps (KNOWN EMPTY ones add nothing);
/// `exact_only`: of its maps not marked approximate.
inline Relation relation_of(const std::vector<indexing::IndexingMap>& set, bool exact_only) {
  Relation out;
  for (const indexing::IndexingMap& map : set) {
    if (map.is_known_empty() || (exact_only && map.approximate())) continue;
    const Relation one = relation_of(map);
    out.insert(one.begin(), one.end());
  }
  return out;
}

}  // namespace hlo_index::test

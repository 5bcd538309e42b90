// tighten_domain: drops the constraints the others imply and narrows the
// variables' intervals to the domain's hull, without changing its points
// (compared as the maps' relations, by enumeration: map_relation.hpp).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "map_relation.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_tighten_domain_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::parse_map;

TEST_CASE("tighten_domain drops implied constraints and narrows intervals", "[indexing][tighten_domain]") {
  SECTION("a constraint the box implies goes, the others stay, the intervals narrow") {
    IndexingMap m = parse_map(
        "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 30], d0 - d1 in [0, 3], "
        "d0 + d1 * 3 in [0, 8]");
    const auto before = test::relation_of(m);
    REQUIRE(m.domain().constraints().size() == 3);
    CHECK(indexing::tighten_domain(m));
    INFO(fmt::format("{} constraints left", m.domain().constraints().size()));
    CHECK(m.domain().constraints().size() == 2);
    for (const auto& c : m.domain().constraints()) CHECK(c.interval.hi != 30);
    // d1 <= d0 <= d1 + 3 and d0 + 3 d1 <= 8: d1 <= 2 (at d0 = 2), d0 <= 4 (at d1 = 1).
    CHECK(m.domain().bounds({simplify::VarKind::kDim, 1}) == simplify::Interval{0, 2});
    CHECK(m.domain().bounds({simplify::VarKind::kDim, 0}) == simplify::Interval{0, 4});
    CHECK(test::relation_of(m) == before);
  }
  SECTION("nothing to drop or narrow: no change") {
    IndexingMap m = parse_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 - d1 in [0, 3]");
    const IndexingMap before = m;
    CHECK_FALSE(indexing::tighten_domain(m));
    CHECK(m == before);
  }
  SECTION("constraints that cannot hold together make the map known empty") {
    IndexingMap m = parse_map(
        "(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 3], "
        "d0 - d1 in [5, 9]");
    CHECK(indexing::tighten_domain(m));
    CHECK(m.is_known_empty());
  }
}

TEST_CASE("tighten_domain keeps the points of random domains", "[indexing][tighten_domain][bruteforce]") {
  std::mt19937 rng(20261127);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int changed = 0, emptied = 0;
  for (int round = 0; round < 300; ++round) {
    const int dims = pick(1, 3);
    std::string vars, bounds, results;
    for (int d = 0; d < dims; ++d) {
      vars += fmt::format("{}d{}", d == 0 ? "" : ", ", d);
      bounds += fmt::format(", d{} in [0, {}]", d, pick(1, 6));
    }
    std::string constraints;
    const int count = pick(1, 5);
    for (int k = 0; k < count; ++k) {
      std::string expr;
      for (int d = 0; d < dims; ++d) {
        const int a = pick(-3, 3);
        if (a == 0) continue;
        expr += fmt::format("{}d{} * {}", expr.empty() ? "" : " + ", d, a);
      }
      if (expr.empty() || expr.find('+') == std::string::npos) continue;  // a bare variable is a bound
      const int lo = pick(-12, 6);
      constraints += fmt::format(", {} in [{}, {}]", expr, lo, lo + pick(0, 14));
    }
    const std::string text = fmt::format("({}) -> ({}), domain: {}{}", vars, vars, bounds.substr(2), constraints);
    INFO(text);
    IndexingMap m = parse_map(text);
    if (m.is_known_empty()) continue;
    const auto before = test::relation_of(m);
    const IndexingMap original = m;
    if (indexing::tighten_domain(m)) ++changed;
    if (m.is_known_empty()) {
      ++emptied;
      CHECK(before.empty());
      continue;
    }
    CHECK(test::relation_of(m) == before);
    CHECK(m.domain().constraints().size() <= original.domain().constraints().size());
    // No constraint left is implied by the others within the original intervals (the narrowed
    // ones may imply more: a second pass is simplify's business).
    IndexingMap within_original = m;
    for (const simplify::Var v : m.domain().all_variables())
      within_original.domain().set_bounds(v, original.domain().bounds(v));
    const auto kept_points = test::relation_of(within_original);
    for (std::size_t i = 0; i < m.domain().constraints().size(); ++i) {
      IndexingMap without = within_original;
      without.domain().remove_constraint(i);
      INFO("constraint " << i);
      CHECK(test::relation_of(without) != kept_points);
    }
  }
  // The random domains exercise every branch: some change, some become empty.
  CHECK(changed > 50);
  CHECK(emptied > 5);
}

}  // namespace test_indexing_tighten_domain_cases

// The deterministic caps on a composed map's complexity
// (indexing/maps/map_complexity): the measure itself on maps built to sit at and
// just past each cap, and a walk of a chain of reshapes, transposes and
// reverses: short, its composed map stays exact and equals the chain's
// semantics evaluated directly; long, the walk stops at the caps and both
// directions answer with the dependence fallback, approximate, containing
// every pair the chain relates (no UNDEFINED, no clock: the time limit is off).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/maps/map_complexity.hpp"
#include "indexing/maps/map_parser.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "simplify/expr.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_map_complexity_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using simplify::Expr;

namespace {

constexpr std::size_t k_no_limit = ~std::size_t{0};

// A map (d0, d1) -> (results) over d0 in [0, 999], d1 in [0, 99].
IndexingMap over_two_dims(std::vector<Expr> results) { return indexing::build::map({1000, 100}, std::move(results)); }

// `depth` floordiv / mod nested in one another, none of which folds into the next.
Expr nested_divisions(int depth) {
  Expr e = Expr::dim(0);
  for (int i = 0; i < depth; ++i) {
    e = e * 3 + Expr::dim(1);
    e = i % 2 == 0 ? simplify::floor_div(e, 7) : simplify::mod(e, 11);
  }
  return e;
}

// `n` floordivs side by side, each of its own sum.
Expr side_by_side_divisions(std::size_t n) {
  Expr e = Expr::constant(0);
  for (std::size_t i = 0; i < n; ++i)
    e = e + simplify::floor_div(Expr::dim(0) + Expr::dim(1) * static_cast<std::int64_t>(i + 1), 97);
  return e;
}

}  // namespace

TEST_CASE("map_complexity counts nodes, division depth and divisions", "[complexity]") {
  const IndexingMap map = indexing::parse_map(
      "(d0, d1) -> ((d0 floordiv 4) mod 3, d1 + d0 floordiv 4), domain: "
      "d0 in [0, 99], d1 in [0, 9], d0 mod 5 in [0, 2]");
  const indexing::MapComplexity c = indexing::map_complexity(map, k_no_limit, 100);
  std::size_t nodes = 0;
  for (const Expr& e : map.results()) nodes += e.node_count();
  for (const auto& k : map.domain().constraints()) nodes += k.expr.node_count();
  CHECK(c.nodes == nodes);
  CHECK(c.division_depth == 2);  // (d0 floordiv 4) mod 3
  CHECK(c.divisions == 4);       // floordiv and mod, floordiv, mod (a shared subtree counts at each use)
  const indexing::MapComplexity none = indexing::map_complexity(IndexingMap::undefined("x"), k_no_limit, 100);
  CHECK(none.nodes == 0);
  CHECK(none.division_depth == 0);
}

TEST_CASE("composition caps: fire just past each cap, not at it", "[complexity]") {
  using indexing::exceeds_composition_caps;
  const int depth = indexing::k_max_composed_division_depth;
  const IndexingMap at_depth = over_two_dims({nested_divisions(depth)});
  const IndexingMap past_depth = over_two_dims({nested_divisions(depth + 1)});
  REQUIRE(indexing::map_complexity(at_depth, k_no_limit, 100).division_depth == depth);
  REQUIRE(indexing::map_complexity(past_depth, k_no_limit, 100).division_depth == depth + 1);
  CHECK_FALSE(exceeds_composition_caps(at_depth));
  CHECK(exceeds_composition_caps(past_depth));

  const std::size_t divisions = indexing::k_max_composed_divisions;
  const IndexingMap at_divisions = over_two_dims({side_by_side_divisions(divisions)});
  const IndexingMap past_divisions = over_two_dims({side_by_side_divisions(divisions + 1)});
  REQUIRE(indexing::map_complexity(at_divisions, k_no_limit, 100).divisions == divisions);
  REQUIRE(indexing::map_complexity(past_divisions, k_no_limit, 100).divisions == divisions + 1);
  REQUIRE(indexing::map_complexity(past_divisions, k_no_limit, 100).nodes <= indexing::k_max_composed_map_nodes);
  CHECK_FALSE(exceeds_composition_caps(at_divisions));
  CHECK(exceeds_composition_caps(past_divisions));

  // Nodes: results of one variable each (one node apiece).
  const std::size_t nodes = indexing::k_max_composed_map_nodes;
  const IndexingMap at_nodes = over_two_dims(std::vector<Expr>(nodes, Expr::dim(0)));
  const IndexingMap past_nodes = over_two_dims(std::vector<Expr>(nodes + 1, Expr::dim(0)));
  REQUIRE(indexing::map_complexity(at_nodes, k_no_limit, 100).nodes == nodes);
  CHECK_FALSE(exceeds_composition_caps(at_nodes));
  CHECK(exceeds_composition_caps(past_nodes));

  // Constraints: d0 + k * d1 in [0, 1000] for k = 1..n (none a bare variable, none implied).
  auto with_constraints = [](std::size_t n) {
    IndexingMap m = over_two_dims({Expr::dim(0)});
    for (std::size_t k = 1; k <= n; ++k)
      m.add_constraint(Expr::dim(0) + Expr::dim(1) * static_cast<std::int64_t>(k), simplify::Interval{0, 1000});
    return m;
  };
  const std::size_t constraints = indexing::k_max_composed_constraints;
  REQUIRE(with_constraints(constraints).domain().constraints().size() == constraints);
  REQUIRE(with_constraints(constraints + 1).domain().constraints().size() == constraints + 1);
  CHECK_FALSE(exceeds_composition_caps(with_constraints(constraints)));
  CHECK(exceeds_composition_caps(with_constraints(constraints + 1)));

  // The maps of the corpus sit far below: a reshape's and a transposed reshape's.
  CHECK_FALSE(
      exceeds_composition_caps(indexing::parse_map("(d0, d1) -> (d0 floordiv 8, (d0 mod 8) * 4 + d1 floordiv 32, d1 "
                                                   "mod 32), domain: d0 in [0, 63], d1 in [0, 127]")));
  CHECK_FALSE(exceeds_composition_caps(IndexingMap::undefined("no maps")));
}

TEST_CASE("composition caps: runtime-source maps nested in one another, counted at each use", "[complexity]") {
  // Level k: two runtime variables whose sources both hold the map of level k - 1, so
  // 2^(k+1) - 2 source maps are visited (a DAG of k + 1 maps).
  auto level = [](int k) {
    IndexingMap m = indexing::parse_map(
        "(d0){rt0, rt1} -> (d0 + rt0 + rt1), domain: d0 in [0, 3], rt0 in [0, 3], "
        "rt1 in [0, 3]");
    m.runtime_sources().resize(2);
    for (int i = 0; i < k; ++i) {
      auto inner = std::make_shared<const IndexingMap>(m);
      for (indexing::RuntimeSource& s : m.runtime_sources()) s.map = inner;
    }
    return m;
  };
  const std::size_t cap = indexing::k_max_composed_source_maps;
  CHECK(indexing::map_complexity(level(3), k_no_limit, 100).source_maps == 14);
  CHECK(indexing::map_complexity(level(9), cap, 100).source_maps == 1022);
  CHECK_FALSE(indexing::exceeds_composition_caps(level(9)));
  CHECK(indexing::exceeds_composition_caps(level(10)));  // 2046
  // The count stops past the limit: a DAG of 41 maps whose tree has 2^41 is measured at once.
  const indexing::MapComplexity deep = indexing::map_complexity(level(40), cap, 100);
  CHECK(deep.source_maps > cap);
  CHECK(deep.source_maps <= cap + 2);
  CHECK(indexing::exceeds_composition_caps(level(40)));
}

namespace {

// p = f32[210]; per group (s0, s1): reshape to [s0, s1], transpose to [s1, s0],
// reverse dimension 0; then a reshape back to [210].
const std::vector<std::pair<std::int64_t, std::int64_t>> k_groups = {{14, 15}, {6, 35}, {10, 21}, {30, 7},
                                                                     {2, 105}, {42, 5}, {3, 70},  {15, 14}};

std::string chain_module(std::size_t groups) {
  std::string body = "  p = f32[210] parameter(0)\n";
  std::string previous = "p";
  std::size_t k = 0;
  for (std::size_t g = 0; g < groups; ++g) {
    const auto [s0, s1] = k_groups.at(g);
    body += fmt::format("  r{} = f32[{},{}] reshape({})\n", k, s0, s1, previous);
    body += fmt::format("  r{} = f32[{},{}] transpose(r{}), dimensions={{1,0}}\n", k + 1, s1, s0, k);
    body += fmt::format("  r{} = f32[{},{}] reverse(r{}), dimensions={{0}}\n", k + 2, s1, s0, k + 1);
    previous = fmt::format("r{}", k + 2);
    k += 3;
  }
  body += fmt::format("  ROOT r{} = f32[210] reshape({})\n", k, previous);
  return fmt::format(
      "HloModule chain\nfused {{\n{}}}\nENTRY e {{\n  p = f32[210] parameter(0)\n"
      "  ROOT f = f32[210] fusion(p), kind=kLoop, calls=fused\n}}\n",
      body);
}

// The element of p that output element `o` of the chain of `groups` groups holds, from the ops' semantics.
std::int64_t source(std::int64_t o, std::size_t groups) {
  std::int64_t linear = o;  // row-major reshapes keep the linear index
  for (std::size_t g = groups; g-- > 0;) {
    const auto [s0, s1] = k_groups.at(g);
    const std::int64_t a = linear / s0, b = linear % s0;  // in [s1, s0], after the reverse
    linear = b * s1 + (s1 - 1 - a);                       // before it, transposed back: (b, s1 - 1 - a) in [s0, s1]
  }
  return linear;
}

test::Relation chain_relation(std::size_t groups) {
  test::Relation r;
  for (std::int64_t o = 0; o < 210; ++o) r.insert({{o}, {source(o, groups)}});
  return r;
}

}  // namespace

TEST_CASE("composition caps: a short chain stays exact, a long one is the approximate fallback both ways",
          "[complexity][bruteforce]") {
  for (std::size_t groups : {std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    const std::string text = chain_module(groups);
    INFO(text);
    const auto modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    indexing::AnalysisOptions options;
    options.time_limit_per_instruction = 0;  // no clock: only the caps stop the walk
    indexing::IndexingAnalysis analysis(m, options);
    const indexing::InstructionIndexing maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
    const test::Relation exact = chain_relation(groups);
    test::Relation forward, backward;
    bool approximate = false;
    for (const IndexingMap& map : maps.output_to_input.at(0).at(0)) {
      REQUIRE(map.is_defined());
      approximate = approximate || map.approximate();
      // The fallback says which bound stopped the composition.
      if (map.approximate()) CHECK_THAT(map.approximation_reason(), Catch::Contains("a composed map past the caps"));
      const test::Relation one = test::relation_of(map);
      forward.insert(one.begin(), one.end());
    }
    for (const IndexingMap& map : maps.input_to_output.at(0).at(0)) {
      REQUIRE(map.is_defined());
      approximate = approximate || map.approximate();
      const test::Relation one = test::relation_of(map);
      backward.insert(one.begin(), one.end());
    }
    if (groups <= 3) {
      CHECK_FALSE(approximate);
      CHECK(forward == exact);
      CHECK(backward == test::inverse(exact));
    } else {
      // Past the caps: every element of p for every output element, either way round.
      CHECK(approximate);
      CHECK(forward.size() == 210 * 210);
      CHECK(backward.size() == 210 * 210);
      for (const auto& pair : exact) {
        CHECK(forward.contains(pair));
        CHECK(backward.contains({pair.second, pair.first}));
      }
    }
  }
}

}  // namespace test_indexing_map_complexity_cases

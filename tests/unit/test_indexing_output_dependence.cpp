// The fallback past the composition bounds (indexing/ops/output_dependence): the
// parameter elements an output of a called computation may depend on, each
// read whole at every output index. Checked by enumeration against the
// dependence written down from the ops' semantics, and on a conditional whose
// branch runs a while reading more state elements than a walk may compose
// (which was UNDEFINED before): every map there is approximate and, together,
// they read every element the branch's output can depend on.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/ops/output_dependence.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "simplify/expr.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_output_dependence_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;

using test::relation_of;

Relation relation_of(const MapSet& set) {
  Relation out;
  for (const IndexingMap& m : set) {
    CHECK(m.approximate());
    const Relation one = relation_of(m);
    out.insert(one.begin(), one.end());
  }
  return out;
}

// Every output point of `out_size` elements reads every point of each (element, size) of `reads`
// (element -1: an array parameter, no element named).
Relation whole_reads(std::int64_t out_size, const std::vector<std::pair<std::int64_t, std::int64_t>>& reads) {
  Relation out;
  for (std::int64_t o = 0; o < out_size; ++o)
    for (const auto& [element, size] : reads)
      for (std::int64_t x = 0; x < size; ++x) out.insert({Point{o}, element < 0 ? Point{x} : Point{element, x}});
  return out;
}

std::uint32_t computation_named(const hlo::Module& m, std::string_view name) {
  const std::uint32_t c = m.find_computation(name);
  REQUIRE(c != hlo::k_none);
  return c;
}

}  // namespace

TEST_CASE("output dependence: by tuple element, through a while's body and condition", "[output-dependence]") {
  // Element 0 of the loop changes each iteration (it reads itself), element 1 is passed on,
  // element 2 is passed on but decides how often the body runs, element 3 is never read.
  const std::string text = R"(HloModule m
body {
  s = (f32[3], f32[4], f32[2], f32[5]) parameter(0)
  e0 = f32[3] get-tuple-element(s), index=0
  e1 = f32[4] get-tuple-element(s), index=1
  e2 = f32[2] get-tuple-element(s), index=2
  e3 = f32[5] get-tuple-element(s), index=3
  twice = f32[3] add(e0, e0)
  ROOT next = (f32[3], f32[4], f32[2], f32[5]) tuple(twice, e1, e2, e3)
}
condition {
  s = (f32[3], f32[4], f32[2], f32[5]) parameter(0)
  e2 = f32[2] get-tuple-element(s), index=2
  first = f32[1] slice(e2), slice={[0:1]}
  scalar = f32[] reshape(first)
  zero = f32[] constant(0)
  ROOT more = pred[] compare(scalar, zero), direction=GT
}
callee {
  p0 = (f32[3], f32[4], f32[2], f32[5], f32[6]) parameter(0)
  p1 = f32[3] parameter(1)
  a = f32[3] get-tuple-element(p0), index=0
  b = f32[4] get-tuple-element(p0), index=1
  c = f32[2] get-tuple-element(p0), index=2
  d = f32[5] get-tuple-element(p0), index=3
  init = (f32[3], f32[4], f32[2], f32[5]) tuple(a, b, c, d)
  w = (f32[3], f32[4], f32[2], f32[5]) while(init), condition=condition, body=body
  out0 = f32[3] get-tuple-element(w), index=0
  out1 = f32[4] get-tuple-element(w), index=1
  sum = f32[3] add(p1, p1)
  ROOT r = (f32[3], f32[4], f32[3]) tuple(out0, out1, sum)
}
ENTRY e {
  x = (f32[3], f32[4], f32[2], f32[5], f32[6]) parameter(0)
  y = f32[3] parameter(1)
  ROOT call = (f32[3], f32[4], f32[3]) call(x, y), to_apply=callee
}
)";
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  const std::uint32_t callee = computation_named(m, "callee");
  indexing::OutputDependence dependence(m);

  // Output 0 changes with the loop: its own element and the one the condition reads.
  std::vector<MapSet> sets = dependence.maps(callee, 0, "a test");
  REQUIRE(sets.size() == 2);
  CHECK(relation_of(sets[0]) == whole_reads(3, {{0, 3}, {2, 2}}));
  CHECK(sets[1].empty());
  // Every fallback map is approximate and says why.
  for (const IndexingMap& map : sets[0]) {
    CHECK(map.approximate());
    CHECK(map.approximation_reason() == "a test");
  }
  // Output 1 is passed on by the loop: that element only, however often the body runs.
  sets = dependence.maps(callee, 1, "a test");
  CHECK(relation_of(sets[0]) == whole_reads(4, {{1, 4}}));
  CHECK(sets[1].empty());
  // Output 2 reads the array parameter only.
  sets = dependence.maps(callee, 2, "a test");
  CHECK(sets[0].empty());
  CHECK(relation_of(sets[1]) == whole_reads(3, {{-1, 3}}));
}

TEST_CASE("output dependence: a call's elements and an op reading a whole tuple", "[output-dependence]") {
  const std::string text = R"(HloModule m
inner {
  q = (f32[2], f32[3]) parameter(0)
  ROOT second = f32[3] get-tuple-element(q), index=1
}
callee {
  p0 = (f32[2], f32[3]) parameter(0)
  p1 = (f32[4], f32[5]) parameter(1)
  via_call = f32[3] call(p0), to_apply=inner
  whole = (f32[4], f32[5]) opt-barrier(p1)
  five = f32[5] get-tuple-element(whole), index=1
  ROOT r = (f32[3], f32[5]) tuple(via_call, five)
}
ENTRY e {
  x = (f32[2], f32[3]) parameter(0)
  y = (f32[4], f32[5]) parameter(1)
  ROOT call = (f32[3], f32[5]) call(x, y), to_apply=callee
}
)";
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  indexing::OutputDependence dependence(m);
  const std::uint32_t callee = computation_named(m, "callee");
  // Through the call: the element its computation reads.
  std::vector<MapSet> sets = dependence.maps(callee, 0, "a test");
  CHECK(relation_of(sets[0]) == whole_reads(3, {{1, 3}}));
  CHECK(sets[1].empty());
  // An op this dependence does not follow by element reads every element of its operand.
  sets = dependence.maps(callee, 1, "a test");
  CHECK(sets[0].empty());
  CHECK(relation_of(sets[1]) == whole_reads(5, {{0, 4}, {1, 5}}));
}

TEST_CASE("output dependence: by nested tuple leaf, through a while with a nested state", "[output-dependence]") {
  // The leaves of ((f32[3], f32[4]), f32[2]): 0 changes each iteration, 1 is passed on (through a
  // nested get-tuple-element and tuple), 2 decides how often the body runs.
  const std::string text = R"(HloModule m
body {
  s = ((f32[3], f32[4]), f32[2]) parameter(0)
  in = (f32[3], f32[4]) get-tuple-element(s), index=0
  a = f32[3] get-tuple-element(in), index=0
  b = f32[4] get-tuple-element(in), index=1
  c = f32[2] get-tuple-element(s), index=1
  twice = f32[3] add(a, a)
  t = (f32[3], f32[4]) tuple(twice, b)
  ROOT next = ((f32[3], f32[4]), f32[2]) tuple(t, c)
}
condition {
  s = ((f32[3], f32[4]), f32[2]) parameter(0)
  c = f32[2] get-tuple-element(s), index=1
  first = f32[1] slice(c), slice={[0:1]}
  scalar = f32[] reshape(first)
  zero = f32[] constant(0)
  ROOT more = pred[] compare(scalar, zero), direction=GT
}
callee {
  p0 = ((f32[3], f32[4]), f32[2]) parameter(0)
  p1 = (f32[5], (f32[6], f32[7])) parameter(1)
  w = ((f32[3], f32[4]), f32[2]) while(p0), condition=condition, body=body
  wi = (f32[3], f32[4]) get-tuple-element(w), index=0
  z = (f32[6], f32[7]) get-tuple-element(p1), index=1
  seven = f32[7] get-tuple-element(z), index=1
  ROOT r = ((f32[3], f32[4]), f32[7]) tuple(wi, seven)
}
ENTRY e {
  x = ((f32[3], f32[4]), f32[2]) parameter(0)
  y = (f32[5], (f32[6], f32[7])) parameter(1)
  ROOT call = ((f32[3], f32[4]), f32[7]) call(x, y), to_apply=callee
}
)";
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  indexing::OutputDependence dependence(m);
  const std::uint32_t callee = computation_named(m, "callee");
  // Leaf {0,0}: its own state leaf and the one the condition reads.
  std::vector<MapSet> sets = dependence.maps(callee, 0, "a test");
  REQUIRE(sets.size() == 2);
  CHECK(relation_of(sets[0]) == whole_reads(3, {{0, 3}, {2, 2}}));
  CHECK(sets[1].empty());
  // Leaf {0,1}: passed on, that leaf only.
  sets = dependence.maps(callee, 1, "a test");
  CHECK(relation_of(sets[0]) == whole_reads(4, {{1, 4}}));
  CHECK(sets[1].empty());
  // Leaf {1}: leaf 2 of p1, f32[7] at {1,1}.
  sets = dependence.maps(callee, 2, "a test");
  CHECK(sets[0].empty());
  CHECK(relation_of(sets[1]) == whole_reads(7, {{2, 7}}));
}

TEST_CASE("a while in a conditional's branch reading more state than a walk composes: approximate, not UNDEFINED",
          "[output-dependence]") {
  // Every element of the state reads the next one each iteration, so output 0 of the loop may
  // depend on all of them: more than k_max_while_reads_per_walk.
  constexpr std::size_t k_elements = indexing::k_max_while_reads_per_walk + 6;
  std::string state = "(";
  for (std::size_t k = 0; k < k_elements; ++k) state += (k ? ", " : "") + std::string("f32[2]");
  state += ")";
  std::string body = fmt::format("body {{\n  s = {} parameter(0)\n", state);
  for (std::size_t k = 0; k < k_elements; ++k)
    body += fmt::format("  g{} = f32[2] get-tuple-element(s), index={}\n", k, k);
  std::string next;
  for (std::size_t k = 0; k < k_elements; ++k) {
    body += fmt::format("  n{} = f32[2] add(g{}, g{})\n", k, k, (k + 1) % k_elements);
    next += fmt::format("{}n{}", k ? ", " : "", k);
  }
  body += fmt::format("  ROOT next = {} tuple({})\n}}\n", state, next);
  const std::string text = fmt::format(
      "HloModule m\n{}"
      "condition {{\n  s = {} parameter(0)\n  ROOT more = pred[] constant(true)\n}}\n"
      "looping {{\n  s = {} parameter(0)\n  w = {} while(s), condition=condition, body=body\n"
      "  ROOT first = f32[2] get-tuple-element(w), index=0\n}}\n"
      "passing {{\n  s = {} parameter(0)\n  ROOT first = f32[2] get-tuple-element(s), index=0\n}}\n"
      "ENTRY e {{\n  which = s32[] parameter(0)\n  x = {} parameter(1)\n"
      "  ROOT r = f32[2] conditional(which, x, x), branch_computations={{looping, passing}}\n}}\n",
      body, state, state, state, state, state);
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  indexing::IndexingAnalysis analysis(m, {});
  const hlo::Computation& entry = m.computations[m.entry];
  const std::vector<MapSet> sets = analysis.output_to_input(m.entry, entry.root, 0);
  REQUIRE(sets.size() == 3);
  // Branch 0 (operand 1): every element of the state, whole, when the selector picks it.
  std::set<std::int64_t> elements;
  for (const IndexingMap& map : sets[1]) {
    INFO(map.undefined_reason());
    REQUIRE(map.is_defined());
    CHECK(map.approximate());
    REQUIRE_FALSE(map.results().empty());
    REQUIRE(map.results().front().is_constant());
    elements.insert(map.results().front().constant_value());
    // Every element of that tuple element, for every output index.
    REQUIRE(map.results().size() == 2);
    const simplify::Interval read = map.domain().bounds(map.results()[1].variable());
    CHECK(read.lo == 0);
    CHECK(read.hi == 1);
  }
  CHECK(elements.size() == k_elements);
  // Branch 1 (operand 2) passes element 0 on: exact.
  for (const IndexingMap& map : sets[2]) {
    REQUIRE(map.is_defined());
    CHECK_FALSE(map.approximate());
  }
}

}  // namespace test_indexing_output_dependence_cases

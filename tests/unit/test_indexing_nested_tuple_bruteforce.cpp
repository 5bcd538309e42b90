// Brute-force checks of nested tuples: random computations that build tuples
// of tuples, take them apart with get-tuple-element, pass them through
// opt-barrier and reverse some arrays, called on a nested tuple parameter and
// an array parameter (fixed seeds).
//
// The expected maps come from evaluating the computation on symbolic values,
// independently of indexing/: every array is some leaf of a parameter,
// possibly reversed. The call's outputs must be its result's array leaves in
// depth-first order (tuple_leaves.hpp), and each output's maps, enumerated
// point by point, exactly the relation to the leaf it is: into the tuple
// parameter with the leaf number as first result, into the array parameter
// directly, nothing into the other; operand -> output maps from the array
// parameter exactly the inverse, and from the tuple parameter (which has no
// index space of its own) UNDEFINED wherever the output reads it.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_nested_tuple_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using test::Point;
using test::Relation;

// A value of the computation: a tuple of values, or an array f32[size] that
// is leaf `leaf` of parameter `parameter` (reversed or not).
struct Value {
  bool tuple = false;
  std::vector<Value> elements;
  std::size_t parameter = 0, leaf = 0;
  std::int64_t size = 1;
  bool reversed = false;
};

std::string shape_text(const Value& v) {
  if (!v.tuple) return fmt::format("f32[{}]", v.size);
  std::string text = "(";
  for (std::size_t k = 0; k < v.elements.size(); ++k) text += (k > 0 ? ", " : "") + shape_text(v.elements[k]);
  return text + ")";
}

void leaves(const Value& v, std::vector<const Value*>& out) {
  if (!v.tuple) {
    out.push_back(&v);
    return;
  }
  for (const Value& e : v.elements) leaves(e, out);
}

// A random nested tuple of arrays, numbered as leaves of `parameter` from `next_leaf`.
Value random_tuple(test::Rng& rng, std::size_t parameter, std::size_t& next_leaf, int depth) {
  Value v;
  v.tuple = true;
  const std::int64_t n = rng.uniform(1, 3);
  for (std::int64_t k = 0; k < n; ++k) {
    if (depth < 2 && rng.chance(40)) {
      v.elements.push_back(random_tuple(rng, parameter, next_leaf, depth + 1));
    } else {
      Value a;
      a.parameter = parameter;
      a.leaf = next_leaf++;
      a.size = rng.uniform(1, 4);
      v.elements.push_back(a);
    }
  }
  return v;
}

Relation union_of(const MapSet& set) {
  Relation out;
  for (const IndexingMap& m : set) {
    if (m.is_known_empty()) continue;
    const Relation one = test::relation_of(m);
    out.insert(one.begin(), one.end());
  }
  return out;
}

}  // namespace

TEST_CASE("nested tuples: a call's outputs are its result's leaves, each the leaf it passes on",
          "[op-bruteforce][tuple]") {
  test::Rng rng(2701);
  for (int round = 0; round < 60; ++round) {
    std::size_t next_leaf = 0;
    const Value p0 = random_tuple(rng, 0, next_leaf, 0);
    Value p1;
    p1.parameter = 1;
    p1.size = rng.uniform(1, 4);
    std::vector<std::pair<std::string, Value>> values{{"p0", p0}, {"p1", p1}};
    std::string body = fmt::format("  p0 = {} parameter(0)\n  p1 = {} parameter(1)\n", shape_text(p0), shape_text(p1));
    auto pick = [&](bool want_tuple) -> const std::pair<std::string, Value>* {
      std::vector<std::size_t> fit;
      for (std::size_t k = 0; k < values.size(); ++k)
        if (values[k].second.tuple == want_tuple && (!want_tuple || !values[k].second.elements.empty()))
          fit.push_back(k);
      return fit.empty() ? nullptr : &values[fit[rng.index(fit.size())]];
    };
    for (int step = 0; step < 8; ++step) {
      const std::string name = fmt::format("v{}", step);
      Value v;
      std::string op;
      switch (rng.uniform(0, 3)) {
        case 0: {  // a tuple of 1..3 values
          v.tuple = true;
          std::vector<std::string> names;
          for (std::int64_t k = rng.uniform(1, 3); k > 0; --k) {
            const auto& [n, e] = values[rng.index(values.size())];
            names.push_back(n);
            v.elements.push_back(e);
          }
          op = fmt::format("tuple({})", fmt::join(names, ", "));
          break;
        }
        case 1: {  // get-tuple-element
          const auto* t = pick(true);
          if (t == nullptr) continue;
          const std::size_t index = rng.index(t->second.elements.size());
          v = t->second.elements[index];
          op = fmt::format("get-tuple-element({}), index={}", t->first, index);
          break;
        }
        case 2: {  // reverse an array
          const auto* a = pick(false);
          v = a->second;
          v.reversed = !v.reversed;
          op = fmt::format("reverse({}), dimensions={{0}}", a->first);
          break;
        }
        default: {  // opt-barrier passes every leaf on
          const auto* t = pick(true);
          if (t == nullptr) continue;
          v = t->second;
          op = fmt::format("opt-barrier({})", t->first);
          break;
        }
      }
      body += fmt::format("  {} = {} {}\n", name, shape_text(v), op);
      values.emplace_back(name, v);
    }
    // The root: a tuple of the last value and one more.
    const auto& second = values[rng.index(values.size())];
    Value root;
    root.tuple = true;
    root.elements = {values.back().second, second.second};
    body += fmt::format("  ROOT r = {} tuple({}, {})\n", shape_text(root), values.back().first, second.first);
    const std::string text = fmt::format(
        "HloModule m\nbody {{\n{}}}\nENTRY e {{\n  x0 = {} parameter(0)\n  x1 = {} parameter(1)\n"
        "  ROOT c = {} call(x0, x1), to_apply=body\n}}\n",
        body, shape_text(p0), shape_text(p1), shape_text(root));
    INFO(text);
    const std::vector<hlo::Module> modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    const hlo::Computation& c = m.computations[m.entry];
    indexing::IndexingAnalysis analysis(m, {});
    const indexing::InstructionIndexing maps = analysis.analyze(m.entry, c.root, true, true);
    std::vector<const Value*> outputs;
    leaves(root, outputs);
    REQUIRE(maps.output_to_input.size() == outputs.size());
    REQUIRE(indexing::leaf_count(m.shape_of(c.instructions[c.root])) == outputs.size());
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      INFO("output " << k);
      const Value& out = *outputs[k];
      Relation expected;
      for (std::int64_t x = 0; x < out.size; ++x) {
        const std::int64_t at = out.reversed ? out.size - 1 - x : x;
        if (out.parameter == 0)
          expected.insert({{x}, {static_cast<std::int64_t>(out.leaf), at}});
        else
          expected.insert({{x}, {at}});
      }
      REQUIRE(maps.output_to_input[k].size() == 2);
      const MapSet& read = maps.output_to_input[k][out.parameter];
      for (const IndexingMap& map : read) {
        REQUIRE(map.is_defined());
        CHECK(!map.approximate());
      }
      CHECK(union_of(read) == expected);
      CHECK(union_of(maps.output_to_input[k][1 - out.parameter]).empty());
      // Operand -> output: the inverse from the array parameter; from the tuple, the dependence
      // fallback (the leaf in the first dimension), approximate and holding every true pair.
      const indexing::MapRow no_sets(2);
      const indexing::MapRow& forward =
          k < maps.input_to_output.size() && !maps.input_to_output[k].empty() ? maps.input_to_output[k] : no_sets;
      if (out.parameter == 1) {
        CHECK(union_of(forward[1]) == test::inverse(expected));
      } else {
        for (const IndexingMap& map : forward[0]) {
          REQUIRE(map.is_defined());
          CHECK(map.approximate());
        }
        const Relation from_tuple = union_of(forward[0]);
        for (const auto& pair : test::inverse(expected)) CHECK(from_tuple.count(pair) == 1);
        CHECK(forward[1].empty());
      }
    }
  }
}

}  // namespace test_indexing_nested_tuple_bruteforce_cases

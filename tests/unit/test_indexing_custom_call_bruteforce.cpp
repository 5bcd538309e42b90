// Brute-force checks of the custom-call maps that do not come from a fixed
// GPU library (test_indexing_gpu_library_bruteforce.cpp has those): the
// whole-operand fallback of a target without known semantics, pass-through
// annotations, the MHLO dynamic ops, PadToStatic, PartialReduce, the
// tridiagonal solver, Shardy sharding rules, Transformer Engine's fused
// attention in its layouts, and FP8 GEMM scale tensors; random small shapes
// (fixed seeds).
//
// For each case the expected relation (output element -> operand element) is
// written down from the op's semantics as a predicate, independently of
// indexing/: a Shardy rule's factor values are decomposed from each index
// here, an attention element's batch, row, head and group are read off the
// layout's dimension order. The maps of the root, enumerated point by point,
// must be exactly that relation where they claim to be exact, a superset
// where marked approximate (and approximate exactly where the semantics
// leave the reads open), and the operand -> output maps exactly the inverse
// of the maps' relation.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_custom_call_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;
using Reads = std::function<bool(std::size_t k, const Point& out, std::size_t j, const Point& in)>;
using test::all_points;

struct SetRelation {
  Relation pairs;
  bool approximate = false;
  std::string reason;
};

SetRelation relation_of(const MapSet& set) {
  SetRelation r;
  for (const IndexingMap& map : set) {
    REQUIRE_FALSE(map.is_undefined());
    REQUIRE(map.runtime_count() == 0);
    if (map.approximate()) {
      r.approximate = true;
      r.reason = map.approximation_reason();
    }
    if (map.is_known_empty()) continue;
    const Relation one = test::relation_of_any_runtime(map);
    r.pairs.insert(one.begin(), one.end());
  }
  return r;
}

Relation inverse(const Relation& r) {
  Relation out;
  for (const auto& [a, b] : r) out.insert({b, a});
  return out;
}

std::string shape_text(const std::string& type, const Point& dims) {
  return fmt::format("{}[{}]", type, fmt::join(dims, ","));
}

Point dims_of(const hlo::Shape& s) { return s.dims; }

// How the maps of (output k, operand j) must relate to the expected reads.
enum class Claim { kExact, kApproximate, kEither };

// The maps of the root of `text`'s entry computation, both directions.
struct AnalysedRoot {
  std::vector<hlo::Module> modules;
  indexing::InstructionIndexing maps;
};

AnalysedRoot analyse_root(const std::string& text) {
  INFO(text);
  AnalysedRoot out{test::parse_ok(text), {}};
  const hlo::Module& m = out.modules[0];
  indexing::IndexingAnalysis analysis(m, {});
  out.maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
  return out;
}

// Checks the root of `text`'s entry computation against `reads`; `claim(k, j)`
// says whether those maps must be exact or approximate. Returns the reasons of
// the approximate maps seen.
std::set<std::string> check_root(const std::string& text, const Reads& reads,
                                 const std::function<Claim(std::size_t, std::size_t)>& claim) {
  INFO(text);
  const AnalysedRoot analysed = analyse_root(text);
  const hlo::Module& m = analysed.modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  const hlo::Instruction& root = c.instructions[c.root];
  const indexing::InstructionIndexing& maps = analysed.maps;
  const hlo::Shape& shape = m.shape_of(root);
  const std::size_t outputs = shape.is_tuple ? shape.elements.size() : 1;
  const auto operands = c.operands_of(root);
  std::set<std::string> reasons;
  for (std::size_t k = 0; k < outputs; ++k) {
    const Point out_dims = dims_of(shape.is_tuple ? shape.elements[k] : shape);
    for (std::size_t j = 0; j < operands.size(); ++j) {
      INFO("output " << k << ", operand " << j);
      const Point in_dims = dims_of(m.shape_of(c.instructions[operands[j]]));
      Relation expected;
      for (const Point& o : all_points(out_dims))
        for (const Point& i : all_points(in_dims))
          if (reads(k, o, j, i)) expected.insert({o, i});
      const SetRelation actual = relation_of(maps.output_to_input.at(k).at(j));
      if (actual.approximate) reasons.insert(actual.reason);
      switch (claim(k, j)) {
        case Claim::kExact:
          CHECK_FALSE(actual.approximate);
          CHECK(actual.pairs == expected);
          break;
        case Claim::kApproximate:
          CHECK(actual.approximate);
          for (const auto& pair : expected) CHECK(actual.pairs.count(pair) == 1);
          break;
        case Claim::kEither:
          if (actual.approximate) {
            for (const auto& pair : expected) CHECK(actual.pairs.count(pair) == 1);
          } else {
            CHECK(actual.pairs == expected);
          }
          break;
      }
      const auto& row = maps.input_to_output.at(k);
      const SetRelation fed = relation_of(j < row.size() ? row[j] : MapSet{});
      CHECK(fed.pairs == inverse(actual.pairs));
      CHECK(fed.approximate == actual.approximate);
    }
  }
  return reasons;
}

std::vector<std::int64_t> random_dims(test::Rng& rng, std::size_t rank, std::int64_t max) {
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < rank; ++i) dims.push_back(rng.uniform(1, max));
  return dims;
}

std::string module(const std::string& params, const std::string& root) {
  return fmt::format("HloModule m\nENTRY e {{\n{}  ROOT r = {}\n}}\n", params, root);
}

Claim exact(std::size_t, std::size_t) { return Claim::kExact; }
Claim approximate(std::size_t, std::size_t) { return Claim::kApproximate; }

}  // namespace

TEST_CASE("custom-call: a target without known semantics reads every operand element, approximate",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1801);
  for (int round = 0; round < 12; ++round) {
    const Point a = random_dims(rng, static_cast<std::size_t>(rng.uniform(0, 2)), 3);
    const Point b = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 2)), 3);
    const Point o = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 2)), 3);
    // Unknown targets, and known ones whose operands do not fit their semantics.
    const char* const calls[] = {"custom_call_target=\"my_kernel\"", "custom_call_target=\"CustomSPMDPartitioning\"",
                                 "custom_call_target=\"annotate_device_placement\""};
    const std::string call = calls[round % 3];
    const std::string text = module(
        fmt::format("  a = {} parameter(0)\n  b = {} parameter(1)\n", shape_text("f32", a), shape_text("s32", b)),
        fmt::format("({}, {}) custom-call(a, b), {}", shape_text("f32", o), shape_text("f32", b), call));
    const auto reasons = check_root(
        text, [](std::size_t, const Point&, std::size_t, const Point&) { return true; }, approximate);
    REQUIRE(reasons.size() == 1);
    const std::string& why = *reasons.begin();
    CHECK(why.find("every element may be read") != std::string::npos);
    if (round % 3 == 0) CHECK(why == "custom-call target my_kernel has no known semantics: every element may be read");
    if (round % 3 == 2) CHECK(why.find("custom-call target annotate_device_placement, ") != std::string::npos);
  }
}

TEST_CASE("custom-call: pass-through annotations are the identity, elementwise targets elementwise",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1802);
  const char* const identities[] = {"annotate_device_placement", "Pin", "PinToDevice", "PinToDeviceSram", "Unpin"};
  for (const char* target : identities) {
    const Point d = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 3)), 3);
    const std::string s = shape_text("f32", d);
    check_root(
        module(fmt::format("  x = {} parameter(0)\n", s),
               fmt::format("{} custom-call(x), custom_call_target=\"{}\", "
                           "frontend_attributes={{_xla_buffer_placement=\"pinned_host\"}}",
                           s, target)),
        [](std::size_t, const Point& o, std::size_t, const Point& i) { return o == i; }, exact);
  }
  const char* const elementwise[] = {"xla_builder.math.NextAfter", "RandomGammaGrad"};
  for (const char* target : elementwise) {
    const Point d = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 3)), 3);
    const std::string s = shape_text("f32", d);
    check_root(
        module(fmt::format("  x = {0} parameter(0)\n  y = {0} parameter(1)\n", s),
               fmt::format("{} custom-call(x, y), custom_call_target=\"{}\"", s, target)),
        [](std::size_t, const Point& o, std::size_t, const Point& i) { return o == i; }, exact);
  }
}

TEST_CASE("custom-call PadToStatic: the data at its index, nothing for the sizes", "[op-bruteforce][custom-call]") {
  test::Rng rng(1803);
  for (int round = 0; round < 8; ++round) {
    const Point d = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 2)), 4);
    const bool dynamic = round % 2 == 1;
    std::string operand = "f32[";
    for (std::size_t i = 0; i < d.size(); ++i)
      operand += fmt::format("{}{}{}", i ? "," : "", dynamic ? "<=" : "", d[i]);
    operand += "]";
    std::vector<std::string> results{shape_text("f32", d)};
    for (std::size_t i = 0; i < d.size(); ++i) results.emplace_back("s32[]");
    const std::string result = fmt::format("({})", fmt::join(results, ", "));
    check_root(
        module(fmt::format("  x = {} parameter(0)\n", operand),
               fmt::format("{} custom-call(x), custom_call_target=\"PadToStatic\"", result)),
        [](std::size_t k, const Point& o, std::size_t, const Point& i) { return k == 0 && o == i; },
        [&](std::size_t k, std::size_t) { return k == 0 && dynamic ? Claim::kApproximate : Claim::kExact; });
  }
}

TEST_CASE("custom-call mhlo.dynamic_broadcast_in_dim, dynamic_reshape and real_dynamic_slice",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1804);
  for (int round = 0; round < 20; ++round) {
    // broadcast_in_dim: operand dimension i is output dimension dims[i], expanded when of size 1.
    const std::size_t out_rank = static_cast<std::size_t>(rng.uniform(1, 3));
    const Point out = random_dims(rng, out_rank, 3);
    Point dims, in;
    for (std::size_t d = 0; d < out_rank; ++d) {
      if (!rng.chance(60)) continue;
      dims.push_back(static_cast<std::int64_t>(d));
      in.push_back(rng.chance(30) ? 1 : out[d]);
    }
    const std::string config = round % 2 == 0 ? fmt::format("[{}]", fmt::join(dims, ", "))
                                              : fmt::format("array<i64: {}>", fmt::join(dims, ", "));
    check_root(
        module(fmt::format("  x = {} parameter(0)\n  s = s64[{}] parameter(1)\n", shape_text("f32", in), out_rank),
               fmt::format("{} custom-call(x, s), custom_call_target=\"mhlo.dynamic_broadcast_in_dim\", "
                           "backend_config={{broadcast_dimensions = {}}}",
                           shape_text("f32", out), config)),
        [&](std::size_t, const Point& o, std::size_t j, const Point& i) {
          if (j == 1) return true;
          for (std::size_t k = 0; k < i.size(); ++k)
            if (i[k] != (in[k] == 1 ? 0 : o[static_cast<std::size_t>(dims[k])])) return false;
          return true;
        },
        exact);
  }
  for (int round = 0; round < 10; ++round) {
    // A static reshape: the same row-major position.
    Point out = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 3)), 3);
    std::int64_t n = 1;
    for (std::int64_t x : out) n *= x;
    const Point in = {n};
    auto linear = [](const Point& p, const Point& shape) {
      std::int64_t v = 0;
      for (std::size_t k = 0; k < p.size(); ++k) v = v * shape[k] + p[k];
      return v;
    };
    check_root(
        module(
            fmt::format("  x = {} parameter(0)\n  s = s32[{}] parameter(1)\n", shape_text("f32", in), out.size()),
            fmt::format("{} custom-call(x, s), custom_call_target=\"mhlo.dynamic_reshape\"", shape_text("f32", out))),
        [&](std::size_t, const Point& o, std::size_t j, const Point& i) { return j == 1 || linear(o, out) == i[0]; },
        exact);
  }
  for (int round = 0; round < 12; ++round) {
    // real_dynamic_slice: every start and stride that fit; a full-size dimension starts at 0, stride 1.
    const Point in = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 2)), 4);
    Point out;
    for (std::int64_t x : in) out.push_back(rng.uniform(1, x));
    const bool full = out == in;
    const std::string r = std::to_string(in.size());
    check_root(
        module(fmt::format("  x = {} parameter(0)\n  a = s32[{}] parameter(1)\n  b = s32[{}] parameter(2)\n"
                           "  c = s32[{}] parameter(3)\n",
                           shape_text("f32", in), r, r, r),
               fmt::format("{} custom-call(x, a, b, c), custom_call_target=\"mhlo.real_dynamic_slice\"",
                           shape_text("f32", out))),
        [&](std::size_t, const Point& o, std::size_t j, const Point& i) {
          if (j > 0) return true;
          for (std::size_t d = 0; d < in.size(); ++d) {
            bool some = false;  // some start and stride put o[d] at i[d]
            for (std::int64_t start = 0; start < in[d] && !some; ++start)
              for (std::int64_t stride = 1; stride <= in[d] && !some; ++stride)
                some = start + (out[d] - 1) * stride < in[d] && start + o[d] * stride == i[d];
            if (!some) return false;
          }
          return true;
        },
        [&](std::size_t, std::size_t j) { return j == 0 && !full ? Claim::kApproximate : Claim::kExact; });
  }
}

TEST_CASE("custom-call PartialReduce and TridiagonalSolver: the reduced dimension, the system's column",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1805);
  for (int round = 0; round < 8; ++round) {
    const Point in = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 3)), 4);
    const std::size_t r = static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(in.size()) - 1));
    Point out = in;
    out[r] = rng.uniform(1, in[r]);
    const std::string text = module(
        fmt::format(
            "  x = {} parameter(0)\n  i = {} parameter(1)\n  a = f32[] parameter(2)\n  b = s32[] parameter(3)\n",
            shape_text("f32", in), shape_text("s32", in)),
        fmt::format("({}, {}) custom-call(x, i, a, b), custom_call_target=\"PartialReduce\", "
                    "backend_config={{\"log2_reduction\": 1, \"reduction_dim\": {}, \"to_apply_type\": \"comparator\", "
                    "\"top_k\": 2, \"recall_target\": 0.95}}",
                    shape_text("f32", out), shape_text("s32", out), r));
    check_root(
        text,
        [&](std::size_t, const Point& o, std::size_t j, const Point& i) {
          if (j >= 2) return true;
          for (std::size_t d = 0; d < o.size(); ++d)
            if (d != r && o[d] != i[d]) return false;
          return true;
        },
        approximate);
  }
  for (int round = 0; round < 8; ++round) {
    const Point batch = random_dims(rng, static_cast<std::size_t>(rng.uniform(0, 1)), 2);
    const std::int64_t m = rng.uniform(1, 4), columns = rng.uniform(1, 3);
    const bool four = round % 2 == 0, equations_last = rng.chance(50) && columns != m;
    Point rhs = batch, diagonal = batch;
    rhs.push_back(equations_last ? columns : m);
    rhs.push_back(equations_last ? m : columns);
    diagonal.push_back(four ? 1 : 3);
    diagonal.push_back(m);
    const std::size_t b = batch.size();
    std::string params, operands;
    const std::size_t n = four ? 4 : 2;
    for (std::size_t k = 0; k + 1 < n; ++k) {
      params += fmt::format("  d{} = {} parameter({})\n", k, shape_text("f32", diagonal), k);
      operands += fmt::format("d{}, ", k);
    }
    params += fmt::format("  y = {} parameter({})\n", shape_text("f32", rhs), n - 1);
    const bool ambiguous = columns == m;
    check_root(
        module(params, fmt::format("{} custom-call({}y), custom_call_target=\"xla_builder.tridiagonal."
                                   "TridiagonalSolver\"",
                                   shape_text("f32", rhs), operands)),
        [&](std::size_t, const Point& o, std::size_t j, const Point& i) {
          for (std::size_t d = 0; d < b; ++d)
            if (o[d] != i[d]) return false;
          if (j + 1 < n || ambiguous) return true;
          // The same right-hand side: equal in the dimension that is not the equations'.
          const std::size_t column = equations_last ? b : b + 1;
          return o[column] == i[column];
        },
        approximate);
  }
}

namespace {

// A random Shardy rule over random factors: the rule's text and, for each
// tensor, its dimensions' factors.
struct RandomRule {
  std::vector<std::string> names;
  std::vector<std::int64_t> sizes;
  std::vector<std::vector<std::vector<std::size_t>>> operands, results;  // tensor, dimension, factors
  std::set<std::size_t> special;
  std::string text;
};

std::string factor_name(std::size_t f) {
  return f < 18 ? std::string(1, static_cast<char>('i' + f)) : "z_" + std::to_string(f - 17);
}

std::vector<std::vector<std::size_t>> random_tensor(test::Rng& rng, std::size_t factors) {
  // Each factor at most once; some dimensions of two factors.
  std::vector<std::size_t> pick;
  for (std::size_t f = 0; f < factors; ++f)
    if (rng.chance(60)) pick.push_back(f);
  for (std::size_t i = pick.size(); i > 1; --i)
    std::swap(pick[i - 1], pick[static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(i) - 1))]);
  std::vector<std::vector<std::size_t>> dims;
  for (std::size_t i = 0; i < pick.size(); ++i) {
    if (!dims.empty() && dims.back().size() == 1 && rng.chance(25)) {
      dims.back().push_back(pick[i]);
    } else {
      dims.push_back({pick[i]});
    }
  }
  return dims;
}

std::string tensor_text(const RandomRule& r, const std::vector<std::vector<std::size_t>>& t) {
  std::vector<std::string> dims;
  for (const auto& d : t) {
    std::string s;
    for (std::size_t f : d) s += r.names[f];
    dims.push_back(s);
  }
  return fmt::format("[{}]", fmt::join(dims, ", "));
}

Point tensor_dims(const RandomRule& r, const std::vector<std::vector<std::size_t>>& t) {
  Point dims;
  for (const auto& d : t) {
    std::int64_t n = 1;
    for (std::size_t f : d) n *= r.sizes[f];
    dims.push_back(n);
  }
  return dims;
}

// Factor values of an index: factor -> value.
std::map<std::size_t, std::int64_t> factor_values(const RandomRule& r, const std::vector<std::vector<std::size_t>>& t,
                                                  const Point& index) {
  std::map<std::size_t, std::int64_t> v;
  for (std::size_t d = 0; d < t.size(); ++d) {
    std::int64_t x = index[d];
    for (std::size_t k = t[d].size(); k-- > 0;) {
      v[t[d][k]] = x % r.sizes[t[d][k]];
      x /= r.sizes[t[d][k]];
    }
  }
  return v;
}

RandomRule random_rule(test::Rng& rng) {
  RandomRule r;
  const std::size_t factors = static_cast<std::size_t>(rng.uniform(1, 4));
  for (std::size_t f = 0; f < factors; ++f) {
    r.names.push_back(factor_name(f));
    r.sizes.push_back(rng.uniform(1, 3));
  }
  const std::size_t operands = static_cast<std::size_t>(rng.uniform(1, 2));
  const std::size_t results = static_cast<std::size_t>(rng.uniform(1, 2));
  for (std::size_t j = 0; j < operands; ++j) r.operands.push_back(random_tensor(rng, factors));
  for (std::size_t k = 0; k < results; ++k) r.results.push_back(random_tensor(rng, factors));
  std::vector<std::string> ops, res, sizes;
  for (const auto& t : r.operands) ops.push_back(tensor_text(r, t));
  for (const auto& t : r.results) res.push_back(tensor_text(r, t));
  for (std::size_t f = 0; f < factors; ++f) sizes.push_back(fmt::format("{}={}", r.names[f], r.sizes[f]));
  std::string special;
  if (rng.chance(30)) {
    const std::size_t f = static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(factors) - 1));
    r.special.insert(f);
    const char* const kinds[] = {"reduction", "need_replication", "permutation"};
    special = fmt::format(" {}={{{}}}", kinds[rng.uniform(0, 2)], r.names[f]);
  }
  r.text = fmt::format("#sdy.op_sharding_rule<({})->({}) {{{}}}{}{}>", fmt::join(ops, ", "), fmt::join(res, ", "),
                       fmt::join(sizes, ", "), special, rng.chance(50) ? ", custom" : "");
  return r;
}

}  // namespace

TEST_CASE("custom-call with a Shardy sharding rule: the shared factors at the output's values, the others all",
          "[op-bruteforce][custom-call][shardy]") {
  test::Rng rng(1806);
  int exact_maps = 0, approximate_maps = 0;
  for (int round = 0; round < 60; ++round) {
    const RandomRule rule = random_rule(rng);
    std::string params, operands;
    for (std::size_t j = 0; j < rule.operands.size(); ++j) {
      params += fmt::format("  p{} = {} parameter({})\n", j, shape_text("f32", tensor_dims(rule, rule.operands[j])), j);
      operands += fmt::format("{}p{}", j ? ", " : "", j);
    }
    std::vector<std::string> results;
    for (const auto& t : rule.results) results.push_back(shape_text("f32", tensor_dims(rule, t)));
    const std::string result = results.size() == 1 ? results[0] : fmt::format("({})", fmt::join(results, ", "));
    const std::string text =
        module(params, fmt::format("{} custom-call({}), custom_call_target=\"CustomSPMDPartitioning\", "
                                   "frontend_attributes={{num_batch_dims=\"0\",xla.sdy.sharding_rule=\"{}\"}}",
                                   result, operands, rule.text));
    auto shared = [&](std::size_t k, std::size_t f) {
      if (rule.special.count(f) != 0) return false;
      for (const auto& d : rule.results[k])
        for (std::size_t g : d)
          if (g == f) return true;
      return false;
    };
    check_root(
        text,
        [&](std::size_t k, const Point& o, std::size_t j, const Point& i) {
          const auto ov = factor_values(rule, rule.results[k], o), iv = factor_values(rule, rule.operands[j], i);
          for (const auto& [f, value] : iv)
            if (shared(k, f) && ov.at(f) != value) return false;
          return true;
        },
        [&](std::size_t k, std::size_t j) {
          // Exact when each operand factor of more than one value is shared.
          for (const auto& d : rule.operands[j])
            for (std::size_t f : d)
              if (!shared(k, f) && rule.sizes[f] > 1) {
                ++approximate_maps;
                return Claim::kApproximate;
              }
          ++exact_maps;
          return Claim::kExact;
        });
  }
  CHECK(exact_maps > 10);
  CHECK(approximate_maps > 10);
}

TEST_CASE("custom-call with a Shardy sharding rule: the LAPACK form, and rules that do not fit fall back",
          "[custom-call][shardy]") {
  // A matmul-like rule: an output element reads its row of a and its column of b (j summed).
  check_root(
      module("  a = f32[2,3] parameter(0)\n  b = f32[3,4] parameter(1)\n",
             "f32[2,4] custom-call(a, b), custom_call_target=\"CustomSPMDPartitioning\", "
             "frontend_attributes={xla.sdy.sharding_rule=\"#sdy.op_sharding_rule<([i, j], [j, k])->([i, k]) "
             "{i=2, j=3, k=4} reduction={j}, custom>\"}"),
      [](std::size_t, const Point& o, std::size_t j, const Point& i) { return j == 0 ? o[0] == i[0] : o[1] == i[1]; },
      approximate);
  // A known target the call does not fit (two operands to an annotation): the rule's maps.
  check_root(
      module("  a = f32[2,3] parameter(0)\n  b = f32[3] parameter(1)\n",
             "f32[2,3] custom-call(a, b), custom_call_target=\"annotate_device_placement\", "
             "frontend_attributes={xla.sdy.sharding_rule=\"#sdy.op_sharding_rule<([i, j], [j])->([i, j]) "
             "{i=2, j=3}>\"}"),
      [](std::size_t, const Point& o, std::size_t j, const Point& i) { return j == 0 ? o == i : o[1] == i[0]; }, exact);
  // Sizes that do not multiply to the dimensions: every element, with the reason.
  const auto reasons = check_root(
      module("  a = f32[2,3] parameter(0)\n",
             "f32[2,3] custom-call(a), custom_call_target=\"CustomSPMDPartitioning\", "
             "frontend_attributes={xla.sdy.sharding_rule=\"#sdy.op_sharding_rule<([i, j])->([i, j]) {i=2, j=4}>\"}"),
      [](std::size_t, const Point&, std::size_t, const Point&) { return true; }, approximate);
  REQUIRE(reasons.size() == 1);
  CHECK(reasons.begin()->find("factor sizes that do not multiply") != std::string::npos);
}

namespace {

// Attention layouts: the order of (b, s, h, d) in q-format and kv-format tensors (-1: no batch),
// the dimension of the slot in a packed tensor (-1: none), and what is packed: 3 (q, k and v in
// operand 0), 2 (k and v in operand 1) or nothing.
struct Layout {
  int value;
  std::array<int, 4> q, kv;
  int q_slot = -1, kv_slot = -1, pack = 0;
};

const Layout k_layouts[] = {
    {4, {1, 0, 2, 3}, {1, 0, 2, 3}},
    {9, {0, 1, 2, 3}, {0, 1, 2, 3}},
    {14, {0, 1, 2, 3}, {0, 1, 2, 3}},
    {14, {-1, 0, 1, 2}, {-1, 0, 1, 2}},
    {15, {1, 0, 2, 3}, {0, 1, 2, 3}},
    {16, {0, 1, 2, 3}, {1, 0, 2, 3}},
    {17, {-1, 0, 1, 2}, {0, 1, 2, 3}},
    {25, {0, 2, 1, 3}, {0, 2, 1, 3}},
    {0, {1, 0, 3, 4}, {1, 0, 3, 4}, 2, 2, 3},      // SB3HD
    {1, {1, 0, 2, 4}, {1, 0, 2, 4}, 3, 3, 3},      // SBH3D
    {2, {1, 0, 2, 3}, {1, 0, 3, 4}, -1, 2, 2},     // SBHD_SB2HD
    {3, {1, 0, 2, 3}, {1, 0, 2, 4}, -1, 3, 2},     // SBHD_SBH2D
    {5, {0, 1, 3, 4}, {0, 1, 3, 4}, 2, 2, 3},      // BS3HD
    {6, {0, 1, 2, 4}, {0, 1, 2, 4}, 3, 3, 3},      // BSH3D
    {7, {0, 1, 2, 3}, {0, 1, 3, 4}, -1, 2, 2},     // BSHD_BS2HD
    {8, {0, 1, 2, 3}, {0, 1, 2, 4}, -1, 3, 2},     // BSHD_BSH2D
    {10, {-1, 0, 2, 3}, {-1, 0, 2, 3}, 1, 1, 3},   // T3HD as [t, 3, h, d]
    {10, {0, 1, 3, 4}, {0, 1, 3, 4}, 2, 2, 3},     // T3HD as JAX's [b, s, 3, h, d]
    {11, {-1, 0, 1, 3}, {-1, 0, 1, 3}, 2, 2, 3},   // TH3D
    {12, {-1, 0, 1, 2}, {-1, 0, 2, 3}, -1, 1, 2},  // THD_T2HD
    {13, {0, 1, 2, 3}, {0, 1, 2, 4}, -1, 3, 2},    // THD_TH2D as JAX's arrays
};

Point arrange(const std::array<int, 4>& at, const std::array<std::int64_t, 4>& sizes, int slot = -1,
              std::int64_t slots = 1) {
  Point out((at[0] < 0 ? 3 : 4) + (slot >= 0 ? 1 : 0));
  for (std::size_t r = 0; r < 4; ++r)
    if (at[r] >= 0) out[static_cast<std::size_t>(at[r])] = sizes[r];
  if (slot >= 0) out[static_cast<std::size_t>(slot)] = slots;
  return out;
}

// The dimensions without the slot's.
std::array<int, 4> unpacked(std::array<int, 4> at, int slot) {
  if (slot >= 0)
    for (int& a : at)
      if (a > slot) --a;
  return at;
}

std::int64_t role(const std::array<int, 4>& at, const Point& p, std::size_t r) {
  return at[r] < 0 ? -1 : p[static_cast<std::size_t>(at[r])];
}

// One of q, k and v: the operand it is in, its dimensions, its slot there.
struct Logical {
  char which;
  std::size_t operand;
  std::array<int, 4> at;
  int slot_dim;
  std::int64_t slot;
};

}  // namespace

TEST_CASE("Transformer Engine fused attention in every documented layout: query rows and key groups",
          "[op-bruteforce][custom-call][attention]") {
  test::Rng rng(1807);
  for (const Layout& layout : k_layouts) {
    for (int round = 0; round < 2; ++round) {
      INFO("qkv_layout " << layout.value);
      const std::int64_t b = rng.uniform(1, 2);
      std::int64_t t = rng.uniform(1, 3), g = rng.uniform(1, 2), s = rng.uniform(1, 3);
      const std::int64_t h = g * rng.uniform(1, 2), d = rng.uniform(1, 2);
      std::int64_t dv = rng.uniform(1, 2);
      if (layout.pack == 3) {  // one tensor: as many rows and heads
        t = s;
        g = h;
      }
      if (layout.pack != 0) dv = d;
      // THD's softmax_aux may be [b, s, h, 1] too: as many rows as heads would not say which.
      const bool thd = (layout.value >= 10 && layout.value <= 14) || layout.value == 17;
      if (thd && s == h) {
        s += 1;
        if (layout.pack == 3) t = s;
      }
      std::vector<Point> operands;
      std::vector<Logical> logical;
      const Point none{0};
      if (layout.pack == 3) {
        operands = {arrange(layout.q, {b, s, h, d}, layout.q_slot, 3), none, none};
        logical = {{'q', 0, layout.q, layout.q_slot, 0},
                   {'k', 0, layout.q, layout.q_slot, 1},
                   {'v', 0, layout.q, layout.q_slot, 2}};
      } else if (layout.pack == 2) {
        operands = {arrange(layout.q, {b, s, h, d}), arrange(layout.kv, {b, t, g, d}, layout.kv_slot, 2), none};
        logical = {
            {'q', 0, layout.q, -1, 0}, {'k', 1, layout.kv, layout.kv_slot, 0}, {'v', 1, layout.kv, layout.kv_slot, 1}};
      } else {
        operands = {arrange(layout.q, {b, s, h, d}), arrange(layout.kv, {b, t, g, d}),
                    arrange(layout.kv, {b, t, g, dv})};
        logical = {{'q', 0, layout.q, -1, 0}, {'k', 1, layout.kv, -1, 0}, {'v', 2, layout.kv, -1, 0}};
      }
      const std::array<int, 4> out_at = unpacked(layout.q, layout.q_slot);
      const Point out = arrange(out_at, {b, s, h, dv});
      const bool batch = layout.q[0] >= 0;
      const Point aux = batch ? Point{b, h, s, 1} : Point{h, s, 1};
      const std::string text = module(
          fmt::format(
              "  q = {} parameter(0)\n  k = {} parameter(1)\n  v = {} parameter(2)\n  bias = f32[0] parameter(3)\n"
              "  seed = u32[2] parameter(4)\n",
              shape_text("f32", operands[0]), shape_text("f32", operands[1]), shape_text("f32", operands[2])),
          fmt::format("({}, {}, u32[2,4], u8[16]) custom-call(q, k, v, bias, seed), "
                      "custom_call_target=\"te_fused_attn_forward_ffi\", backend_config={{attn_heads = {} : i64, "
                      "qkv_layout = {} : i64, mask_type = 3 : i64}}",
                      shape_text("f32", out), shape_text("f32", aux), h, layout.value));
      const std::int64_t per_group = h / g;
      check_root(
          text,
          [&](std::size_t o_k, const Point& o, std::size_t j, const Point& i) {
            if (o_k == 3) return false;  // the workspace
            if (j >= 3) return j == 4;   // the seed, whole (rng_state is derived from it)
            if (o_k == 2) return false;
            // The output's (or aux's) batch, row and head.
            std::int64_t ob, os, oh;
            if (o_k == 0) {
              ob = role(out_at, o, 0), os = role(out_at, o, 1), oh = role(out_at, o, 2);
            } else {
              ob = batch ? o[0] : -1, oh = o[batch ? 1 : 0], os = o[batch ? 2 : 1];
            }
            for (const Logical& x : logical) {
              if (x.operand != j || (x.slot_dim >= 0 && i[static_cast<std::size_t>(x.slot_dim)] != x.slot)) continue;
              const bool same_batch = ob < 0 || x.at[0] < 0 || role(x.at, i, 0) == ob;
              if (x.which == 'q') return same_batch && role(x.at, i, 1) == os && role(x.at, i, 2) == oh;
              if (x.which == 'v' && (o_k == 1 || role(x.at, i, 3) != role(out_at, o, 3))) return false;
              return same_batch && role(x.at, i, 2) == oh / per_group;
            }
            return false;
          },
          [&](std::size_t o_k, std::size_t j) {
            if (j >= 3) return j == 4 && o_k != 3 ? Claim::kApproximate : Claim::kExact;
            if (o_k >= 2) return Claim::kExact;
            for (const Logical& x : logical)
              if (x.operand == j && (x.which != 'v' || o_k == 0)) return Claim::kApproximate;
            return Claim::kExact;
          });
    }
  }
}

TEST_CASE("FP8 GEMM: a one-element scale tensor is read at its element, a larger one whole", "[custom-call][cublas]") {
  for (const Point& scale : {Point{1}, Point{4}}) {
    const std::string text = module(
        fmt::format("  a = f8e4m3fn[4,2] parameter(0)\n  b = f8e4m3fn[2,3] parameter(1)\n  sa = {0} parameter(2)\n"
                    "  sb = {0} parameter(3)\n",
                    shape_text("f32", scale)),
        "f32[4,3] custom-call(a, b, sa, sb), custom_call_target=\"__cublas$lt$matmul$f8\", "
        "backend_config={\"gemm_backend_config\":{\"alpha_real\":1,\"beta\":0,\"dot_dimension_numbers\":{"
        "\"lhs_contracting_dimensions\":[\"1\"],\"rhs_contracting_dimensions\":[\"0\"],\"lhs_batch_dimensions\":[],"
        "\"rhs_batch_dimensions\":[]},\"epilogue\":\"DEFAULT\"}}");
    const bool one = scale[0] == 1;
    check_root(
        text,
        [](std::size_t, const Point& o, std::size_t j, const Point& i) {
          if (j == 0) return i[0] == o[0];
          if (j == 1) return i[1] == o[1];
          return true;
        },
        [&](std::size_t, std::size_t j) { return j < 2 || one ? Claim::kExact : Claim::kApproximate; });
  }
}

namespace {

// Every map of the root of `text` as (output, operand) -> relation and approximate flag.
std::map<std::pair<std::size_t, std::size_t>, std::pair<Relation, bool>> root_relations(const std::string& text) {
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  indexing::IndexingAnalysis analysis(m, {});
  const indexing::InstructionIndexing maps = analysis.analyze(m.entry, c.root, true, false);
  std::map<std::pair<std::size_t, std::size_t>, std::pair<Relation, bool>> out;
  for (std::size_t k = 0; k < maps.output_to_input.size(); ++k) {
    for (std::size_t j = 0; j < maps.output_to_input[k].size(); ++j) {
      const SetRelation r = relation_of(maps.output_to_input[k][j]);
      out[{k, j}] = {r.pairs, r.approximate};
    }
  }
  return out;
}

}  // namespace

TEST_CASE("backend_config with proto3 JSON's lowerCamelCase names reads as with the field names",
          "[custom-call][cublas][cudnn]") {
  auto conv = [](const std::string& config) {
    return "HloModule m\nENTRY e {\n  x = f32[2,3,4,4] parameter(0)\n  w = f32[3,3,3,3] parameter(1)\n"
           "  b = f32[3] parameter(2)\n  side = f32[2,3,4,4] parameter(3)\n"
           "  ROOT c = (f32[2,3,4,4], u8[0]) custom-call(x, w, b, side), window={size=3x3 pad=1_1x1_1}, "
           "dim_labels=bf01_oi01->bf01, custom_call_target=\"__cudnn$convBiasActivationForward\", backend_config=" +
           config + "\n}\n";
  };
  const auto snake = root_relations(
      conv(R"({"cudnn_conv_backend_config":{"activation_mode":"kNone","conv_result_scale":1,"side_input_scale":1}})"));
  const auto camel =
      root_relations(conv(R"({"cudnnConvBackendConfig":{"activationMode":9,"convResultScale":1,"sideInputScale":1}})"));
  CHECK(snake == camel);
  // The side input at the output's index, exactly.
  const auto& [side, approximate] = camel.at({0, 3});
  CHECK_FALSE(approximate);
  CHECK(side.size() == 2 * 3 * 4 * 4);
  for (const auto& [o, i] : side) CHECK(o == i);

  auto gemm = [](const std::string& config) {
    return "HloModule m\nENTRY e {\n  a = f32[4,2] parameter(0)\n  b = f32[2,3] parameter(1)\n"
           "  ROOT d = f32[4,3] custom-call(a, b), custom_call_target=\"__cublas$gemm\", backend_config=" +
           config + "\n}\n";
  };
  const auto gemm_snake = root_relations(gemm(R"({"gemm_backend_config":{"alpha_real":1,"beta":0,)"
                                              R"("dot_dimension_numbers":{"lhs_contracting_dimensions":["1"],)"
                                              R"("rhs_contracting_dimensions":["0"]}}})"));
  const auto gemm_camel = root_relations(gemm(R"({"gemmBackendConfig":{"alphaReal":1,"beta":0,)"
                                              R"("dotDimensionNumbers":{"lhsContractingDimensions":["1"],)"
                                              R"("rhsContractingDimensions":["0"]}}})"));
  CHECK(gemm_snake == gemm_camel);
  CHECK_FALSE(gemm_camel.at({0, 0}).second);
  CHECK(gemm_camel.at({0, 0}).first.size() == 4 * 3 * 2);
}

}  // namespace test_indexing_custom_call_bruteforce_cases

namespace test_indexing_custom_call_bruteforce_cases {

namespace {

// The one map of the root's (output 0, operand 0) in each direction, which must be exact.
std::pair<IndexingMap, IndexingMap> root_maps(const std::string& text) {
  INFO(text);
  const AnalysedRoot root = analyse_root(text);
  const indexing::InstructionIndexing& maps = root.maps;
  const MapSet& o2i = maps.output_to_input.at(0).at(0);
  const MapSet& i2o = maps.input_to_output.at(0).at(0);
  REQUIRE(o2i.size() == 1);
  REQUIRE(i2o.size() == 1);
  CHECK_FALSE(o2i[0].approximate());
  CHECK_FALSE(i2o[0].approximate());
  return {o2i[0], i2o[0]};
}

}  // namespace

TEST_CASE("custom-call SPMDFullToShardShape and SPMDShardToFullShape: each device's shard, exactly",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1809);
  for (int round = 0; round < 24; ++round) {
    const Point full = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 3)), 5);
    Point shard, shards, cut;  // cut: the dimensions with more than one shard
    for (std::size_t k = 0; k < full.size(); ++k) {
      const std::int64_t devices = rng.uniform(1, 3);
      shard.push_back((full[k] + devices - 1) / devices);
      shards.push_back((full[k] + shard[k] - 1) / shard[k]);
      if (shards[k] > 1) cut.push_back(static_cast<std::int64_t>(k));
    }
    INFO("full " << shape_text("f32", full) << ", shard " << shape_text("f32", shard));
    // The devices by shard index along the cut dimensions, and each one's reads of the full array.
    std::vector<Point> devices = all_points([&] {
      Point grid;
      for (std::int64_t k : cut) grid.push_back(shards[static_cast<std::size_t>(k)]);
      return grid;
    }());
    auto element_of = [&](const Point& device, const Point& j) {
      Point i = j;
      for (std::size_t c = 0; c < cut.size(); ++c) {
        const auto k = static_cast<std::size_t>(cut[c]);
        i[k] += device[c] * shard[k];
      }
      return i;
    };
    auto inside = [&](const Point& i) {
      for (std::size_t k = 0; k < i.size(); ++k)
        if (i[k] >= full[k]) return false;
      return true;
    };

    // FullToShard: device t's output element j is full element t * s + j; padding reads nothing.
    const auto [to_shard, from_full] = root_maps(module(fmt::format("  x = {} parameter(0)\n", shape_text("f32", full)),
                                                        fmt::format("{} custom-call(x), custom_call_target="
                                                                    "\"SPMDFullToShardShape\", sharding={{manual}}",
                                                                    shape_text("f32", shard))));
    const std::map<Point, Relation> by_device = test::relation_by_runtime(to_shard);
    const std::map<Point, Relation> fed_by_device = test::relation_by_runtime(from_full);
    for (const Point& device : devices) {
      INFO("device " << fmt::format("{}", fmt::join(device, ",")));
      Relation expected;
      for (const Point& j : all_points(shard))
        if (inside(element_of(device, j))) expected.insert({j, element_of(device, j)});
      const auto it = by_device.find(device);
      CHECK((it == by_device.end() ? Relation{} : it->second) == expected);
      const auto fed = fed_by_device.find(device);
      CHECK((fed == fed_by_device.end() ? Relation{} : fed->second) == test::inverse(expected));
    }
    for (const auto& [device, pairs] : by_device) CHECK(device.size() == cut.size());

    // ShardToFull: full element i is element i mod s of the shard with index i floordiv s, which
    // the replica id names in row-major order over the cut dimensions.
    const auto [to_full, from_shard] =
        root_maps(module(fmt::format("  x = {} parameter(0)\n", shape_text("f32", shard)),
                         fmt::format("{} custom-call(x), custom_call_target="
                                     "\"SPMDShardToFullShape\"",
                                     shape_text("f32", full))));
    std::map<std::pair<Point, Point>, Point> replica;
    const std::map<Point, Relation> gathered = test::relation_by_runtime(to_full, &replica);
    REQUIRE(gathered.size() == 1);  // no runtime variables
    Relation expected;
    std::map<std::pair<Point, Point>, Point> expected_replica;
    for (const Point& device : devices) {
      std::int64_t position = 0;
      for (std::size_t c = 0; c < cut.size(); ++c)
        position = position * shards[static_cast<std::size_t>(cut[c])] + device[c];
      for (const Point& j : all_points(shard)) {
        const Point i = element_of(device, j);
        if (!inside(i)) continue;
        expected.insert({i, j});
        expected_replica[{i, j}] = Point{position};
      }
    }
    CHECK(gathered.begin()->second == expected);
    CHECK(replica == expected_replica);
    const std::map<Point, Relation> scattered = test::relation_by_runtime(from_shard);
    REQUIRE(scattered.size() == 1);
    CHECK(scattered.begin()->second == test::inverse(expected));
  }
}

}  // namespace test_indexing_custom_call_bruteforce_cases

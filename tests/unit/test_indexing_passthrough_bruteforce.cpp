// Brute-force checks of the maps of sort, top-k, the batch norms,
// rng-bit-generator, the collectives at the same index, the tuple
// pass-through ops (opt-barrier, domain, copy-start/-done, send/recv), and
// the known custom-call targets, on random small shapes (fixed seeds).
//
// For each case the expected relation output element -> operand element is
// written down from XLA's operation semantics as a predicate ("normalized[i]
// reads x[j] when j has i's feature", ...), independently of indexing/; the
// maps of the root instruction, enumerated point by point, must be exactly
// that relation, and the operand -> output maps exactly its inverse. The
// tuple pass-through ops are checked through a call, where composition has
// to follow the tuple element each output passes on.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_set_bound.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_passthrough_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;
// Whether element `out` of output k reads element `in` of operand j.
using Reads = std::function<bool(std::size_t k, const Point& out, std::size_t j, const Point& in)>;

using test::all_points;

using test::relation_of_any_runtime;

// The pairs (domain point, result) of a set of maps without runtime variables.
Relation relation_of(const MapSet& set) {
  Relation out;
  for (const IndexingMap& map : set) {
    REQUIRE(map.runtime_count() == 0);
    const Relation one = relation_of_any_runtime(map);
    out.insert(one.begin(), one.end());
  }
  return out;
}

using test::inverse;

std::vector<std::int64_t> dims_of(const hlo::Shape& shape) { return shape.dims; }

// Checks the root of `text`'s entry computation against `reads` in both directions.
void check_root(const std::string& text, const Reads& reads) {
  INFO(text);
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  const hlo::Instruction& root = c.instructions[c.root];
  indexing::IndexingAnalysis analysis(m, {});
  const indexing::InstructionIndexing maps = analysis.analyze(m.entry, c.root, true, true);
  const hlo::Shape& shape = m.shape_of(root);
  const std::size_t outputs = shape.is_tuple ? shape.elements.size() : 1;
  const auto operands = c.operands_of(root);
  for (std::size_t k = 0; k < outputs; ++k) {
    const auto out_dims = dims_of(shape.is_tuple ? shape.elements[k] : shape);
    for (std::size_t j = 0; j < operands.size(); ++j) {
      INFO("output " << k << ", operand " << j);
      const auto in_dims = dims_of(m.shape_of(c.instructions[operands[j]]));
      Relation expected;
      for (const Point& o : all_points(out_dims)) {
        for (const Point& i : all_points(in_dims)) {
          if (reads(k, o, j, i)) expected.insert({o, i});
        }
      }
      CHECK(relation_of(maps.output_to_input.at(k).at(j)) == expected);
      // input_to_output is by output, then operand; an output no operand feeds has an empty row.
      const auto& row = maps.input_to_output.at(k);
      CHECK(relation_of(j < row.size() ? row[j] : MapSet{}) == inverse(expected));
    }
  }
}

std::string shape_text(const std::string& type, const std::vector<std::int64_t>& dims) {
  return fmt::format("{}[{}]", type, fmt::join(dims, ","));
}

std::vector<std::int64_t> random_dims(test::Rng& rng, std::size_t rank, std::int64_t max) {
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < rank; ++i) dims.push_back(rng.uniform(1, max));
  return dims;
}

// Equal outside dimension d.
bool same_except(const Point& a, const Point& b, std::size_t d) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (i != d && a[i] != b[i]) return false;
  return true;
}

const std::string k_comparator =
    "less {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n"
    "  d = s32[] parameter(3)\n  ROOT lt = pred[] compare(a, b), direction=LT\n}\n";

}  // namespace

TEST_CASE("sort: each output element reads the whole sort dimension of every operand", "[op-bruteforce][sort]") {
  test::Rng rng(1501);
  for (int round = 0; round < 30; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 3));
    const auto dims = random_dims(rng, rank, 4);
    const std::size_t d = static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(rank) - 1));
    const std::string f = shape_text("f32", dims), s = shape_text("s32", dims);
    const std::string text = fmt::format(
        "HloModule s\n{}ENTRY e {{\n  x = {} parameter(0)\n  i = {} parameter(1)\n"
        "  ROOT r = ({}, {}) sort(x, i), dimensions={{{}}}, to_apply=less\n}}\n",
        k_comparator, f, s, f, s, d);
    check_root(text, [&](std::size_t, const Point& o, std::size_t, const Point& in) { return same_except(o, in, d); });
  }
}

TEST_CASE("top-k (the op and the TopK custom-call): the whole last dimension", "[op-bruteforce][sort]") {
  test::Rng rng(1502);
  for (int round = 0; round < 20; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 2));
    auto dims = random_dims(rng, rank, 5);
    auto out = dims;
    out.back() = rng.uniform(1, dims.back());
    const std::string result = fmt::format("({}, {})", shape_text("f32", out), shape_text("s32", out));
    const std::string op = round % 2 == 0 ? fmt::format("topk(x), k={}, largest=true", out.back())
                                          : "custom-call(x), custom_call_target=\"TopK\"";
    const std::string text = fmt::format("HloModule t\nENTRY e {{\n  x = {} parameter(0)\n  ROOT r = {} {}\n}}\n",
                                         shape_text("f32", dims), result, op);
    check_root(text,
               [&](std::size_t, const Point& o, std::size_t, const Point& in) { return same_except(o, in, rank - 1); });
  }
}

TEST_CASE("batch norms: per element, per feature and per feature slice", "[op-bruteforce][batch-norm]") {
  test::Rng rng(1503);
  for (int round = 0; round < 24; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 3));
    const auto dims = random_dims(rng, rank, 3);
    const std::size_t f = static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(rank) - 1));
    const std::string x = shape_text("f32", dims), v = shape_text("f32", {dims[f]});
    const std::string attrs = fmt::format(", epsilon=0.001, feature_index={}", f);
    std::string params = fmt::format("  x = {} parameter(0)\n", x);
    for (int p = 1; p <= 4; ++p) params += fmt::format("  v{} = {} parameter({})\n", p, v, p);
    auto feature_of_data = [&](const Point& p) { return p[f]; };
    const int op = round % 3;
    std::string root;
    Reads reads;
    if (op == 0) {
      root = fmt::format("{} batch-norm-inference(x, v1, v2, v3, v4){}", x, attrs);
      reads = [&](std::size_t, const Point& o, std::size_t j, const Point& in) {
        return j == 0 ? o == in : feature_of_data(o) == in[0];
      };
    } else if (op == 1) {
      root = fmt::format("({}, {}, {}) batch-norm-training(x, v1, v2){}", x, v, v, attrs);
      reads = [&](std::size_t k, const Point& o, std::size_t j, const Point& in) {
        const std::int64_t feat = k == 0 ? feature_of_data(o) : o[0];
        if (j == 0) return feat == feature_of_data(in);  // the mean and variance of the feature
        return k == 0 && feat == in[0];                  // scale and offset only scale the normalized output
      };
    } else {
      params += fmt::format("  g = {} parameter(5)\n", x);
      root = fmt::format("({}, {}, {}) batch-norm-grad(x, v1, v2, v3, g){}", x, v, v, attrs);
      reads = [&](std::size_t k, const Point& o, std::size_t j, const Point& in) {
        const std::int64_t feat = k == 0 ? feature_of_data(o) : o[0];
        const bool data = j == 0 || j == 4;
        const bool same = data ? feat == feature_of_data(in) : feat == in[0];
        if (k == 2) return j == 4 && same;   // grad_offset: the sum of grad_output over the feature
        if (k == 1 && j == 1) return false;  // grad_scale does not depend on scale
        return same;
      };
    }
    const std::string text = fmt::format("HloModule b\nENTRY e {{\n{}  ROOT r = {}\n}}\n", params, root);
    check_root(text, reads);
  }
}

TEST_CASE("rng-bit-generator and rng: every output element reads every operand element", "[op-bruteforce]") {
  test::Rng rng(1504);
  for (int round = 0; round < 10; ++round) {
    const auto state = random_dims(rng, 1, 3);
    const auto values = random_dims(rng, static_cast<std::size_t>(rng.uniform(1, 2)), 3);
    const std::string text = fmt::format(
        "HloModule r\nENTRY e {{\n  s = {0} parameter(0)\n  ROOT r = ({0}, {1}) rng-bit-generator(s), "
        "algorithm=rng_philox\n}}\n",
        shape_text("u64", state), shape_text("u32", values));
    check_root(text, [](std::size_t, const Point&, std::size_t, const Point&) { return true; });
    const std::string uniform = fmt::format(
        "HloModule u\nENTRY e {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = {} rng(a, "
        "b), distribution=rng_uniform\n}}\n",
        shape_text("f32", values));
    check_root(uniform, [](std::size_t, const Point&, std::size_t, const Point&) { return true; });
  }
}

TEST_CASE("collectives at the same index: output k reads operand k elementwise", "[op-bruteforce][collective]") {
  test::Rng rng(1505);
  const std::string add = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n";
  for (int round = 0; round < 12; ++round) {
    const std::size_t n = static_cast<std::size_t>(rng.uniform(1, 3));
    std::string params, names, shapes;
    for (std::size_t j = 0; j < n; ++j) {
      const std::string s = shape_text("f32", random_dims(rng, static_cast<std::size_t>(rng.uniform(0, 2)), 3));
      params += fmt::format("  p{} = {} parameter({})\n", j, s, j);
      names += fmt::format("{}p{}", j ? ", " : "", j);
      shapes += fmt::format("{}{}", j ? ", " : "", s);
    }
    const std::string result = n == 1 ? shapes : fmt::format("({})", shapes);
    const std::string text = fmt::format(
        "HloModule c\n{}ENTRY e {{\n{}  ROOT r = {} all-reduce({}), replica_groups={{}}, to_apply=add\n}}\n", add,
        params, result, names);
    check_root(text, [](std::size_t k, const Point& o, std::size_t j, const Point& in) { return k == j && o == in; });
  }
  check_root(
      "HloModule p\nENTRY e {\n  x = f32[3,2] parameter(0)\n  ROOT r = f32[3,2] collective-permute(x), "
      "source_target_pairs={{0,1},{1,0}}\n}\n",
      [](std::size_t, const Point& o, std::size_t, const Point& in) { return o == in; });
}

TEST_CASE("tuple pass-through ops: a call composes through the element each output passes on",
          "[op-bruteforce][tuple]") {
  test::Rng rng(1506);
  for (int round = 0; round < 12; ++round) {
    const std::string a = shape_text("f32", random_dims(rng, 2, 3)), b = shape_text("f32", random_dims(rng, 1, 4));
    const std::string pair = fmt::format("({}, {})", a, b);
    // Swap the two elements after an opt-barrier and a domain; pass operand 0 through
    // copy-start/copy-done and a Sharding custom-call on the way.
    const std::string body = fmt::format(
        "body {{\n  p0 = {a} parameter(0)\n  p1 = {b} parameter(1)\n  cs = ({a}, {a}, u32[]) copy-start(p0)\n"
        "  cd = {a} copy-done(cs)\n  sh = {a} custom-call(cd), custom_call_target=\"Sharding\"\n"
        "  t = {p} tuple(sh, p1)\n  ob = {p} opt-barrier(t)\n"
        "  dm = {p} domain(ob), domain={{kind=\"sharding\", entry={{maximal device=0}}, exit={{}}}}\n"
        "  g0 = {a} get-tuple-element(dm), index=0\n  g1 = {b} get-tuple-element(dm), index=1\n"
        "  ROOT r = ({b}, {a}) tuple(g1, g0)\n}}\n",
        fmt::arg("a", a), fmt::arg("b", b), fmt::arg("p", pair));
    const std::string text = fmt::format(
        "HloModule t\n{body}ENTRY e {{\n  x = {a} parameter(0)\n  y = {b} parameter(1)\n"
        "  ROOT c = ({b}, {a}) call(x, y), to_apply=body\n}}\n",
        fmt::arg("body", body), fmt::arg("a", a), fmt::arg("b", b));
    check_root(text, [](std::size_t k, const Point& o, std::size_t j, const Point& in) {
      return k == 1 - j && o == in;  // output 0 is y, output 1 is x
    });
  }
}

TEST_CASE("custom-call tpu_custom_call: every element of every operand, both ways, approximate",
          "[op-bruteforce][custom-call]") {
  // A Mosaic kernel may read any element of its operand buffers (and nothing else): the maps
  // must be the full relation, marked approximate since the kernel may read less.
  const auto modules = test::parse_ok(
      "HloModule t\nENTRY e {\n  x = f32[2,3] parameter(0)\n  y = s32[4] parameter(1)\n"
      "  ROOT r = (f32[3], f32[2,2]) custom-call(x, y), custom_call_target=\"tpu_custom_call\"\n}\n");
  const hlo::Module& m = modules[0];
  indexing::IndexingAnalysis analysis(m, {});
  const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
  const std::vector<std::vector<std::int64_t>> outputs = {{3}, {2, 2}}, operands = {{2, 3}, {4}};
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    for (std::size_t j = 0; j < operands.size(); ++j) {
      Relation every;
      for (const Point& o : all_points(outputs[k]))
        for (const Point& i : all_points(operands[j])) every.insert({o, i});
      const MapSet& read = maps.output_to_input.at(k).at(j);
      REQUIRE(read.size() == 1);
      CHECK(read[0].approximate());
      CHECK(relation_of(read) == every);
      const MapSet& fed = maps.input_to_output.at(k).at(j);
      REQUIRE(fed.size() == 1);
      CHECK(fed[0].approximate());
      CHECK(relation_of(fed) == inverse(every));
    }
  }
}

namespace {

// A random scatter of one operand: its text and the pieces of its semantics.
struct RandomScatter {
  std::vector<std::int64_t> operand, updates, indices;
  std::vector<std::int64_t> update_window_dims, inserted, to_operand;
  std::vector<std::size_t> window_of;    // operand dimension -> update dimension (npos: inserted)
  std::vector<std::size_t> batch;        // update dimensions that are batch positions
  std::vector<std::size_t> batching_of;  // operand dimension -> its paired batch position (npos: none)
  std::string text;
};

RandomScatter random_scatter(test::Rng& rng) {
  RandomScatter s;
  const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 3));
  s.operand = random_dims(rng, rank, 4);
  std::vector<std::int64_t> window(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    if (rng.uniform(0, 2) == 0) {
      s.inserted.push_back(static_cast<std::int64_t>(k));
      window[k] = 1;
    } else {
      window[k] = rng.uniform(1, s.operand[k]);
    }
  }
  for (std::size_t k = 0; k < rank; ++k) {
    if (rng.uniform(0, 1) == 0 || (k + 1 == rank && s.to_operand.empty()))
      s.to_operand.push_back(static_cast<std::int64_t>(k));
  }
  // Operand batching dimensions: neither inserted nor a start's, read at their paired batch position.
  std::vector<std::int64_t> batching;
  for (std::size_t k = 0; k < rank; ++k) {
    const auto kk = static_cast<std::int64_t>(k);
    if (std::find(s.inserted.begin(), s.inserted.end(), kk) != s.inserted.end() ||
        std::find(s.to_operand.begin(), s.to_operand.end(), kk) != s.to_operand.end() || rng.uniform(0, 2) != 0)
      continue;
    batching.push_back(kk);
    window[k] = 1;
  }
  s.batching_of.assign(rank, std::string::npos);
  const std::size_t batch_rank = static_cast<std::size_t>(rng.uniform(static_cast<std::int64_t>(batching.size()), 2));
  const std::size_t window_rank = rank - s.inserted.size() - batching.size();
  // Updates: batch dimensions and window dimensions interleaved at random.
  std::vector<char> is_window(batch_rank + window_rank, 0);
  for (std::size_t w = 0; w < window_rank; ++w) is_window[w] = 1;
  for (std::size_t i = is_window.size(); i > 1; --i)
    std::swap(is_window[i - 1], is_window[static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(i) - 1))]);
  s.window_of.assign(rank, std::string::npos);
  std::size_t next_window = 0;
  std::vector<std::size_t> window_operand_dims;
  for (std::size_t k = 0; k < rank; ++k) {
    if (std::find(s.inserted.begin(), s.inserted.end(), static_cast<std::int64_t>(k)) == s.inserted.end() &&
        std::find(batching.begin(), batching.end(), static_cast<std::int64_t>(k)) == batching.end())
      window_operand_dims.push_back(k);
  }
  for (std::size_t u = 0; u < is_window.size(); ++u) {
    if (is_window[u]) {
      const std::size_t k = window_operand_dims[next_window++];
      s.update_window_dims.push_back(static_cast<std::int64_t>(u));
      s.window_of[k] = u;
      s.updates.push_back(window[k]);
    } else {
      const std::size_t q = s.batch.size();
      s.batch.push_back(u);
      std::int64_t size = rng.uniform(1, 3);
      if (q < batching.size()) {
        const auto k = static_cast<std::size_t>(batching[q]);
        size = s.operand[k];
        s.batching_of[k] = q;
      }
      s.updates.push_back(size);
      s.indices.push_back(size);
    }
  }
  // Batch position q is indices dimension q (the index vector is last).
  std::string batching_attributes;
  if (!batching.empty()) {
    std::vector<std::size_t> positions;
    positions.reserve(batching.size());
    for (std::int64_t k : batching) positions.push_back(s.batching_of[static_cast<std::size_t>(k)]);
    batching_attributes = fmt::format(", input_batching_dims={{{}}}, scatter_indices_batching_dims={{{}}}",
                                      fmt::join(batching, ","), fmt::join(positions, ","));
  }
  s.indices.push_back(static_cast<std::int64_t>(s.to_operand.size()));
  s.text = fmt::format(
      "HloModule s\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}}\n"
      "ENTRY e {{\n  o = {} parameter(0)\n  i = {} parameter(1)\n  u = {} parameter(2)\n"
      "  ROOT r = {} scatter(o, i, u), update_window_dims={{{}}}, inserted_window_dims={{{}}}{}, "
      "scatter_dims_to_operand_dims={{{}}}, index_vector_dim={}, to_apply=add\n}}\n",
      shape_text("f32", s.operand), shape_text("s32", s.indices), shape_text("f32", s.updates),
      shape_text("f32", s.operand), fmt::join(s.update_window_dims, ","), fmt::join(s.inserted, ","),
      batching_attributes, fmt::join(s.to_operand, ","), s.indices.size() - 1);
  return s;
}

// Enumerates a map whose runtime variables hold the values `value(source, point)` gives
// (none: the variable has no value there, so the point reads nothing), as (dims, result) pairs.
Relation relation_with_values(
    const IndexingMap& map,
    const std::function<std::optional<std::int64_t>(const indexing::RuntimeSource&, const Point&)>& value) {
  Relation out;
  const std::size_t nd = map.dim_count(), nr = map.range_count();
  std::vector<std::int64_t> values(nd + nr);
  std::function<void(std::size_t)> walk = [&](std::size_t v) {
    if (v == nd + nr) {
      std::vector<std::int64_t> rt;
      for (std::size_t r = 0; r < map.runtime_count(); ++r) {
        const auto& source = map.runtime_sources().at(r);
        Point at;
        simplify::VarValues here{std::span(values).subspan(0, nd), std::span(values).subspan(nd, nr), {}};
        for (const auto& e : source.map->results()) at.push_back(simplify::evaluate(e, here));
        const auto x = value(source, at);
        if (!x || !map.domain().bounds({simplify::VarKind::kRuntime, static_cast<std::uint32_t>(r)}).contains(*x))
          return;
        rt.push_back(*x);
      }
      simplify::VarValues all{std::span(values).subspan(0, nd), std::span(values).subspan(nd, nr), rt};
      for (const auto& c : map.domain().constraints())
        if (!c.interval.contains(simplify::evaluate(c.expr, all))) return;
      Point result;
      for (const auto& e : map.results()) result.push_back(simplify::evaluate(e, all));
      out.insert({Point(values.begin(), values.begin() + static_cast<long>(nd)), result});
      return;
    }
    const std::size_t kind_index = v < nd ? v : v - nd;
    const auto bounds = map.domain().bounds(
        {v < nd ? simplify::VarKind::kDim : simplify::VarKind::kRange, static_cast<std::uint32_t>(kind_index)});
    for (std::int64_t x = bounds.lo; x <= bounds.hi; ++x) {
      values[v] = x;
      walk(v + 1);
    }
  };
  walk(0);
  return out;
}

}  // namespace

TEST_CASE("scatter: the updates whose windows land, for concrete indices: operand and indices",
          "[op-bruteforce][scatter]") {
  test::Rng rng(1507);
  int exact_cases = 0, batching_cases = 0;
  for (int round = 0; round < 40; ++round) {
    const RandomScatter s = random_scatter(rng);
    if (std::any_of(s.batching_of.begin(), s.batching_of.end(), [](std::size_t q) { return q != std::string::npos; }))
      ++batching_cases;
    INFO(s.text);
    const auto modules = test::parse_ok(s.text);
    const hlo::Module& m = modules[0];
    indexing::IndexingAnalysis analysis(m, {});
    const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
    // Concrete indices: some in bounds, some out (whose windows are skipped).
    std::map<Point, std::int64_t> index_values;
    for (const Point& p : all_points(s.indices)) {
      const std::int64_t k = s.to_operand[static_cast<std::size_t>(p.back())];
      index_values[p] = rng.uniform(-1, s.operand[static_cast<std::size_t>(k)]);
    }
    // Reference: update U lands on S + W when the whole window fits.
    Relation lands;
    for (const Point& u : all_points(s.updates)) {
      Point g;
      for (std::size_t b : s.batch) g.push_back(u[b]);
      Point out(s.operand.size(), 0);
      bool fits = true;
      for (std::size_t k = 0; k < s.operand.size(); ++k) {
        if (s.batching_of[k] != std::string::npos) {
          out[k] = g[s.batching_of[k]];  // a batching dimension: its batch index
          continue;
        }
        std::int64_t start = 0;
        for (std::size_t j = 0; j < s.to_operand.size(); ++j) {
          if (static_cast<std::size_t>(s.to_operand[j]) != k) continue;
          Point at = g;
          at.push_back(static_cast<std::int64_t>(j));
          start = index_values.at(at);
        }
        const std::int64_t size = s.window_of[k] == std::string::npos ? 1 : s.updates[s.window_of[k]];
        fits = fits && start >= 0 && start + size <= s.operand[k];
        out[k] = start + (s.window_of[k] == std::string::npos ? 0 : u[s.window_of[k]]);
      }
      if (fits) lands.insert({u, out});
    }
    auto value = [&](const indexing::RuntimeSource& source, const Point& at) -> std::optional<std::int64_t> {
      const std::int64_t v = index_values.at(at);
      if (!source.feasible.contains(v)) return std::nullopt;  // an out-of-bounds window is skipped
      return v;
    };
    const auto& i2o_row = maps.input_to_output.at(0);
    REQUIRE(i2o_row.size() == 3);
    REQUIRE(i2o_row[2].size() == 1);
    CHECK(relation_with_values(i2o_row[2][0], value) == lands);
    const MapSet& read = maps.output_to_input.at(0).at(2);
    REQUIRE(read.size() == 1);
    const Relation reads = inverse(lands);
    if (read[0].approximate()) {
      // One runtime value stands for the starts of every batch position: a superset, over
      // every value the starts can take.
      Relation all;
      for (const auto& [o, u] : relation_of_any_runtime(read[0])) all.insert({o, u});
      for (const auto& pair : reads) CHECK(all.count(pair) == 1);
    } else {
      ++exact_cases;
      CHECK(relation_with_values(read[0], value) == reads);
    }
    // Every output element reads its operand element and every index.
    const auto out_points = all_points(s.operand);
    Relation identity, every_index;
    for (const Point& o : out_points) {
      identity.insert({o, o});
      for (const Point& i : all_points(s.indices)) every_index.insert({o, i});
    }
    CHECK(relation_of(maps.output_to_input[0].at(0)) == identity);
    CHECK(relation_of(maps.output_to_input[0].at(1)) == every_index);
  }
  CHECK(exact_cases > 3);
  CHECK(batching_cases > 3);
}

TEST_CASE("conditional: each branch's reads, for every selector value", "[op-bruteforce][conditional]") {
  test::Rng rng(1508);
  // Branch bodies over f32[n]: the reads of output element o of operand element i.
  struct Body {
    std::string text;  // with {n} for the size
    std::function<bool(std::int64_t o, std::int64_t i, std::int64_t n)> reads;
  };
  const std::vector<Body> bodies = {
      {"  ROOT r = f32[{n}] negate(p)", [](std::int64_t o, std::int64_t i, std::int64_t) { return o == i; }},
      {"  ROOT r = f32[{n}] reverse(p), dimensions={{0}}",
       [](std::int64_t o, std::int64_t i, std::int64_t n) { return i == n - 1 - o; }},
      {"  s = f32[1] slice(p), slice={{[0:1]}}\n  t = f32[] reshape(s)\n  ROOT r = f32[{n}] broadcast(t), "
       "dimensions={{}}",
       [](std::int64_t, std::int64_t i, std::int64_t) { return i == 0; }},
  };
  for (int round = 0; round < 16; ++round) {
    const std::int64_t n = rng.uniform(1, 4);
    const std::size_t branches = static_cast<std::size_t>(rng.uniform(1, 3));
    std::vector<std::size_t> pick;
    std::string text = "HloModule c\n", params, names, list;
    for (std::size_t b = 0; b < branches; ++b) {
      pick.push_back(static_cast<std::size_t>(rng.uniform(0, 2)));
      text += fmt::format("b{} {{\n  p = f32[{}] parameter(0)\n{}\n}}\n", b, n,
                          fmt::format(fmt::runtime(bodies[pick[b]].text), fmt::arg("n", n)));
      params += fmt::format("  x{} = f32[{}] parameter({})\n", b, n, b + 1);
      names += fmt::format(", x{}", b);
      list += fmt::format("{}b{}", b ? ", " : "", b);
    }
    text += fmt::format(
        "ENTRY e {{\n  which = s32[] parameter(0)\n{}  ROOT r = f32[{}] conditional(which{}), "
        "branch_computations={{{}}}\n}}\n",
        params, n, names, list);
    INFO(text);
    const auto modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    indexing::IndexingAnalysis analysis(m, {});
    const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
    for (std::int64_t which = -2; which <= static_cast<std::int64_t>(branches) + 1; ++which) {
      const std::size_t runs =
          which < 0 || which >= static_cast<std::int64_t>(branches) ? branches - 1 : static_cast<std::size_t>(which);
      auto value = [&](const indexing::RuntimeSource&, const Point&) -> std::optional<std::int64_t> { return which; };
      for (std::size_t b = 0; b < branches; ++b) {
        INFO("selector " << which << ", branch " << b);
        Relation expected;
        for (std::int64_t o = 0; o < n; ++o) {
          for (std::int64_t i = 0; i < n; ++i) {
            if (b == runs && bodies[pick[b]].reads(o, i, n)) expected.insert({{o}, {i}});
          }
        }
        Relation got;
        for (const IndexingMap& map : maps.output_to_input.at(0).at(b + 1)) {
          const Relation one = relation_with_values(map, value);
          got.insert(one.begin(), one.end());
        }
        CHECK(got == expected);
        Relation back;
        const auto& row = maps.input_to_output.at(0);
        for (const IndexingMap& map : row.at(b + 1)) {
          const Relation one = relation_with_values(map, value);
          back.insert(one.begin(), one.end());
        }
        CHECK(back == inverse(expected));
      }
    }
  }
}

TEST_CASE("conditional with tuple branch operands: each element's reads, for every selector value",
          "[op-bruteforce][conditional]") {
  test::Rng rng(1510);
  // Branch bodies over a tuple (f32[n], f32[n]): whether output element o reads element i of tuple element e.
  struct Body {
    std::string text;  // with {n} for the size
    std::function<bool(std::int64_t o, std::size_t e, std::int64_t i, std::int64_t n)> reads;
  };
  const std::vector<Body> bodies = {
      {"  a = f32[{n}] get-tuple-element(p), index=0\n  ROOT r = f32[{n}] negate(a)",
       [](std::int64_t o, std::size_t e, std::int64_t i, std::int64_t) { return e == 0 && o == i; }},
      {"  b = f32[{n}] get-tuple-element(p), index=1\n  ROOT r = f32[{n}] reverse(b), dimensions={{0}}",
       [](std::int64_t o, std::size_t e, std::int64_t i, std::int64_t n) { return e == 1 && i == n - 1 - o; }},
      {"  a = f32[{n}] get-tuple-element(p), index=0\n  b = f32[{n}] get-tuple-element(p), index=1\n"
       "  v = f32[{n}] reverse(b), dimensions={{0}}\n  ROOT r = f32[{n}] add(a, v)",
       [](std::int64_t o, std::size_t e, std::int64_t i, std::int64_t n) { return e == 0 ? o == i : i == n - 1 - o; }},
  };
  for (int round = 0; round < 16; ++round) {
    const std::int64_t n = rng.uniform(1, 4);
    const std::size_t branches = static_cast<std::size_t>(rng.uniform(1, 3));
    const bool pred = branches == 2 && round % 2 == 0;
    std::vector<std::size_t> pick;
    std::string text = "HloModule c\n", params, names, list;
    for (std::size_t b = 0; b < branches; ++b) {
      pick.push_back(static_cast<std::size_t>(rng.uniform(0, 2)));
      text += fmt::format("b{} {{\n  p = (f32[{}], f32[{}]) parameter(0)\n{}\n}}\n", b, n, n,
                          fmt::format(fmt::runtime(bodies[pick[b]].text), fmt::arg("n", n)));
      params += fmt::format(
          "  x{0} = f32[{1}] parameter({2})\n  y{0} = f32[{1}] parameter({3})\n"
          "  t{0} = (f32[{1}], f32[{1}]) tuple(x{0}, y{0})\n",
          b, n, 2 * b + 1, 2 * b + 2);
      names += fmt::format(", t{}", b);
      list += fmt::format("{}b{}", b ? ", " : "", b);
    }
    text += fmt::format(
        "ENTRY e {{\n  which = {} parameter(0)\n{}  ROOT r = f32[{}] conditional(which{}), "
        "branch_computations={{{}}}\n}}\n",
        pred ? "pred[]" : "s32[]", params, n, names, list);
    INFO(text);
    const auto modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    indexing::IndexingAnalysis analysis(m, {});
    const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
    const std::int64_t lowest = pred ? 0 : -2, highest = pred ? 1 : static_cast<std::int64_t>(branches) + 1;
    for (std::int64_t which = lowest; which <= highest; ++which) {
      // A pred runs branch 0 when true; an index out of range runs the last branch.
      const std::size_t runs = pred ? (which == 1 ? 0 : 1)
                               : which < 0 || which >= static_cast<std::int64_t>(branches)
                                   ? branches - 1
                                   : static_cast<std::size_t>(which);
      auto value = [&](const indexing::RuntimeSource&, const Point&) -> std::optional<std::int64_t> { return which; };
      for (std::size_t b = 0; b < branches; ++b) {
        INFO("selector " << which << ", branch " << b);
        Relation expected;  // (output element) -> (tuple element, index)
        for (std::int64_t o = 0; o < n; ++o) {
          for (std::size_t e = 0; e < 2; ++e) {
            for (std::int64_t i = 0; i < n; ++i) {
              if (b == runs && bodies[pick[b]].reads(o, e, i, n))
                expected.insert({{o}, {static_cast<std::int64_t>(e), i}});
            }
          }
        }
        Relation got;
        for (const IndexingMap& map : maps.output_to_input.at(0).at(b + 1)) {
          REQUIRE(map.is_defined());
          CHECK_FALSE(map.approximate());
          const Relation one = relation_with_values(map, value);
          got.insert(one.begin(), one.end());
        }
        CHECK(got == expected);
        // Operand -> output maps of a whole tuple are not composed: the dependence fallback, every
        // output element from each tuple element (named in the first dimension) the branch may
        // read, approximate. Sound: every read, turned around, is among its pairs.
        Relation back;
        for (const IndexingMap& map : maps.input_to_output.at(0).at(b + 1)) {
          REQUIRE(map.is_defined());
          CHECK(map.approximate());
          const Relation one = relation_of_any_runtime(map);
          back.insert(one.begin(), one.end());
        }
        for (const auto& [out, in] : expected) CHECK(back.contains({in, out}));
      }
    }
  }
}

TEST_CASE("bound_tuple_maps: bounded per element, the other elements untouched", "[bound]") {
  // Maps into a tuple (element, index): element 0 gets 5 shifted reads, element 1 one.
  MapSet set;
  auto shifted = [](std::int64_t element, std::int64_t shift) {
    IndexingMap map(simplify::Domain({simplify::Variable{{0, 3}, {}}}, {}, {}),
                    {simplify::Expr::constant(element), simplify::Expr::dim(0) + shift});
    map.mark_approximate();  // the low cap applies to sets that multiply (approximate ones)
    return map;
  };
  for (std::int64_t k = 0; k < 5; ++k) set.push_back(shifted(0, k));
  set.push_back(shifted(1, 2));
  Relation before;
  for (const IndexingMap& map : set) {
    const Relation one = relation_of_any_runtime(map);
    before.insert(one.begin(), one.end());
  }
  MapSet bounded = set;
  indexing::bound_tuple_maps(bounded, {{10}, {6}}, 3);
  REQUIRE(bounded.size() == 2);
  CHECK(bounded[0].approximate());  // element 0's five maps, at the position of the first
  CHECK(bounded[1] == set[5]);      // element 1's one map is untouched
  Relation after;
  for (const IndexingMap& map : bounded) {
    const Relation one = relation_of_any_runtime(map);
    after.insert(one.begin(), one.end());
  }
  for (const auto& pair : before) CHECK(after.count(pair) == 1);
  // Element 0's box: indices 0 .. 3 + 4 = 7, for every d0.
  CHECK(relation_of_any_runtime(bounded[0]).size() == 4 * 8);
}

TEST_CASE("bound_maps: a growing set past the cap becomes a superset of it, marked approximate", "[bound]") {
  test::Rng rng(1511);
  for (int round = 0; round < 40; ++round) {
    // Shifted windows x -> x + k (clipped to the array) over a 1-D output, some with a range variable.
    const std::int64_t n = rng.uniform(2, 6), size = rng.uniform(3, 8);
    const std::size_t count = static_cast<std::size_t>(rng.uniform(1, 6));
    MapSet set;
    for (std::size_t k = 0; k < count; ++k) {
      const std::int64_t shift = rng.uniform(0, size - 1), width = rng.uniform(1, 2);
      IndexingMap map(
          simplify::Domain({simplify::Variable{{0, n - 1}, {}}}, {simplify::Variable{{0, width - 1}, {}}}, {}),
          {simplify::Expr::dim(0) + simplify::Expr::range(0) + shift});
      map.add_constraint(simplify::Expr::dim(0) + simplify::Expr::range(0) + shift, {0, size - 1});
      if (map.is_defined()) set.push_back(std::move(map));
    }
    if (set.empty()) continue;
    const std::size_t cap = static_cast<std::size_t>(rng.uniform(1, 4));
    // Exact maps with no branch condition do not multiply: below k_max_maps_per_exact_array they stay.
    MapSet exact = set;
    indexing::bound_maps(exact, {size}, cap);
    CHECK(exact == set);
    for (IndexingMap& map : set) map.mark_approximate();
    Relation before;
    for (const IndexingMap& map : set) {
      const Relation one = relation_of_any_runtime(map);
      before.insert(one.begin(), one.end());
    }
    MapSet bounded = set;
    indexing::bound_maps(bounded, {size}, cap);
    INFO("round " << round << ", " << set.size() << " maps, cap " << cap);
    if (set.size() <= cap) {
      CHECK(bounded == set);  // under the cap: untouched
      continue;
    }
    REQUIRE(bounded.size() == 1);
    CHECK(bounded[0].approximate());
    const Relation after = relation_of_any_runtime(bounded[0]);
    for (const auto& pair : before) CHECK(after.count(pair) == 1);
    for (const auto& [out, in] : after) CHECK((in[0] >= 0 && in[0] < size));
  }
}

TEST_CASE("all-to-all and reduce-scatter: every device's reads, device by device", "[op-bruteforce][collective]") {
  test::Rng rng(1509);
  for (int round = 0; round < 12; ++round) {
    const std::int64_t group = rng.uniform(2, 4), chunk = rng.uniform(1, 3), other = rng.uniform(1, 3);
    const bool scatter = round % 2 == 1;
    // all-to-all: [other, group * chunk] -> same; reduce-scatter: [group * chunk, other] -> [chunk, other].
    const std::string text =
        scatter ? fmt::format(
                      "HloModule r\nadd {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = "
                      "f32[] add(a, b)\n}}\nENTRY e {{\n  p = f32[{},{}] parameter(0)\n  ROOT r = f32[{},{}] "
                      "reduce-scatter(p), replica_groups=[1,{}]<=[{}], dimensions={{0}}, to_apply=add\n}}\n",
                      group * chunk, other, chunk, other, group, group)
                : fmt::format(
                      "HloModule a\nENTRY e {{\n  p = f32[{0},{1}] parameter(0)\n  ROOT r = f32[{0},{1}] "
                      "all-to-all(p), replica_groups=[1,{2}]<=[{2}], dimensions={{1}}\n}}\n",
                      other, group * chunk, group);
    INFO(text);
    const auto modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    indexing::IndexingAnalysis analysis(m, {});
    const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, false);
    const MapSet& set = maps.output_to_input.at(0).at(0);
    REQUIRE(set.size() == 1);
    const IndexingMap& map = set[0];
    REQUIRE(map.runtime_count() == 1);
    const auto out_dims =
        scatter ? std::vector<std::int64_t>{chunk, other} : std::vector<std::int64_t>{other, group * chunk};
    for (std::int64_t device = 0; device < group; ++device) {
      for (const Point& x : all_points(out_dims)) {
        // The semantics: all-to-all's output x[1] = c * chunk + r holds element r + device * chunk of device c;
        // reduce-scatter's shard x reads element x[0] + device * chunk of every device.
        Point element = x;
        std::int64_t source = -1;  // -1: every device
        if (scatter) {
          element[0] = x[0] + device * chunk;
        } else {
          element[1] = x[1] % chunk + device * chunk;
          source = x[1] / chunk;
        }
        std::vector<std::int64_t> rt{device};
        simplify::VarValues at{std::span<const std::int64_t>(x), {}, std::span<const std::int64_t>(rt)};
        Point got;
        for (const auto& e : map.results()) got.push_back(simplify::evaluate(e, at));
        CHECK(got == element);
        if (source >= 0) {
          REQUIRE(map.replica_id().size() == 1);
          CHECK(simplify::evaluate(map.replica_id()[0], at) == source);
        } else {
          CHECK_FALSE(map.has_replica_id());
        }
      }
    }
  }
}

TEST_CASE("all-to-all without replica groups: every group size's reads, on every device",
          "[op-bruteforce][collective]") {
  // replica_groups={} (or none) means every replica, a count the text does not give: the maps
  // must hold the reads of every group size that divides the split dimension.
  for (const std::int64_t size : {1, 4, 6}) {
    const std::string text = fmt::format(
        "HloModule a\nENTRY e {{\n  p = f32[2,{0}] parameter(0)\n  ROOT r = f32[2,{0}] all-to-all(p), "
        "dimensions={{1}}\n}}\n",
        size);
    INFO(text);
    const auto modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    indexing::IndexingAnalysis analysis(m, {});
    const auto maps = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
    const MapSet& out2in = maps.output_to_input.at(0).at(0);
    const MapSet& in2out = maps.input_to_output.at(0).at(0);
    REQUIRE(out2in.size() == 1);
    REQUIRE(in2out.size() == 1);
    CHECK(out2in[0].approximate());
    CHECK(in2out[0].approximate());
    // (output, (element, source device)) and (element, output) for every group size and device.
    const Relation reads = relation_of_any_runtime(indexing::replica_id_as_results(out2in[0]));
    const Relation feeds = relation_of_any_runtime(in2out[0]);
    for (std::int64_t group = 1; group <= size; ++group) {
      if (size % group != 0) continue;
      const std::int64_t chunk = size / group;
      for (std::int64_t device = 0; device < group; ++device) {
        for (const Point& x : all_points({2, size})) {
          // Output x[1] = c * chunk + r holds element r + device * chunk of device c.
          const Point element{x[0], x[1] % chunk + device * chunk};
          const Point with_source{element[0], element[1], x[1] / chunk};
          CHECK(reads.count({x, with_source}) == 1);
          // Seen from device c, its element feeds output r + c' * chunk of the device it goes to.
          CHECK(feeds.count({element, x}) == 1);
        }
      }
    }
    for (const auto& [out, in] : reads) CHECK((in[1] >= 0 && in[1] < size && in[0] == out[0]));
  }
}

}  // namespace test_indexing_passthrough_bruteforce_cases

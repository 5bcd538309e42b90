// Operand utilisation: named cases with known answers, and every instruction
// of every testdata/analyze module checked against enumeration of its maps.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_utilisation_cases {

using namespace hlo_index;
using analysis::InstructionUtilisation;
using indexing::IndexingMap;

namespace {

// The utilisation of the root of `hlo`'s entry computation.
InstructionUtilisation root_utilisation(const std::string& hlo) {
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(hlo, "utilisation.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  indexing::IndexingAnalysis analysis(m, {});
  auto indexing = analysis.analyze(m.entry, c.root, true, false);
  if (c.instructions[c.root].opcode == hlo::Opcode::kFusion) {
    const analysis::FusedBody body = analysis::fused_body(m, analysis, m.entry, c.root);
    REQUIRE(body.defined());
    return analysis::utilisation(m, c, c.instructions[c.root], indexing, &body);
  }
  return analysis::utilisation(m, c, c.instructions[c.root], indexing);
}

std::string module_with(const std::string& body) {
  return "HloModule u\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
         "ENTRY e {\n" +
         body + "\n}\n";
}

// Enumerates a map's domain (range and runtime variables included; the
// intervals must be small) and collects its (domain point, result) pairs.
// An element read through an all-gather is a (element, replica) pair: the
// replica-id results follow the element's, padded with -1 to `replica_width`.
void enumerate(const IndexingMap& map, std::set<std::vector<std::int64_t>>& image, std::int64_t& pairs,
               std::size_t replica_width = 0) {
  const auto vars = map.domain().all_variables();
  std::vector<std::int64_t> values(vars.size());
  std::set<std::vector<std::int64_t>> relation;
  std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (k == vars.size()) {
      const std::size_t nd = map.dim_count(), nr = map.range_count();
      simplify::VarValues v{std::span(values).subspan(0, nd), std::span(values).subspan(nd, nr),
                            std::span(values).subspan(nd + nr)};
      for (const auto& c : map.domain().constraints())
        if (!c.interval.contains(simplify::evaluate(c.expr, v))) return;
      std::vector<std::int64_t> result;
      for (const auto& e : map.results()) result.push_back(simplify::evaluate(e, v));
      for (const auto& e : map.replica_id()) result.push_back(simplify::evaluate(e, v));
      result.resize(map.results().size() + std::max(replica_width, map.replica_id().size()), -1);
      image.insert(result);
      std::vector<std::int64_t> pair(values.begin(), values.begin() + static_cast<long>(nd));
      pair.insert(pair.end(), values.begin() + static_cast<long>(nd + nr), values.end());
      pair.insert(pair.end(), result.begin(), result.end());
      relation.insert(pair);
      return;
    }
    const auto bounds = map.domain().bounds(vars[k]);
    for (std::int64_t x = bounds.lo; x <= bounds.hi; ++x) {
      values[k] = x;
      walk(k + 1);
    }
  };
  walk(0);
  pairs += static_cast<std::int64_t>(relation.size());
}

std::int64_t box_size(const IndexingMap& map) {
  std::int64_t n = 1;
  for (const auto& v : map.domain().all_variables()) {
    n *= map.domain().bounds(v).size();
    if (n > 200000) return n;
  }
  return n;
}

}  // namespace

TEST_CASE("utilisation: slices, padding, windows, transposes and broadcasts", "[indexing][utilisation]") {
  SECTION("a slice of half the rows reads half the operand once") {
    auto u =
        root_utilisation(module_with("p = f32[8,16] parameter(0)\nROOT s = f32[4,16] slice(p), slice={[0:4], [0:16]}"));
    REQUIRE(u.operands.size() == 1);
    CHECK(u.operands[0].distinct_read.value == 64);
    CHECK(u.operands[0].utilisation() == Approx(0.5));
    CHECK(u.operands[0].multiplicity() == Approx(1.0));
    CHECK(u.operands[0].bytes_read() == 256);
    CHECK(u.bytes_written == 256);
  }
  SECTION("a strided slice reads every third element") {
    auto u = root_utilisation(module_with("p = f32[9] parameter(0)\nROOT s = f32[3] slice(p), slice={[0:9:3]}"));
    CHECK(u.operands[0].distinct_read.value == 3);
    CHECK(u.operands[0].utilisation() == Approx(1.0 / 3));
  }
  SECTION("interior padding reads the whole operand, the pad value many times") {
    auto u = root_utilisation(
        module_with("p = f32[4] parameter(0)\nz = f32[] constant(0)\nROOT q = f32[9] pad(p, z), padding=1_1_1"));
    CHECK(u.operands[0].utilisation() == Approx(1.0));
    CHECK(u.operands[0].total_reads.value == 4);
    CHECK(u.operands[1].distinct_read.value == 1);
    CHECK(u.operands[1].total_reads.value == 5);  // the 5 padding positions
  }
  SECTION("p0 + transpose(p0) reads every element twice through two maps") {
    const std::string hlo =
        "HloModule u\nf {\n  a = f32[8,8] parameter(0)\n  t = f32[8,8] transpose(a), dimensions={1,0}\n"
        "  ROOT s = f32[8,8] add(a, t)\n}\nENTRY e {\n  p = f32[8,8] parameter(0)\n"
        "  ROOT r = f32[8,8] fusion(p), kind=kLoop, calls=f\n}\n";
    auto u = root_utilisation(hlo);
    CHECK(u.operands[0].maps == 2);
    CHECK(u.operands[0].distinct_read.value == 64);
    CHECK(u.operands[0].total_reads.value == 128);
    CHECK(u.operands[0].multiplicity() == Approx(2.0));
  }
  SECTION("a broadcast reads each element once per copy") {
    auto u = root_utilisation(module_with("p = f32[16] parameter(0)\nROOT b = f32[4,16] broadcast(p), dimensions={1}"));
    CHECK(u.operands[0].multiplicity() == Approx(4.0));
    CHECK(u.operands[0].utilisation() == Approx(1.0));
  }
  SECTION("a dynamic slice reads the slice; the count is for one offset") {
    auto u =
        root_utilisation(module_with("p = f32[100,8] parameter(0)\ni = s32[] parameter(1)\nj = s32[] parameter(2)\n"
                                     "ROOT d = f32[10,8] dynamic-slice(p, i, j), dynamic_slice_sizes={10,8}"));
    CHECK(u.operands[0].depends_on_runtime);
    CHECK(u.operands[0].total_reads.value == 80);
    CHECK(u.operands[0].distinct_read.value == 80);  // at most: one execution makes 80 reads
    CHECK_FALSE(u.operands[0].distinct_read.exact);
    CHECK(u.operands[0].utilisation() == Approx(0.1));
  }
  SECTION("large tensors count in closed form") {
    auto u =
        root_utilisation(module_with("p = f32[8192,8192,128] parameter(0)\nz = f32[] constant(0)\n"
                                     "ROOT r = f32[8192,128] reduce(p, z), dimensions={0}, to_apply=add"));
    CHECK(u.operands[0].distinct_read.value == 8192LL * 8192 * 128);
    CHECK(u.operands[0].distinct_read.exact);
    CHECK(u.operands[0].multiplicity() == Approx(1.0));
    CHECK(u.operands[1].total_reads.value == 8192LL * 128);
  }
}

TEST_CASE("utilisation: a reduce-window re-reads elements", "[indexing][utilisation]") {
  const std::string hlo =
      "HloModule u\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
      "ENTRY e {\n  p = f32[1024] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[513] reduce-window(p, z), window={size=512}, to_apply=add\n}\n";
  auto u = root_utilisation(hlo);
  CHECK(u.operands[0].distinct_read.value == 1024);
  CHECK(u.operands[0].total_reads.value == 513 * 512);
  CHECK(u.operands[0].multiplicity() == Approx(513.0 * 512 / 1024));
}

TEST_CASE("utilisation: counts equal enumeration on every golden module", "[indexing][utilisation][bruteforce]") {
  const auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "analyze";
  std::size_t checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    parser::DiagnosticEngine diagnostics;
    auto modules = parser::parse_hlo_text(text.str(), entry.path().filename().string(), diagnostics);
    if (diagnostics.has_errors()) continue;  // the error cases
    for (const hlo::Module& m : modules) {
      indexing::IndexingAnalysis analysis(m, {});
      for (std::uint32_t ci = 0; ci < m.computations.size(); ++ci) {
        const hlo::Computation& c = m.computations[ci];
        for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
          auto indexing = analysis.analyze(ci, ii, true, false);
          auto u = analysis::utilisation(m, c, c.instructions[ii], indexing);
          for (const auto& op : u.operands) {
            if (!op.defined()) continue;
            std::set<std::vector<std::int64_t>> image;
            std::int64_t pairs = 0;
            bool small = true;
            std::size_t width = 0;
            for (const auto& per_output : indexing.output_to_input) {
              for (const IndexingMap& map : per_output[op.operand])
                if (map.is_defined()) width = std::max(width, map.replica_id().size());
            }
            // Outputs share their loop: a map two outputs have is one way of reading.
            std::vector<const IndexingMap*> seen;
            for (const auto& per_output : indexing.output_to_input) {
              for (const IndexingMap& map : per_output[op.operand]) {
                if (!map.is_defined()) continue;
                if (std::any_of(seen.begin(), seen.end(), [&](const IndexingMap* s) { return *s == map; })) continue;
                seen.push_back(&map);
                IndexingMap one = map;
                for (std::uint32_t r = 0; r < one.runtime_count(); ++r) {
                  simplify::Var v{simplify::VarKind::kRuntime, r};
                  one.domain().set_bounds(v, simplify::Interval::point(one.domain().bounds(v).lo));
                }
                if (box_size(one) > 200000) small = false;
                if (small) enumerate(one, image, pairs, width);
              }
            }
            if (!small) continue;
            INFO(entry.path().filename().string() << ": " << c.instructions[ii].name << " operand " << op.operand);
            if (!op.depends_on_runtime) CHECK(op.distinct_read.value == static_cast<std::int64_t>(image.size()));
            CHECK(op.total_reads.value == pairs);
            ++checked;
          }
        }
      }
    }
  }
  CHECK(checked > 200);
}

TEST_CASE("utilisation: all-gather reads (replica, element) pairs", "[indexing][utilisation][bruteforce]") {
  // Semantics: output element (i, j) of an all-gather along dimension 1 of
  // 4 replicas' f32[R,C] reads element (i, j mod C) of replica j div C.
  for (const auto& [rows, cols] : {std::pair{2, 3}, std::pair{3, 1}, std::pair{1, 5}}) {
    const std::string hlo = fmt::format(
        "HloModule u, replica_count=4\nENTRY e {{\n  p = f32[{},{}] parameter(0)\n"
        "  ROOT g = f32[{},{}] all-gather(p), replica_groups={{{{0,1,2,3}}}}, dimensions={{1}}\n}}\n",
        rows, cols, rows, 4 * cols);
    const auto u = root_utilisation(hlo);
    std::set<std::tuple<int, int, int>> read;  // (replica, row, column)
    std::int64_t reads = 0;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < 4 * cols; ++j) {
        read.insert({j / cols, i, j % cols});
        ++reads;
      }
    }
    INFO(rows << "x" << cols);
    CHECK(u.operands[0].replicas == 4);
    CHECK(u.operands[0].distinct_read.value == static_cast<std::int64_t>(read.size()));
    CHECK(u.operands[0].total_reads.value == reads);
    CHECK(u.operands[0].multiplicity() == Approx(1.0));
    CHECK(u.operands[0].utilisation() == Approx(1.0));
  }
}

TEST_CASE("utilisation: a dot over an all-gather reads each pair K times", "[indexing][utilisation][bruteforce]") {
  // dot(all-gather(p), w): output (i, n) reads gathered (i, k) for every k,
  // that is p's (i, k mod 3) on replica k div 3.
  const std::string hlo =
      "HloModule u, replica_count=4\nf {\n  a = f32[2,3] parameter(0)\n"
      "  g = f32[2,12] all-gather(a), replica_groups={{0,1,2,3}}, dimensions={1}\n"
      "  w = f32[12,5] parameter(1)\n"
      "  ROOT d = f32[2,5] dot(g, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n"
      "ENTRY e {\n  p = f32[2,3] parameter(0)\n  q = f32[12,5] parameter(1)\n"
      "  ROOT r = f32[2,5] fusion(p, q), kind=kOutput, calls=f\n}\n";
  const auto u = root_utilisation(hlo);
  std::set<std::tuple<int, int, int>> pairs_read;
  std::set<std::tuple<int, int, int, int>> reads;  // (output i, output n, replica, column)
  for (int i = 0; i < 2; ++i) {
    for (int n = 0; n < 5; ++n) {
      for (int k = 0; k < 12; ++k) {
        pairs_read.insert({k / 3, i, k % 3});
        reads.insert({i, n, k / 3, k % 3});
      }
    }
  }
  CHECK(u.operands[0].distinct_read.value == static_cast<std::int64_t>(pairs_read.size()));
  CHECK(u.operands[0].total_reads.value == static_cast<std::int64_t>(reads.size()));
  CHECK(u.operands[0].multiplicity() == Approx(5.0));  // the dot's N, not N x replicas
}

TEST_CASE("utilisation: a multi-output fusion evaluates a shared producer once",
          "[indexing][utilisation][bruteforce]") {
  // (reduce(dot(a, b)), dot(a, b)): the outputs share the loop over the dot,
  // so the dot is evaluated once per element and reads a's row K times.
  for (const auto& [m, k, n] : {std::tuple{4, 6, 5}, std::tuple{2, 3, 7}}) {
    const std::string hlo = fmt::format(
        "HloModule u\nadd {{\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, y)\n}}\n"
        "f {{\n  a = f32[{0},{1}] parameter(0)\n  b = f32[{1},{2}] parameter(1)\n"
        "  d = f32[{0},{2}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n"
        "  z = f32[] constant(0)\n  r = f32[{0}] reduce(d, z), dimensions={{1}}, to_apply=add\n"
        "  ROOT t = (f32[{0}], f32[{0},{2}]) tuple(r, d)\n}}\n"
        "ENTRY e {{\n  p = f32[{0},{1}] parameter(0)\n  q = f32[{1},{2}] parameter(1)\n"
        "  ROOT o = (f32[{0}], f32[{0},{2}]) fusion(p, q), kind=kInput, calls=f\n}}\n",
        m, k, n);
    const auto u = root_utilisation(hlo);
    // Direct evaluation: every dot element (i, j) reads a(i, l) and b(l, j) for each l, once.
    std::set<std::tuple<int, int, int>> reads_a, reads_b;
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        for (int l = 0; l < k; ++l) {
          reads_a.insert({i, j, l});
          reads_b.insert({i, j, l});
        }
      }
    }
    INFO(m << "x" << k << "x" << n);
    CHECK(u.operands[0].total_reads.value == static_cast<std::int64_t>(reads_a.size()));
    CHECK(u.operands[1].total_reads.value == static_cast<std::int64_t>(reads_b.size()));
    CHECK(u.operands[0].multiplicity() == Approx(static_cast<double>(n)));
    CHECK(u.operands[1].multiplicity() == Approx(static_cast<double>(m)));
  }
}

TEST_CASE("utilisation: a loop fusion's outputs share reads at the same loop point",
          "[indexing][utilisation][bruteforce]") {
  // (exp(p), 2 * exp(p)): both outputs read p(i, j) at loop point (i, j): one
  // way of reading, n * n reads. (exp(p), transpose(exp(p))): at loop point
  // (i, j) the outputs need p(i, j) and p(j, i): two ways of reading, each
  // counted in full (reads are summed over the ways of reading, as for
  // p + transpose(p) in one output), not once per output as before.
  for (const int n : {3, 5}) {
    const auto hlo = [n](const std::string& second) {
      return fmt::format(
          "HloModule u\nf {{\n  a = f32[{0},{0}] parameter(0)\n  e = f32[{0},{0}] exponential(a)\n{1}"
          "  ROOT t = (f32[{0},{0}], f32[{0},{0}]) tuple(e, o)\n}}\n"
          "ENTRY e {{\n  p = f32[{0},{0}] parameter(0)\n"
          "  ROOT r = (f32[{0},{0}], f32[{0},{0}]) fusion(p), kind=kLoop, calls=f\n}}\n",
          n, second);
    };
    // (way of reading, loop i, loop j, p row, p column)
    std::set<std::tuple<int, int, int, int, int>> same, transposed;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        same.insert({0, i, j, i, j});
        transposed.insert({0, i, j, i, j});
        transposed.insert({1, i, j, j, i});
      }
    }
    INFO(n);
    const auto u_same = root_utilisation(
        hlo(fmt::format("  two = f32[{0},{0}] constant(2)\n  o = f32[{0},{0}] multiply(e, two)\n", n)));
    CHECK(u_same.operands[0].total_reads.value == static_cast<std::int64_t>(same.size()));
    const auto u_transposed =
        root_utilisation(hlo(fmt::format("  o = f32[{0},{0}] transpose(e), dimensions={{1,0}}\n", n)));
    CHECK(u_transposed.operands[0].total_reads.value == static_cast<std::int64_t>(transposed.size()));
  }
}

TEST_CASE("utilisation: a tuple operand of a call or while is counted per leaf", "[indexing][utilisation]") {
  SECTION("a call that reads one leaf of two") {
    const auto u = root_utilisation(
        "HloModule u\ncallee {\n  t = (f32[4], f16[8]) parameter(0)\n  a = f32[4] get-tuple-element(t), index=0\n"
        "  ROOT r = f32[4] negate(a)\n}\n"
        "ENTRY e {\n  x = f32[4] parameter(0)\n  y = f16[8] parameter(1)\n  t = (f32[4], f16[8]) tuple(x, y)\n"
        "  ROOT c = f32[4] call(t), to_apply=callee\n}\n");
    REQUIRE(u.operands.size() == 1);
    const auto& op = u.operands[0];
    REQUIRE(op.defined());
    REQUIRE(op.leaves.size() == 2);
    CHECK(op.leaves[0].distinct_read.value == 4);
    CHECK(op.leaves[0].operand_elements == 4);
    CHECK(op.leaves[1].distinct_read.value == 0);
    CHECK(op.leaves[1].operand_elements == 8);
    CHECK(op.leaves[1].shape_index == std::vector<std::size_t>{1});
    CHECK(op.distinct_read.value == 4);
    CHECK(op.operand_elements == 12);
    CHECK(op.utilisation() == Approx(4.0 / 12));
    CHECK(op.bytes_read() == 16);  // four f32: the leaves' own element sizes
    CHECK(op.tuple);
  }
  SECTION("an empty tuple has nothing to read") {
    const auto u = root_utilisation(
        "HloModule u\ncallee {\n  t = () parameter(0)\n  ROOT r = f32[] constant(1)\n}\n"
        "ENTRY e {\n  t = () tuple()\n  ROOT c = f32[] call(t), to_apply=callee\n}\n");
    REQUIRE(u.operands.size() == 1);
    CHECK(u.operands[0].defined());
    CHECK(u.operands[0].tuple);
    CHECK(u.operands[0].leaves.empty());
    CHECK(u.operands[0].operand_elements == 0);
    CHECK(u.operands[0].bytes_read() == 0);
  }
  SECTION("a counted while reads its state leaves, each by its own element size") {
    const auto u = root_utilisation(
        "HloModule u\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
        "cond {\n  p = (s32[], f32[3], f16[5,3]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
        "  n = s32[] constant(5)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n"
        "body {\n  p = (s32[], f32[3], f16[5,3]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
        "  acc = f32[3] get-tuple-element(p), index=1\n  xs = f16[5,3] get-tuple-element(p), index=2\n"
        "  one = s32[] constant(1)\n  next = s32[] add(i, one)\n  zero = s32[] constant(0)\n"
        "  row = f16[1,3] dynamic-slice(xs, i, zero), dynamic_slice_sizes={1,3}\n"
        "  r = f16[3] reshape(row)\n  c = f32[3] convert(r)\n  sum = f32[3] add(acc, c)\n"
        "  ROOT t = (s32[], f32[3], f16[5,3]) tuple(next, sum, xs)\n}\n"
        "ENTRY e {\n  z = s32[] constant(0)\n  a0 = f32[3] parameter(0)\n  xs = f16[5,3] parameter(1)\n"
        "  init = (s32[], f32[3], f16[5,3]) tuple(z, a0, xs)\n"
        "  ROOT w = (s32[], f32[3], f16[5,3]) while(init), condition=cond, body=body\n}\n");
    REQUIRE(u.operands.size() == 1);
    const auto& op = u.operands[0];
    REQUIRE(op.defined());
    REQUIRE(op.leaves.size() == 3);
    // Every leaf is read whole: the counter, the accumulator's start, every row of xs.
    CHECK(op.leaves[0].distinct_read.value == 1);
    CHECK(op.leaves[1].distinct_read.value == 3);
    CHECK(op.leaves[2].distinct_read.value == 15);
    CHECK(op.distinct_read.value == 19);
    CHECK(op.utilisation() == Approx(1.0));
    CHECK(op.bytes_read() == 4 + 12 + 30);
    // The accumulator reads every row of xs at its column once (5 reads each), and xs passes on whole.
    CHECK(op.leaves[2].total_reads.value == 3 * 5 + 15);
    std::int64_t sum = 0;
    for (const auto& leaf : op.leaves) sum += leaf.total_reads.value;
    CHECK(op.total_reads.value == sum);
  }
  SECTION("a get-tuple-element passes a leaf on: no array is read") {
    const auto u = root_utilisation(
        module_with("p = (f32[4], f32[2]) parameter(0)\nROOT g = f32[2] get-tuple-element(p), index=1"));
    REQUIRE(u.operands.size() == 1);
    CHECK_FALSE(u.operands[0].defined());
    CHECK(u.operands[0].leaves.empty());
  }
}

TEST_CASE("utilisation: byte figures past 2^63 are exact (128 bits), not saturated") {
  // 2^62 f32 elements: 2^64 bytes read and written (was 2^63 - 1, printed as exact).
  const InstructionUtilisation u =
      root_utilisation(module_with("  p = f32[4611686018427387904] parameter(0)\n"
                                   "  ROOT n = f32[4611686018427387904] negate(p)"));
  REQUIRE(u.operands.size() == 1);
  const analysis::OperandUtilisation& op = u.operands[0];
  const simplify::Wide two_to_62 = simplify::Wide{1} << 62;
  CHECK(op.distinct_read.wide == two_to_62);
  CHECK(op.distinct_read.wide_exact);
  CHECK(simplify::to_string(op.bytes_read_wide()) == "18446744073709551616");
  CHECK(simplify::to_string(u.bytes_written_wide) == "18446744073709551616");
  // The int64 figures saturate and say they are not exact.
  CHECK(op.bytes_read() == std::numeric_limits<std::int64_t>::max());
  CHECK(op.distinct_read.exact);  // 2^62 elements fit
}

}  // namespace test_indexing_utilisation_cases

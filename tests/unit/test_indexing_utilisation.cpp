// Operand utilisation: named cases with known answers, and every instruction
// of every testdata/analyze module checked against enumeration of its maps.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "indexing/analysis/utilisation.hpp"
#include "parser/parse.hpp"

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
  return analysis::utilisation(m, c, c.instructions[c.root], indexing);
}

std::string module_with(const std::string& body) {
  return "HloModule u\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n"
         "ENTRY e {\n" +
         body + "\n}\n";
}

// Enumerates a map's domain (range and runtime variables included; the
// intervals must be small) and collects its (domain point, result) pairs.
void enumerate(const IndexingMap& map, std::set<std::vector<std::int64_t>>& image, std::int64_t& pairs) {
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
            for (const auto& per_output : indexing.output_to_input) {
              for (const IndexingMap& map : per_output[op.operand]) {
                if (!map.is_defined()) continue;
                IndexingMap one = map;
                for (std::uint32_t r = 0; r < one.runtime_count(); ++r) {
                  simplify::Var v{simplify::VarKind::kRuntime, r};
                  one.domain().set_bounds(v, simplify::Interval::point(one.domain().bounds(v).lo));
                }
                if (box_size(one) > 200000) small = false;
                if (small) enumerate(one, image, pairs);
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

// The matching and comparison of `hlo-index diff`: fusions pair across
// renumbering and reordering, repeated layers pair in program order, a
// fusion with the same structure but other maps is changed, and the
// threshold decides what is a regression.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "indexing/verdicts/dump_diff.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_dump_diff_cases {

using namespace hlo_index;
using analysis::ModuleDiff;

namespace {

// A fusion computing `op` elementwise on f32[64,128], named `name`.
std::string unary_body(const std::string& name, const std::string& op) {
  return fmt::format(
      "%{0} (p.{0}: f32[64,128]) -> f32[64,128] {{\n"
      "  %p.{0} = f32[64,128]{{1,0}} parameter(0)\n"
      "  ROOT %r.{0} = f32[64,128]{{1,0}} {1}(f32[64,128]{{1,0}} %p.{0})\n"
      "}}\n\n",
      name, op);
}

// A fusion reading rows [0, rows) of f32[1024,128].
std::string slice_body(const std::string& name, int rows) {
  return fmt::format(
      "%{0} (p.{0}: f32[1024,128]) -> f32[{1},128] {{\n"
      "  %p.{0} = f32[1024,128]{{1,0}} parameter(0)\n"
      "  ROOT %r.{0} = f32[{1},128]{{1,0}} slice(f32[1024,128]{{1,0}} %p.{0}), slice={{[0:{1}], [0:128]}}\n"
      "}}\n\n",
      name, rows);
}

ModuleDiff diff(const std::string& old_text, const std::string& new_text, double threshold = 0.05,
                std::int64_t min_bytes = 0, double min_seconds = 1) {
  auto a = test::parse_ok(old_text);
  auto b = test::parse_ok(new_text);
  analysis::SummaryRequest request;
  ModuleDiff d;
  cost::CostTotals old_totals, new_totals;
  d.old_entries = analysis::diff_entries(a.front(), request, &old_totals);
  d.new_entries = analysis::diff_entries(b.front(), request, &new_totals);
  d.old_totals.seconds = old_totals.seconds;
  d.new_totals.seconds = new_totals.seconds;
  analysis::DiffThresholds t;
  t.relative_increase = threshold;
  t.min_bytes = min_bytes;
  t.min_seconds = min_seconds;
  analysis::diff_modules(d, t);
  return d;
}

const analysis::FigureChange& figure(const std::vector<analysis::FigureChange>& figures, const std::string& name) {
  const auto it = std::find_if(figures.begin(), figures.end(),
                               [&name](const analysis::FigureChange& f) { return f.figure == name; });
  REQUIRE(it != figures.end());
  return *it;
}

// exp, negate, exp on one parameter each, in this order, with these instruction names.
std::string layers(const std::string& first, const std::string& second, const std::string& third, bool swap) {
  std::string text = "HloModule m\n\n" + unary_body("f_exp", "exponential") + unary_body("f_neg", "negate");
  const std::string a =
      fmt::format("  %{} = f32[64,128]{{1,0}} fusion(f32[64,128]{{1,0}} %x), kind=kLoop, calls=%f_exp\n", first);
  const std::string b =
      fmt::format("  %{} = f32[64,128]{{1,0}} fusion(f32[64,128]{{1,0}} %y), kind=kLoop, calls=%f_neg\n", second);
  const std::string c =
      fmt::format("  %{} = f32[64,128]{{1,0}} fusion(f32[64,128]{{1,0}} %z), kind=kLoop, calls=%f_exp\n", third);
  text +=
      "ENTRY %main (x: f32[64,128], y: f32[64,128], z: f32[64,128]) -> f32[64,128] {\n"
      "  %x = f32[64,128]{1,0} parameter(0)\n  %y = f32[64,128]{1,0} parameter(1)\n"
      "  %z = f32[64,128]{1,0} parameter(2)\n";
  text += swap ? b + a + c : a + b + c;
  text += fmt::format("  ROOT %t = (f32[64,128], f32[64,128], f32[64,128]) tuple(%{}, %{}, %{})\n}}\n", first, second,
                      third);
  return text;
}

std::string slicer(int rows) {
  return "HloModule m\n\n" + slice_body("f_slice", rows) +
         fmt::format(
             "ENTRY %main (x: f32[1024,128]) -> f32[{0},128] {{\n  %x = f32[1024,128]{{1,0}} parameter(0)\n"
             "  ROOT %s = f32[{0},128]{{1,0}} fusion(f32[1024,128]{{1,0}} %x), kind=kLoop, calls=%f_slice\n}}\n",
             rows);
}

}  // namespace

TEST_CASE("dump_diff: renamed and reordered fusions match, repeated structures in program order") {
  const ModuleDiff d = diff(layers("fusion.1", "fusion.2", "fusion.3", false),
                            layers("exp_fusion.7", "neg_fusion.5", "exp_fusion.9", true));
  CHECK(d.same());
  CHECK(d.matched == 3);
  CHECK(d.matched_by_structure == 0);  // by fingerprint, which holds no name
  CHECK_FALSE(d.regression());
}

TEST_CASE("dump_diff: a fusion whose arithmetic changed is removed and added") {
  std::string changed = layers("fusion.1", "fusion.2", "fusion.3", false);
  changed.replace(changed.find("negate"), 6, "sqrt");
  const ModuleDiff d = diff(layers("fusion.1", "fusion.2", "fusion.3", false), changed);
  REQUIRE(d.removed.size() == 1);
  REQUIRE(d.added.size() == 1);
  CHECK(d.removed[0]->row.name == "fusion.2");
  CHECK(d.added[0]->row.name == "fusion.2");
  CHECK(d.changed.empty());
}

TEST_CASE("dump_diff: the threshold decides whether more bytes read is a regression") {
  // A slice of 100 rows grown to 104 (+4%) or 110 (+10%): the output shape changes, so the fusion
  // is removed and added, and the module's totals carry the growth.
  // (No bytes floor here, and a time floor of a second: only the threshold decides.)
  const ModuleDiff small = diff(slicer(100), slicer(104));
  CHECK_FALSE(small.regression());
  CHECK(*figure(small.totals, "bytes_read").relative == Approx(0.04));
  const ModuleDiff large = diff(slicer(100), slicer(110));
  CHECK(large.regression());
  CHECK(*figure(large.totals, "bytes_read").relative == Approx(0.10));
  CHECK(figure(large.totals, "bytes_read").why.find("> 5%") != std::string::npos);
  // The same growth under a 20% threshold is no regression.
  CHECK_FALSE(diff(slicer(100), slicer(110), 0.20).regression());
  // Less read is never a regression.
  CHECK_FALSE(diff(slicer(110), slicer(100)).regression());
}

TEST_CASE("dump_diff: the floors keep small absolute changes from failing") {
  // +10% of 50 KiB is 5 KiB: beyond the threshold, under a 1 MiB floor.
  const ModuleDiff floored = diff(slicer(100), slicer(110), 0.05, std::int64_t{1} << 20);
  CHECK_FALSE(floored.regression());
  const analysis::FigureChange& read = figure(floored.totals, "bytes_read");
  CHECK_FALSE(read.regression);
  CHECK(read.why.find("but") != std::string::npos);
  CHECK(read.why.find("< 1 MiB") != std::string::npos);
  // Under a 4 KiB floor it is one.
  CHECK(diff(slicer(100), slicer(110), 0.05, 4096).regression());
}

TEST_CASE("dump_diff: a fusion split in two and two merged into one") {
  const std::string dir = std::string(HLO_INDEX_TESTDATA_DIR) + "/diff/";
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string base = read(dir + "base.hlo"), split = read(dir + "split.hlo");
  const ModuleDiff d = diff(base, split, 0.05, std::int64_t{1} << 20, 1e-6);
  REQUIRE(d.regrouped.size() == 1);
  const analysis::Regroup& g = d.regrouped[0];
  CHECK(g.split());
  CHECK(g.before[0]->row.name == "loop_fusion.11");
  REQUIRE(g.after.size() == 2);
  CHECK(d.removed.empty());
  CHECK(d.added.empty());
  // The parts' times add up to more than the whole: one more kernel, one more round trip.
  const double before = g.before[0]->row.seconds();
  const double after = g.after[0]->row.seconds() + g.after[1]->row.seconds();
  CHECK(after > before + 1e-6);
  CHECK(figure(g.figures, "time").regression);
  CHECK(g.regression());
  // The reverse is a merge, and faster: no regression.
  const ModuleDiff merged = diff(split, base, 0.05, std::int64_t{1} << 20, 1e-6);
  REQUIRE(merged.regrouped.size() == 1);
  CHECK_FALSE(merged.regrouped[0].split());
  CHECK(merged.regrouped[0].before.size() == 2);
  CHECK_FALSE(merged.regression());
}

}  // namespace test_analysis_dump_diff_cases

// The matching and comparison of `hlo-index diff`: fusions pair across
// renumbering and reordering, repeated layers pair in program order, a
// fusion with the same structure but other maps is changed, and the
// threshold decides what is a regression.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>

#include "indexing/verdicts/dump_diff.hpp"
#include "parse_helpers.hpp"

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

ModuleDiff diff(const std::string& old_text, const std::string& new_text, double threshold = 0.05) {
  auto a = test::parse_ok(old_text);
  auto b = test::parse_ok(new_text);
  analysis::SummaryRequest request;
  ModuleDiff d;
  d.old_entries = analysis::diff_entries(a.front(), request);
  d.new_entries = analysis::diff_entries(b.front(), request);
  analysis::DiffThresholds t;
  t.relative_increase = threshold;
  analysis::diff_modules(d, t);
  return d;
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
  CHECK(d.matched_by_structure == 3);  // new stems: no canonical name matches
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
  const ModuleDiff small = diff(slicer(100), slicer(104));
  CHECK_FALSE(small.regression());
  REQUIRE_FALSE(small.totals.empty());
  CHECK(small.totals[0].figure == "logical_reads");
  CHECK(*small.totals[0].relative == Approx(0.04));
  const ModuleDiff large = diff(slicer(100), slicer(110));
  CHECK(large.regression());
  CHECK(*large.totals[0].relative == Approx(0.10));
  // The same growth under a 20% threshold is no regression.
  CHECK_FALSE(diff(slicer(100), slicer(110), 0.20).regression());
  // Less read is never a regression.
  CHECK_FALSE(diff(slicer(110), slicer(100)).regression());
}

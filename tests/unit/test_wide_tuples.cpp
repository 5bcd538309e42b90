// Wide tuples (issue #28): a fusion whose root is a tuple of 5,000 slices
// gives every output's exact maps under the default work budget (layout of a
// wide tuple: tests/golden/test_layout_cli.cpp). Not timed here:
// bench/wide_tuples/run.sh measures time and memory (each was quadratic in the width).
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <string>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/map_printer.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_wide_tuples_cases {

using namespace hlo_index;

namespace {

constexpr int k_width = 5000;

// The generator of bench/wide_tuples/generate.py, for the fusion.
std::string fusion_of_slices(int n) {
  std::string tuple_shape = "(";
  std::string elements;
  for (int i = 0; i < n; ++i) {
    tuple_shape += (i > 0 ? ", " : "") + std::string("f32[1]{0}");
    elements += fmt::format("{}s{}", i > 0 ? ", " : "", i);
  }
  tuple_shape += ")";
  std::string text = fmt::format("HloModule wide\n\nfused {{\n  p = f32[{}]{{0}} parameter(0)\n", n);
  for (int i = 0; i < n; ++i) text += fmt::format("  s{0} = f32[1]{{0}} slice(p), slice={{[{0}:{1}]}}\n", i, i + 1);
  text += fmt::format("  ROOT t = {} tuple({})\n}}\n\n", tuple_shape, elements);
  text += fmt::format(
      "ENTRY main {{\n  a = f32[{}]{{0}} parameter(0)\n  ROOT f = {} fusion(a), kind=kLoop, calls=fused\n}}\n", n,
      tuple_shape);
  return text;
}

}  // namespace

TEST_CASE("wide tuples: every output of a fusion whose root is a tuple of 5,000 slices reads its own element") {
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(fusion_of_slices(k_width), "wide.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  const hlo::Module& m = modules[0];
  const hlo::Computation& entry = m.computations[m.entry];
  indexing::AnalysisOptions options;
  options.time_limit_per_instruction = 0;  // the default work budget only
  indexing::IndexingAnalysis analysis(m, options);
  const indexing::InstructionIndexing out = analysis.analyze(m.entry, entry.root, true, true);
  REQUIRE(out.output_to_input.size() == static_cast<std::size_t>(k_width));
  REQUIRE(out.input_to_output.size() == static_cast<std::size_t>(k_width));
  for (int k = 0; k < k_width; ++k) {
    const auto& sets = out.output_to_input[static_cast<std::size_t>(k)];
    REQUIRE(sets.size() == 1);
    REQUIRE(sets[0].size() == 1);
    const std::string expected =
        k == 0 ? "(d0) -> (0), domain: d0 in [0, 0]" : fmt::format("(d0) -> ({}), domain: d0 in [0, 0]", k);
    if (indexing::print_map(sets[0][0]) != expected) FAIL("output " << k << ": " << indexing::print_map(sets[0][0]));
    const auto& back = out.input_to_output[static_cast<std::size_t>(k)];
    REQUIRE(back.size() == 1);
    REQUIRE(back[0].size() == 1);
    // Operand -> output: one walk from the parameter through all 5,000 slices passes the cap of
    // 8,192 compositions per walk (k_max_compositions_per_walk), a count: the dependence fallback,
    // defined and sound, the same on every machine.
    CHECK(back[0][0].is_defined());
  }
}

TEST_CASE("wide tuples: each output of a 5,000-element tuple stores the one operand it reads") {
  // The table of an N-wide tuple was N x N sets (1.2 GB at 5,000); the rows are sparse now.
  std::string text = "HloModule wide\n\nENTRY main {\n  p = f32[16]{0} parameter(0)\n";
  std::string elements, shape = "(";
  for (int i = 0; i < k_width; ++i) {
    text += fmt::format("  s{0} = f32[1]{{0}} slice(p), slice={{[{1}:{2}]}}\n", i, i % 16, i % 16 + 1);
    elements += fmt::format("{}s{}", i > 0 ? ", " : "", i);
    shape += fmt::format("{}f32[1]{{0}}", i > 0 ? ", " : "");
  }
  text += fmt::format("  ROOT t = {}) tuple({})\n}}\n", shape, elements);
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(text, "wide.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  const hlo::Module& m = modules[0];
  indexing::IndexingAnalysis analysis(m, {});
  const indexing::InstructionIndexing out = analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
  REQUIRE(out.output_to_input.size() == static_cast<std::size_t>(k_width));
  REQUIRE(out.input_to_output.size() == static_cast<std::size_t>(k_width));
  for (std::size_t k = 0; k < out.output_to_input.size(); ++k) {
    const indexing::MapRow& row = out.output_to_input[k];
    REQUIRE(row.size() == static_cast<std::size_t>(k_width));
    REQUIRE(row.stored().size() == 1);
    REQUIRE(row.stored()[0].first == k);
    REQUIRE(indexing::print_map(row[k][0]) == "(d0) -> (0), domain: d0 in [0, 0]");
    const indexing::MapRow& back = out.input_to_output[k];
    REQUIRE(back.stored().size() == 1);
    REQUIRE(back.stored()[0].first == k);
  }
}

}  // namespace test_wide_tuples_cases

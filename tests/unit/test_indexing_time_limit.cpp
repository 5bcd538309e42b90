// The per-instruction time limit: past it an instruction's maps are the
// dependence fallback (every element of what may be read, approximate) and
// the rest of the module is analysed as without a limit.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "indexing/analysis/module_analysis.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_time_limit_cases {

using namespace hlo_index;

namespace {

const char* const k_chain = R"(HloModule chain
fused {
  p = f32[24] parameter(0)
  r0 = f32[4,6] reshape(p)
  r1 = f32[4,6] reverse(r0), dimensions={0}
  r2 = f32[2,12] reshape(r1)
  ROOT r3 = f32[24] reshape(r2)
}
ENTRY e {
  p = f32[24] parameter(0)
  f = f32[24] fusion(p), kind=kLoop, calls=fused
  ROOT n = f32[24] negate(f)
}
)";

hlo::Module parse(const char* text) {
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(text, "chain.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  return std::move(modules[0]);
}

std::uint32_t find(const hlo::Module& m, std::string_view name) {
  const hlo::Computation& c = m.computations[m.entry];
  for (std::uint32_t i = 0; i < c.instructions.size(); ++i) {
    if (c.instructions[i].name == name) return i;
  }
  FAIL("no instruction " << name);
  return 0;
}

}  // namespace

TEST_CASE("time limit: a fusion past the limit reads all it depends on (approximate), the rest is analysed") {
  const hlo::Module m = parse(k_chain);
  indexing::AnalysisOptions options;
  options.time_limit_per_instruction = 1e-9;
  analysis::ModuleAnalysis analysis(m, options);
  for (bool forward : {false, true}) {
    const indexing::InstructionIndexing fusion = analysis.indexing(m.entry, find(m, "f"), !forward, forward);
    const auto& sets = forward ? fusion.input_to_output : fusion.output_to_input;
    REQUIRE(sets.size() == 1);
    REQUIRE(sets[0].size() == 1);
    REQUIRE(sets[0][0].size() == 1);
    const indexing::IndexingMap& map = sets[0][0][0];
    REQUIRE(map.is_defined());
    CHECK(map.approximate());
    // Every element of p for every element of f, either way round, and why.
    CHECK(indexing::print_map(map) ==
          "(d0)[s0] -> (s0), domain: d0 in [0, 23], s0 in [0, 23] (approximate: whole arrays, "
          "analysis took longer than the per-instruction limit of 1e-09 s)");
  }
  const indexing::InstructionIndexing negate = analysis.indexing(m.entry, find(m, "n"), true, false);
  CHECK(indexing::print_map(negate.output_to_input.at(0).at(0).at(0)) == "(d0) -> (d0), domain: d0 in [0, 23]");
}

TEST_CASE("time limit: without a limit (0) or within it the fusion's map is exact") {
  const hlo::Module m = parse(k_chain);
  for (double limit : {0.0, 60.0}) {
    indexing::AnalysisOptions options;
    options.time_limit_per_instruction = limit;
    analysis::ModuleAnalysis analysis(m, options);
    const indexing::InstructionIndexing fusion = analysis.indexing(m.entry, find(m, "f"), true, false);
    CHECK(indexing::print_map(fusion.output_to_input.at(0).at(0).at(0)) ==
          "(d0) -> ((d0 floordiv 6) * -12 + d0 + 18), domain: d0 in [0, 23]");
  }
}

TEST_CASE("time limit: ScopedTimeLimit sets the default of options made in its scope") {
  const double before = indexing::default_time_limit_per_instruction();
  CHECK(before == indexing::k_default_time_limit_per_instruction);
  {
    indexing::ScopedTimeLimit limit(0.5);
    CHECK(indexing::AnalysisOptions{}.time_limit_per_instruction == 0.5);
  }
  CHECK(indexing::AnalysisOptions{}.time_limit_per_instruction == before);
}

TEST_CASE("time limit: an isl computation stops at the deadline, not at the operation budget") {
  // Found by timing the map parser's inputs: a chain of 40 ceildiv/mod steps makes isl work
  // on huge coefficients, where the default operation budget takes minutes to run out.
  std::string text = "(d0) -> (d0";
  for (int k = 0; k < 40; ++k) text += " ceildiv 2 * 3 mod 7";
  text += "), domain: d0 in [0, 1000000]";
  indexing::IndexingMap map = indexing::parse_map(text);
  const auto start = std::chrono::steady_clock::now();
  {
    const indexing::ScopedIslDeadline deadline(start + std::chrono::milliseconds(200));
    indexing::simplify(map);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5);
  // The deadline is gone with its scope: isl answers again.
  CHECK(indexing::print_map(indexing::parse_map("(d0) -> (d0 mod 4), domain: d0 in [0, 3]")) ==
        "(d0) -> (d0 mod 4), domain: d0 in [0, 3]");
  indexing::IndexingMap small = indexing::parse_map("(d0) -> (d0 mod 4), domain: d0 in [0, 3]");
  indexing::simplify(small);
  CHECK(indexing::print_map(small) == "(d0) -> (d0), domain: d0 in [0, 3]");
}

TEST_CASE("work budget: a fusion past the budget reads all it depends on (approximate), the rest is exact") {
  const hlo::Module m = parse(k_chain);
  indexing::AnalysisOptions options;
  options.time_limit_per_instruction = 0;
  options.work_budget_per_instruction = 1;
  analysis::ModuleAnalysis analysis(m, options);
  const indexing::InstructionIndexing fusion = analysis.indexing(m.entry, find(m, "f"), true, false);
  CHECK(indexing::print_map(fusion.output_to_input.at(0).at(0).at(0)) ==
        "(d0)[s0] -> (s0), domain: d0 in [0, 23], s0 in [0, 23] (approximate: whole arrays, analysis took more "
        "than the per-instruction work budget of 1 steps (see --work-budget-per-instruction))");
  // A single op's maps are memoised across instructions and not counted: exact under any budget.
  const indexing::InstructionIndexing negate = analysis.indexing(m.entry, find(m, "n"), true, false);
  CHECK(indexing::print_map(negate.output_to_input.at(0).at(0).at(0)) == "(d0) -> (d0), domain: d0 in [0, 23]");
}

TEST_CASE("work budget: the fusion's answer does not depend on what was analysed before it") {
  const hlo::Module m = parse(k_chain);
  // The smallest budget the fusion fits in, found on a fresh analysis...
  auto fusion_map = [&](std::uint64_t budget, bool negate_first) {
    indexing::AnalysisOptions options;
    options.time_limit_per_instruction = 0;
    options.work_budget_per_instruction = budget;
    analysis::ModuleAnalysis analysis(m, options);
    if (negate_first) analysis.indexing(m.entry, find(m, "n"), true, true);
    return indexing::print_map(analysis.indexing(m.entry, find(m, "f"), true, false).output_to_input.at(0).at(0).at(0));
  };
  const std::string exact = fusion_map(0, false);
  CHECK(exact == "(d0) -> ((d0 floordiv 6) * -12 + d0 + 18), domain: d0 in [0, 23]");
  std::uint64_t fits = 1;
  while (fusion_map(fits, false) != exact) {
    ++fits;
    REQUIRE(fits < 10000);
  }
  CHECK(fits > 1);
  // ...is the same after other instructions filled the memos, and one less is not enough either way.
  CHECK(fusion_map(fits, true) == exact);
  CHECK(fusion_map(fits - 1, true) != exact);
  CHECK(fusion_map(fits - 1, false) != exact);
}

TEST_CASE("work budget: ScopedWorkBudget sets the default of options made in its scope") {
  const std::uint64_t before = indexing::default_work_budget_per_instruction();
  CHECK(before == indexing::k_default_work_budget_per_instruction);
  {
    const indexing::ScopedWorkBudget budget(42);
    CHECK(indexing::AnalysisOptions{}.work_budget_per_instruction == 42);
  }
  CHECK(indexing::AnalysisOptions{}.work_budget_per_instruction == before);
  // No wall clock by default.
  CHECK(indexing::AnalysisOptions{}.time_limit_per_instruction == 0);
}

}  // namespace test_indexing_time_limit_cases

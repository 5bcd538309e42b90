// What ModuleAnalysis keeps between the cost model's module totals and a summary row (a fusion's
// body and its parameters' uses, the counts through a body), and the fused body composed through
// the analysis' memo of composition steps: each answer must be the one computed afresh.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cost_helpers.hpp"
#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/instruction_report.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_module_analysis_memos_cases {

using namespace hlo_index;

namespace {

// A chain of dynamic-update-slices (the pieces of the base each update leaves) and a
// multi-output fusion whose outputs read one parameter in two ways.
const std::string k_module = R"(HloModule memos

%dus_chain (p0: f32[16,32], p1: f32[4,4], p2: f32[4,4], p3: s32[], p4: s32[]) -> f32[16,32] {
  %p0 = f32[16,32]{1,0} parameter(0)
  %p1 = f32[4,4]{1,0} parameter(1)
  %p2 = f32[4,4]{1,0} parameter(2)
  %p3 = s32[] parameter(3)
  %p4 = s32[] parameter(4)
  %c8 = s32[] constant(8)
  %u0 = f32[16,32]{1,0} dynamic-update-slice(%p0, %p1, %p3, %c8)
  %u1 = f32[16,32]{1,0} dynamic-update-slice(%u0, %p2, %p4, %p3)
  ROOT %u2 = f32[16,32]{1,0} dynamic-update-slice(%u1, %p1, %c8, %p4)
}

%two_ways (q0: f32[8,8]) -> (f32[8,8], f32[8,8]) {
  %q0 = f32[8,8]{1,0} parameter(0)
  %t = f32[8,8]{1,0} transpose(%q0), dimensions={1,0}
  %n = f32[8,8]{1,0} negate(%q0)
  %a = f32[8,8]{1,0} add(%t, %n)
  ROOT %r = (f32[8,8]{1,0}, f32[8,8]{1,0}) tuple(%a, %n)
}

ENTRY %main (a: f32[16,32], b: f32[4,4], c: f32[4,4], i: s32[], j: s32[], m: f32[8,8]) -> (f32[16,32], (f32[8,8], f32[8,8])) {
  %a = f32[16,32]{1,0} parameter(0)
  %b = f32[4,4]{1,0} parameter(1)
  %c = f32[4,4]{1,0} parameter(2)
  %i = s32[] parameter(3)
  %j = s32[] parameter(4)
  %m = f32[8,8]{1,0} parameter(5)
  %chain = f32[16,32]{1,0} fusion(%a, %b, %c, %i, %j), kind=kLoop, calls=%dus_chain
  %both = (f32[8,8]{1,0}, f32[8,8]{1,0}) fusion(%m), kind=kLoop, calls=%two_ways
  ROOT %out = (f32[16,32]{1,0}, (f32[8,8]{1,0}, f32[8,8]{1,0})) tuple(%chain, %both)
}
)";

void check_same_uses(const analysis::FusedBody& a, const analysis::FusedBody& b) {
  CHECK(a.callee == b.callee);
  CHECK(a.outputs == b.outputs);
  CHECK(a.one_loop_domain == b.one_loop_domain);
  CHECK(a.undefined_reason == b.undefined_reason);
  REQUIRE(a.parameter_uses.size() == b.parameter_uses.size());
  for (std::size_t p = 0; p < a.parameter_uses.size(); ++p) {
    REQUIRE(a.parameter_uses[p].size() == b.parameter_uses[p].size());
    for (std::size_t u = 0; u < a.parameter_uses[p].size(); ++u) {
      CHECK(a.parameter_uses[p][u].user == b.parameter_uses[p][u].user);
      CHECK(a.parameter_uses[p][u].position == b.parameter_uses[p][u].position);
      CHECK(a.parameter_uses[p][u].maps == b.parameter_uses[p][u].maps);
    }
  }
}

void check_same_counts(const analysis::InstructionUtilisation& a, const analysis::InstructionUtilisation& b) {
  CHECK(a.output_elements == b.output_elements);
  CHECK(a.bytes_written == b.bytes_written);
  REQUIRE(a.operands.size() == b.operands.size());
  for (std::size_t j = 0; j < a.operands.size(); ++j) {
    CHECK(a.operands[j].distinct_read.value == b.operands[j].distinct_read.value);
    CHECK(a.operands[j].total_reads.value == b.operands[j].total_reads.value);
    CHECK(a.operands[j].maps == b.operands[j].maps);
  }
}

}  // namespace

TEST_CASE("ModuleAnalysis: a fused body composed through the analysis' steps is the one composed afresh",
          "[analysis]") {
  for (const char* name : {"chain", "both"}) {
    INFO(name);
    // Warm: the body right after its fusion's analysis, whose composition steps it meets again.
    const test::Costed warm = test::cost_module(k_module, cost::default_device(analysis::Target::kGpu));
    const auto [c, i] = warm.find(name);
    (void)warm.analysis->indexing(c, i, true, false);
    const analysis::FusedBody through_steps = analysis::fused_body(warm.module(), warm.analysis->maps(), c, i);
    // Cold: no analysis before it, every step composed here.
    const test::Costed cold = test::cost_module(k_module, cost::default_device(analysis::Target::kGpu));
    const analysis::FusedBody afresh = analysis::fused_body(cold.module(), cold.analysis->maps(), c, i);
    REQUIRE(afresh.defined());
    CHECK(through_steps.to_instruction == afresh.to_instruction);
    check_same_uses(through_steps, afresh);
  }
}

TEST_CASE("ModuleAnalysis: the parameters' uses kept for lint are the body's, without its other maps", "[analysis]") {
  const test::Costed costed = test::cost_module(k_module, cost::default_device(analysis::Target::kGpu));
  for (const char* name : {"chain", "both"}) {
    INFO(name);
    const auto [c, i] = costed.find(name);
    const auto uses = costed.analysis->fused_uses(c, i);
    const auto body = costed.analysis->fused_body(c, i);
    CHECK(uses->to_instruction.empty());
    CHECK(!body->to_instruction.empty());
    check_same_uses(*uses, *body);
    CHECK(costed.analysis->fused_uses(c, i) == uses);  // kept: the same object again
  }
}

TEST_CASE("ModuleAnalysis: counts through a fused body, recalled, are the counts made afresh", "[analysis]") {
  const test::Costed costed = test::cost_module(k_module, cost::default_device(analysis::Target::kGpu));
  for (const char* name : {"chain", "both"}) {
    INFO(name);
    const auto [c, i] = costed.find(name);
    const indexing::InstructionIndexing maps = costed.analysis->indexing(c, i, true, false);
    const analysis::InstructionUtilisation first = analysis::instruction_utilisation(*costed.analysis, c, i, maps);
    // The multi-output fusion is counted through its body (its outputs share a loop), and recalled.
    if (std::string(name) == "both") CHECK(costed.analysis->body_counts().size() == 1);
    const analysis::InstructionUtilisation again = analysis::instruction_utilisation(*costed.analysis, c, i, maps);
    check_same_counts(first, again);
    const hlo::Computation& computation = costed.module().computations[c];
    const analysis::InstructionUtilisation direct = analysis::utilisation(
        costed.module(), computation, computation.instructions[i], maps, costed.analysis->fused_body(c, i).get());
    check_same_counts(first, direct);
  }
}

}  // namespace test_module_analysis_memos_cases

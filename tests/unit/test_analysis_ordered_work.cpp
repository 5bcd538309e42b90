// run_in_program_order (`-j N`): results reach the consumer in the items'
// order whatever the thread count, each worker builds its own state per
// module, workers take on the caller's analysis limits, an exception reaches
// the caller, and the summary rows of a module are the same for every N.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "indexing/analysis/ordered_work.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/verdicts/summary.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_ordered_work_cases {

using namespace hlo_index;
using analysis::WorkItem;

namespace {

std::vector<WorkItem> items_over(std::size_t modules, std::uint32_t per_module) {
  std::vector<WorkItem> items;
  for (std::size_t m = 0; m < modules; ++m) {
    for (std::uint32_t i = 0; i < per_module; ++i) items.push_back({m, i % 3, i, i % 5});
  }
  return items;
}

struct ModuleState {
  std::size_t module;
  std::thread::id owner;
};

}  // namespace

TEST_CASE("work items are consumed in program order for every thread count", "[ordered_work]") {
  const std::vector<WorkItem> items = items_over(5, 41);
  for (unsigned jobs : {1U, 2U, 3U, 8U}) {
    CAPTURE(jobs);
    std::vector<std::size_t> consumed;
    std::mutex states_mutex;
    std::set<std::pair<std::size_t, std::thread::id>> states_made;
    std::atomic<int> wrong_state{0};
    analysis::run_in_program_order(
        items, jobs,
        [&](std::size_t module) {
          const std::lock_guard lock(states_mutex);
          // A worker makes one state per module it reaches, and never twice.
          CHECK(states_made.insert({module, std::this_thread::get_id()}).second);
          return std::make_unique<ModuleState>(ModuleState{module, std::this_thread::get_id()});
        },
        [&](ModuleState& state, const WorkItem& item) {
          if (state.module != item.module || state.owner != std::this_thread::get_id()) ++wrong_state;
          // Uneven work, so that later items often finish first.
          if (item.instruction % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(300));
          return item.module * 1000 + item.instruction;
        },
        [&](std::size_t k, std::size_t result) {
          CHECK(result == items[k].module * 1000 + items[k].instruction);
          consumed.push_back(k);
        });
    CHECK(wrong_state == 0);
    REQUIRE(consumed.size() == items.size());
    for (std::size_t k = 0; k < consumed.size(); ++k) CHECK(consumed[k] == k);
    if (jobs == 1) CHECK(states_made.size() == 5);
  }
}

TEST_CASE("workers take on the calling thread's isl operation limit", "[ordered_work]") {
  indexing::IslContext& context = indexing::IslContext::get();
  const unsigned long saved = context.operation_limit();
  context.set_operation_limit(12345);
  std::vector<unsigned long> seen;
  analysis::run_in_program_order(
      items_over(1, 20), 3, [](std::size_t) { return std::make_unique<int>(0); },
      [](int&, const WorkItem&) { return indexing::IslContext::get().operation_limit(); },
      [&](std::size_t, unsigned long limit) { seen.push_back(limit); });
  context.set_operation_limit(saved);
  REQUIRE(seen.size() == 20);
  for (unsigned long limit : seen) CHECK(limit == 12345);
}

TEST_CASE("an exception from one item reaches the caller and stops the run", "[ordered_work]") {
  for (unsigned jobs : {1U, 4U}) {
    CAPTURE(jobs);
    std::size_t consumed = 0;
    const auto run = [&] {
      analysis::run_in_program_order(
          items_over(2, 500), jobs, [](std::size_t) { return std::make_unique<int>(0); },
          [](int&, const WorkItem& item) {
            if (item.module == 0 && item.instruction == 30) throw std::runtime_error("item 30 failed");
            return item.instruction;
          },
          [&](std::size_t, std::uint32_t) { ++consumed; });
    };
    CHECK_THROWS_WITH(run(), "item 30 failed");
    CHECK(consumed == 30);  // the items before it, and none after
  }
}

TEST_CASE("summary rows do not depend on the thread count", "[ordered_work][summary]") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(
HloModule first
fused_t {
  p = f32[64,48]{1,0} parameter(0)
  ROOT t = f32[48,64]{1,0} transpose(p), dimensions={1,0}
}
fused_s {
  p = f32[64,48]{1,0} parameter(0)
  ROOT s = f32[16,48]{1,0} slice(p), slice={[0:64:4], [0:48]}
}
ENTRY main {
  a = f32[64,48]{1,0} parameter(0)
  f1 = f32[48,64]{1,0} fusion(a), kind=kLoop, calls=fused_t
  f2 = f32[16,48]{1,0} fusion(a), kind=kLoop, calls=fused_s
  ROOT r = (f32[48,64]{1,0}, f32[16,48]{1,0}) tuple(f1, f2)
}

HloModule second
ENTRY main {
  a = f32[32,32]{1,0} parameter(0)
  b = f32[32,32]{0,1} copy(a)
  ROOT n = f32[32,32]{0,1} negate(b)
}
)");
  REQUIRE(modules.size() == 2);
  analysis::SummaryRequest request;
  request.all_instructions = true;
  const auto one = analysis::summarise_modules(modules, request);
  REQUIRE(one.size() == 2);
  CHECK(one[0].rows.size() == 4);  // the entry's instructions; fusion bodies are not rows
  CHECK(one[1].rows.size() == 3);
  for (unsigned jobs : {2U, 5U}) {
    request.jobs = jobs;
    std::vector<std::size_t> row_modules;
    request.on_row = [&](std::size_t module) { row_modules.push_back(module); };
    const auto many = analysis::summarise_modules(modules, request);
    REQUIRE(many.size() == one.size());
    for (std::size_t m = 0; m < one.size(); ++m) CHECK(many[m].totals.seconds == one[m].totals.seconds);
    for (std::size_t m = 0; m < one.size(); ++m) {
      REQUIRE(many[m].rows.size() == one[m].rows.size());
      for (std::size_t r = 0; r < one[m].rows.size(); ++r) {
        CHECK(many[m].rows[r].name == one[m].rows[r].name);
        CHECK(many[m].rows[r].bytes_read == one[m].rows[r].bytes_read);
        CHECK(many[m].rows[r].logical_read_bytes == one[m].rows[r].logical_read_bytes);
        CHECK(many[m].rows[r].cost.seconds == one[m].rows[r].cost.seconds);
        CHECK(many[m].rows[r].cost.device_bytes() == one[m].rows[r].cost.device_bytes());
        CHECK(many[m].rows[r].worst_utilisation == one[m].rows[r].worst_utilisation);
        CHECK(many[m].rows[r].lint_findings == one[m].rows[r].lint_findings);
      }
    }
    CHECK(std::is_sorted(row_modules.begin(), row_modules.end()));
    CHECK(row_modules.size() == one[0].rows.size() + one[1].rows.size());
  }
}

namespace {

// Instructions 1 to 4 of the entry (the last computation), with their affinities.
std::vector<WorkItem> entry_items_1_to_4(const std::vector<hlo::Module>& modules) {
  REQUIRE(modules.size() == 1);
  const std::uint32_t entry = static_cast<std::uint32_t>(modules[0].computations.size() - 1);
  std::vector<WorkItem> items;
  for (std::uint32_t ii = 1; ii <= 4; ++ii) items.push_back({0, entry, ii});
  analysis::set_affinities(modules, items);
  return items;
}

}  // namespace

TEST_CASE("set_affinities: equal layers share a kind, other shapes or bodies do not", "[ordered_work]") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(
HloModule layers
body_a {
  p = f32[64,48]{1,0} parameter(0)
  ROOT n = f32[64,48]{1,0} negate(p)
}
body_b {
  p = f32[64,48]{1,0} parameter(0)
  ROOT n = f32[64,48]{1,0} negate(p)
}
body_c {
  p = f32[64,48]{1,0} parameter(0)
  ROOT n = f32[64,48]{1,0} exponential(p)
}
ENTRY main {
  a = f32[64,48]{1,0} parameter(0)
  f1 = f32[64,48]{1,0} fusion(a), kind=kLoop, calls=body_a
  f2 = f32[64,48]{1,0} fusion(f1), kind=kLoop, calls=body_b
  f3 = f32[64,48]{1,0} fusion(f2), kind=kLoop, calls=body_c
  ROOT t = f32[64,48]{1,0} add(f3, f1)
}
)");
  const std::vector<WorkItem> items = entry_items_1_to_4(modules);
  CHECK(items[0].affinity == items[1].affinity);  // f1, f2: equal bodies and shapes
  CHECK(items[2].affinity != items[0].affinity);  // f3: another body
  CHECK(items[3].affinity != items[0].affinity);  // add
  CHECK(items[0].affinity == 0);                  // kinds numbered in order of first appearance
  CHECK(items[2].affinity == 1);
  CHECK(items[3].affinity == 2);
}

TEST_CASE("set_affinities: calls that reach a common computation share a kind, independent ones do not",
          "[ordered_work]") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(
HloModule calls
helper {
  p = f32[8] parameter(0)
  ROOT n = f32[8] negate(p)
}
outer_a {
  p = f32[8] parameter(0)
  ROOT c = f32[8] call(p), to_apply=helper
}
outer_b {
  p = f32[8] parameter(0)
  e = f32[8] exponential(p)
  ROOT c = f32[8] call(e), to_apply=helper
}
alone {
  p = f32[8] parameter(0)
  l = f32[8] log(p)
  ROOT s = f32[8] sine(l)
}
ENTRY main {
  x = f32[8] parameter(0)
  a = f32[8] call(x), to_apply=outer_a
  b = f32[8] call(a), to_apply=outer_b
  c = f32[8] call(b), to_apply=alone
  ROOT t = f32[8] add(c, a)
}
)");
  const std::vector<WorkItem> items = entry_items_1_to_4(modules);
  CHECK(items[0].affinity == items[1].affinity);  // a, b: outer_a and outer_b both call helper
  CHECK(items[2].affinity != items[0].affinity);  // c: alone shares nothing with them
  CHECK(items[3].affinity != items[0].affinity);  // add
  CHECK(items[3].affinity != items[2].affinity);
}

}  // namespace test_analysis_ordered_work_cases

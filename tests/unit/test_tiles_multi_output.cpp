// Multi-output fusions under one root tile (docs/commands/tile.md): every output with output 0's
// dimensions is tiled by it, an instruction several outputs reach through the same map is one
// tile, and the other outputs are written once, untiled, with what only they reach priced whole.
// The expected figures are the cost model's own for the untiled fusion: tiles that cut every
// array into whole rows of sectors move exactly what it moves and execute what it executes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cost_helpers.hpp"
#include "indexing/tiles/tile_search.hpp"
#include "indexing/tiles/tiled_fusion.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_tiles_multi_output_cases {

using namespace hlo_index;

namespace {

// Two outputs of one shape: p0 and p1 are read by both.
const std::string k_two_outputs = R"(HloModule two_outputs

%fused (p0: f32[32,64], p1: f32[32,64]) -> (f32[32,64], f32[32,64]) {
  %p0 = f32[32,64]{1,0} parameter(0)
  %p1 = f32[32,64]{1,0} parameter(1)
  %add = f32[32,64]{1,0} add(%p0, %p1)
  %subtract = f32[32,64]{1,0} subtract(%p0, %p1)
  ROOT %tuple = (f32[32,64]{1,0}, f32[32,64]{1,0}) tuple(%add, %subtract)
}

ENTRY %main (a: f32[32,64], b: f32[32,64]) -> (f32[32,64], f32[32,64]) {
  %a = f32[32,64]{1,0} parameter(0)
  %b = f32[32,64]{1,0} parameter(1)
  ROOT %f = (f32[32,64]{1,0}, f32[32,64]{1,0}) fusion(%a, %b), kind=kLoop, calls=%fused
}
)";

// Output 1 has other dimensions, and only it reads p2 and computes the negate.
const std::string k_other_dimensions = R"(HloModule other_dimensions

%fused (p0: f32[32,64], p1: f32[32,64], p2: f32[16]) -> (f32[32,64], f32[16]) {
  %p0 = f32[32,64]{1,0} parameter(0)
  %p1 = f32[32,64]{1,0} parameter(1)
  %p2 = f32[16]{0} parameter(2)
  %add = f32[32,64]{1,0} add(%p0, %p1)
  %negate = f32[16]{0} negate(%p2)
  ROOT %tuple = (f32[32,64]{1,0}, f32[16]{0}) tuple(%add, %negate)
}

ENTRY %main (a: f32[32,64], b: f32[32,64], c: f32[16]) -> (f32[32,64], f32[16]) {
  %a = f32[32,64]{1,0} parameter(0)
  %b = f32[32,64]{1,0} parameter(1)
  %c = f32[16]{0} parameter(2)
  ROOT %f = (f32[32,64]{1,0}, f32[16]{0}) fusion(%a, %b, %c), kind=kLoop, calls=%fused
}
)";

// A plain instruction with two outputs: a variadic reduce computes both in one evaluation.
const std::string k_variadic_reduce = R"(HloModule variadic_reduce

%add_both (a0: f32[], a1: f32[], b0: f32[], b1: f32[]) -> (f32[], f32[]) {
  %a0 = f32[] parameter(0)
  %a1 = f32[] parameter(1)
  %b0 = f32[] parameter(2)
  %b1 = f32[] parameter(3)
  %s0 = f32[] add(%a0, %b0)
  %s1 = f32[] add(%a1, %b1)
  ROOT %t = (f32[], f32[]) tuple(%s0, %s1)
}

ENTRY %main (p0: f32[8,16], p1: f32[8,16]) -> (f32[8], f32[8]) {
  %p0 = f32[8,16]{1,0} parameter(0)
  %p1 = f32[8,16]{1,0} parameter(1)
  %z = f32[] constant(0)
  ROOT %r = (f32[8]{0}, f32[8]{0}) reduce(%p0, %p1, %z, %z), dimensions={1}, to_apply=%add_both
}
)";

tiles::TiledFusion tiled(const test::Costed& costed, const std::string& name) {
  const auto [c, i] = costed.find(name);
  return tiles::tile_instruction(*costed.analysis, c, i);
}

std::size_t entries_named(const tiles::TiledFusion& fusion, const std::string& name) {
  return static_cast<std::size_t>(std::count_if(fusion.entries.begin(), fusion.entries.end(),
                                                [&name](const tiles::TiledEntry& e) { return e.name == name; }));
}

// A tiling that cuts every array into whole rows of sectors moves and executes what the untiled
// fusion does: the cost model's figures of it.
void check_priced_as_untiled(const test::Costed& costed, const tiles::TiledFusion& fusion,
                             const std::vector<std::int64_t>& sizes) {
  const cost::InstructionCost& whole = costed.cost(fusion.name);
  const tiles::TilingEstimate e = tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, sizes));
  CHECK(e.bytes_written == Approx(static_cast<double>(whole.device_bytes_written)));
  CHECK(e.bytes_read == Approx(static_cast<double>(whole.device_bytes_read)));
  CHECK(e.flops == Approx(static_cast<double>(whole.flops)));
}

std::size_t roots(const tiles::TiledFusion& fusion) {
  return static_cast<std::size_t>(
      std::count_if(fusion.entries.begin(), fusion.entries.end(), [](const tiles::TiledEntry& e) { return e.root; }));
}

}  // namespace

TEST_CASE("tile: one root tile tiles every output of output 0's dimensions", "[tiles]") {
  const test::Costed costed = test::cost_module(k_two_outputs, test::named_device("h100-sxm"));
  const tiles::TiledFusion fusion = tiled(costed, "f");
  REQUIRE(fusion.undefined_reason.empty());
  CHECK(fusion.outputs.size() == 2);
  CHECK(fusion.untiled_outputs.empty());
  CHECK(roots(fusion) == 2);
  CHECK(entries_named(fusion, "add") == 1);
  CHECK(entries_named(fusion, "subtract") == 1);
  // Both outputs read p0 and p1 through the identity: one tile each, read once.
  CHECK(entries_named(fusion, "p0") == 1);
  CHECK(entries_named(fusion, "p1") == 1);
  check_priced_as_untiled(costed, fusion, {8, 64});
  CHECK(costed.cost("f").flops == 2 * 32 * 64);
}

TEST_CASE("tile: a single-output fusion has one output and no multi-output note", "[tiles]") {
  const std::string single = R"(HloModule single

%fused (p0: f32[32,64]) -> f32[32,64] {
  %p0 = f32[32,64]{1,0} parameter(0)
  ROOT %negate = f32[32,64]{1,0} negate(%p0)
}

ENTRY %main (a: f32[32,64]) -> f32[32,64] {
  %a = f32[32,64]{1,0} parameter(0)
  ROOT %f = f32[32,64]{1,0} fusion(%a), kind=kLoop, calls=%fused
}
)";
  const test::Costed costed = test::cost_module(single, test::named_device("h100-sxm"));
  const tiles::TiledFusion fusion = tiled(costed, "f");
  CHECK(fusion.outputs.size() == 1);
  CHECK(roots(fusion) == 1);
  CHECK(std::none_of(fusion.notes.begin(), fusion.notes.end(),
                     [](const std::string& n) { return n.find("multi-output") != std::string::npos; }));
}

TEST_CASE("tile: outputs of other dimensions are written once, what only they reach priced whole", "[tiles]") {
  const test::Costed costed = test::cost_module(k_other_dimensions, test::named_device("h100-sxm"));
  const tiles::TiledFusion fusion = tiled(costed, "f");
  REQUIRE(fusion.undefined_reason.empty());
  CHECK(fusion.outputs.size() == 1);
  CHECK(fusion.untiled_outputs == std::vector<std::size_t>{1});
  CHECK(entries_named(fusion, "negate") == 0);
  CHECK(entries_named(fusion, "p2") == 0);
  REQUIRE_FALSE(fusion.notes.empty());
  CHECK(fusion.notes.front().find("not output 1") != std::string::npos);
  // Output 1 (64 bytes) and p2 (64 bytes) count once; the negate's 16 FLOPs with the add's 2,048.
  check_priced_as_untiled(costed, fusion, {8, 64});
  CHECK(costed.cost("f").flops == 32 * 64 + 16);
}

TEST_CASE("tile: a variadic reduce's outputs are one evaluation, priced once", "[tiles]") {
  const test::Costed costed = test::cost_module(k_variadic_reduce, test::named_device("h100-sxm"));
  const tiles::TiledFusion fusion = tiled(costed, "r");
  REQUIRE(fusion.undefined_reason.empty());
  CHECK(fusion.outputs.size() == 2);
  REQUIRE(roots(fusion) == 2);
  const auto second_root = std::find_if(fusion.entries.begin(), fusion.entries.end(),
                                        [](const tiles::TiledEntry& e) { return e.root && e.output == 1; });
  REQUIRE(second_root != fusion.entries.end());
  CHECK_FALSE(second_root->computes);
  const cost::InstructionCost& whole = costed.cost("r");
  REQUIRE(whole.flops > 0);
  const tiles::TilingEstimate e =
      tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, std::vector<std::int64_t>{4}));
  CHECK(e.flops == Approx(static_cast<double>(whole.flops)));
}

}  // namespace test_tiles_multi_output_cases

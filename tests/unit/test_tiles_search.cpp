// The tile search's latency floor (docs/commands/tile.md, "The search"): on a GPU the cores
// hold a limited number of blocks at once, and each round of them waits at least one load
// from memory, so a tiling of many tiny tiles cannot reach the bandwidth. Each expectation is
// derived from the device's own figures.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cost_helpers.hpp"
#include "indexing/tiles/tile_search.hpp"
#include "indexing/tiles/tiled_fusion.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_tiles_search_cases {

using namespace hlo_index;

namespace {

// An elementwise add of two f32[256,512]: 512 KiB read, 131,072 elements.
const std::string k_add = R"(HloModule add

%fused_add (p0: f32[256,512], p1: f32[256,512]) -> f32[256,512] {
  %p0 = f32[256,512]{1,0} parameter(0)
  %p1 = f32[256,512]{1,0} parameter(1)
  ROOT %add = f32[256,512]{1,0} add(f32[256,512]{1,0} %p0, f32[256,512]{1,0} %p1)
}

ENTRY %main (a: f32[256,512], b: f32[256,512]) -> f32[256,512] {
  %a = f32[256,512]{1,0} parameter(0)
  %b = f32[256,512]{1,0} parameter(1)
  ROOT %f = f32[256,512]{1,0} fusion(f32[256,512]{1,0} %a, f32[256,512]{1,0} %b), kind=kLoop, calls=%fused_add
}
)";

tiles::TilingEstimate estimate(const test::Costed& costed, const std::vector<std::int64_t>& sizes) {
  const auto [c, i] = costed.find("f");
  const tiles::TiledFusion fusion = tiles::tile_instruction(*costed.analysis, c, i);
  return tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, sizes, false));
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("tile search: tiny tiles on a GPU wait a memory latency per round of resident blocks", "[tiles]") {
  const cost::Device& h100 = test::named_device("h100-sxm");
  REQUIRE(h100.memory_latency > 0);
  const test::Costed costed = test::cost_module(k_add, h100);
  // (1, 8): 16,384 tiles of 8 elements, one warp each; a core holds min(32 blocks, 2,048 / 32 threads).
  const tiles::TilingEstimate tiny = estimate(costed, {1, 8});
  CHECK(tiny.tiles == 256 * 512 / 8);
  CHECK(tiny.threads_per_block == 32);
  const std::int64_t resident =
      h100.cores * std::min(h100.resident_blocks_per_core, h100.resident_threads_per_core / 32);
  CHECK(tiny.resident_blocks == resident);
  CHECK(tiny.rounds == ceil_div(tiny.tiles, resident));
  CHECK(tiny.rounds > 1);
  CHECK(tiny.latency_seconds == Approx(static_cast<double>(tiny.rounds) * h100.memory_latency));
  CHECK(tiny.why.find("latency-bound") != std::string::npos);
  // (8, 128): 128 tiles of 1,024 elements (two warps): one round.
  const tiles::TilingEstimate block = estimate(costed, {8, 128});
  CHECK(block.threads_per_block == 64);
  CHECK(block.rounds == 1);
  CHECK(block.seconds < tiny.seconds);
  // The search ranks no tiling of more than one round first.
  const auto [c, i] = costed.find("f");
  const tiles::TileSearch search =
      tiles::search_tilings(tiles::tile_instruction(*costed.analysis, c, i), *costed.model);
  REQUIRE_FALSE(search.best.empty());
  CHECK(search.best.front().rounds == 1);
  CHECK(search.best.front().seconds <= block.seconds);
}

TEST_CASE("tile search: no latency floor on a device without one", "[tiles]") {
  // The H100's figures with the latency left out; and a TPU, which has none.
  const cost::Device no_floor = cost::device_from_json(R"({
    "name": "no-floor", "target": "gpu", "cores": 132, "memory_latency": 0,
    "peaks": [{"type": "f32", "unit": "vector", "flops_per_second": 6.7e13}],
    "memory_bandwidth": 3.35e12})");
  CHECK(no_floor.resident_blocks_per_core == 32);
  CHECK(no_floor.memory_latency == 0);
  const test::Costed costed = test::cost_module(k_add, no_floor);
  const tiles::TilingEstimate tiny = estimate(costed, {1, 8});
  CHECK(tiny.rounds == 0);
  CHECK(tiny.latency_seconds == 0);
  CHECK(tiny.seconds == Approx(std::max(tiny.compute_seconds, tiny.memory_seconds) + tiny.overhead_seconds));
  CHECK(tiny.why.find("round") == std::string::npos);

  const cost::Device& tpu = test::named_device("tpu-v5e");
  CHECK(tpu.resident_blocks_per_core == 0);
  CHECK(tpu.memory_latency == 0);
  const cost::Device tpu_file = cost::device_from_json(R"({
    "name": "my-tpu", "target": "tpu",
    "peaks": [{"type": "bf16", "unit": "matrix", "flops_per_second": 1.97e14}],
    "memory_bandwidth": 8.2e11})");
  CHECK(tpu_file.memory_latency == 0);
  CHECK(tpu_file.resident_threads_per_core == 0);
}

TEST_CASE("tile search: a block's threads follow its largest tile, as XLA's warps do", "[tiles]") {
  const test::Costed costed = test::cost_module(k_add, test::named_device("h100-sxm"));
  CHECK(estimate(costed, {1, 256}).threads_per_block == 32);
  CHECK(estimate(costed, {2, 256}).threads_per_block == 64);
  CHECK(estimate(costed, {8, 512}).threads_per_block == 128);
  CHECK(estimate(costed, {16, 512}).threads_per_block == 256);
}

TEST_CASE("tile search: arrays in on-chip memory spaces move no device-memory bytes", "[tiles]") {
  // k_add with its second operand and its result in S(1) (in the body and at the call), as a TPU keeps
  // arrays in VMEM; the cost model counts those apart.
  std::string on_chip = k_add;
  for (const std::string from : {"%p1 = f32[256,512]{1,0}", "ROOT %add = f32[256,512]{1,0}", "%b = f32[256,512]{1,0}",
                                 "ROOT %f = f32[256,512]{1,0}"}) {
    const std::size_t at = on_chip.find(from);
    REQUIRE(at != std::string::npos);
    on_chip.replace(at, from.size(), from.substr(0, from.size() - 1) + ":S(1)}");
  }
  const test::Costed plain = test::cost_module(k_add, test::named_device("h100-sxm"));
  const test::Costed costed = test::cost_module(on_chip, test::named_device("h100-sxm"));
  const tiles::TilingEstimate all = estimate(plain, {8, 128});
  const tiles::TilingEstimate part = estimate(costed, {8, 128});
  REQUIRE(all.bytes_read > 0);
  CHECK(part.bytes_read == Approx(all.bytes_read / 2));  // p0 alone
  CHECK(part.bytes_written == 0);
  CHECK(part.flops == Approx(all.flops));
  CHECK(costed.cost("f").on_chip_bytes > 0);
  CHECK(costed.cost("f").device_bytes_written == 0);
}

}  // namespace test_tiles_search_cases

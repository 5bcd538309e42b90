// K steps (docs/commands/tile.md): a dot's or convolution's contracted dimensions get a step
// size of their own, as XLA tiles a dot's contracting dimension. Brute force on small dot
// fusions: for every tiling, every K step and every tile, the elements of each parameter that
// tile reads in that step, evaluated directly from the ops' semantics (a dot reads lhs (m, k) and
// rhs (k, n); a transpose swaps; a bitcast re-splits the row-major index), are exactly a strided
// box of the printed per-step sizes and strides. And the search: a fusion whose operand tiles
// exceed the block limit with the whole of K finds tilings in K steps, priced as the whole-K
// reads and FLOPs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "cost_helpers.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/tiles/tile_search.hpp"
#include "indexing/tiles/tiled_fusion.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_tiles_k_steps_cases {

using namespace hlo_index;

namespace {

using Index = std::vector<std::int64_t>;
// Root index and contracted index -> the element of parameter p it reads (empty: none).
using Reads = std::function<Index(std::size_t p, const Index& root, const Index& k)>;

struct DotFusion {
  std::string name, hlo;
  Index k_extents;  // the contracted dimensions, in the dot's order
  Reads reads;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The reducer of the row sums below.
const std::string k_add = R"(%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}
)";

// Every index of a box of `sizes` (row-major).
void for_each_index(const Index& sizes, const std::function<void(const Index&)>& f) {
  Index at(sizes.size(), 0);
  if (std::any_of(sizes.begin(), sizes.end(), [](std::int64_t n) { return n <= 0; })) return;
  while (true) {
    f(at);
    std::size_t i = at.size();
    while (i > 0 && ++at[i - 1] == sizes[i - 1]) at[--i] = 0;
    if (i == 0) return;
  }
}

// The step sizes of the contracted dimensions for a K step of `k_tile`: filled from the last.
Index step_extents(const Index& extents, std::int64_t k_tile) {
  Index out(extents.size());
  std::int64_t left = k_tile;
  for (std::size_t j = extents.size(); j-- > 0;) {
    out[j] = std::min(extents[j], left);
    left = left >= extents[j] ? left / extents[j] : 1;
  }
  return out;
}

// M x K times K x N with the rhs given transposed (N x K) and transposed in the fusion.
const DotFusion k_transposed{"transposed rhs",
                             R"(HloModule t

%body (p0: f32[8,16], p1: f32[4,16]) -> f32[8,4] {
  %p0 = f32[8,16]{1,0} parameter(0)
  %p1 = f32[4,16]{1,0} parameter(1)
  %t = f32[16,4]{1,0} transpose(%p1), dimensions={1,0}
  ROOT %d = f32[8,4]{1,0} dot(%p0, %t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY %main (a: f32[8,16], b: f32[4,16]) -> f32[8,4] {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[4,16]{1,0} parameter(1)
  ROOT %f = f32[8,4]{1,0} fusion(%a, %b), kind=kCustom, calls=%body
}
)",
                             {16},
                             [](std::size_t p, const Index& r, const Index& k) {
                               return p == 0 ? Index{r[0], k[0]} : Index{r[1], k[0]};
                             }};

// The lhs a broadcast vector, the rhs a slice (K from 8 to 24 of 32): the steps' offsets move.
const DotFusion k_slice{"broadcast lhs, sliced rhs",
                        R"(HloModule s

%body (p0: f32[16], p1: f32[32,8]) -> f32[4,8] {
  %p0 = f32[16]{0} parameter(0)
  %b = f32[4,16]{1,0} broadcast(%p0), dimensions={1}
  %p1 = f32[32,8]{1,0} parameter(1)
  %s = f32[16,8]{1,0} slice(%p1), slice={[8:24], [0:8]}
  ROOT %d = f32[4,8]{1,0} dot(%b, %s), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY %main (a: f32[16], w: f32[32,8]) -> f32[4,8] {
  %a = f32[16]{0} parameter(0)
  %w = f32[32,8]{1,0} parameter(1)
  ROOT %f = f32[4,8]{1,0} fusion(%a, %w), kind=kCustom, calls=%body
}
)",
                        {16},
                        [](std::size_t p, const Index& r, const Index& k) {
                          return p == 0 ? Index{k[0]} : Index{k[0] + 8, r[1]};
                        }};

// Two contracted dimensions (2 x 8) and a batch dimension.
const DotFusion k_two{"two contracted dimensions and a batch",
                      R"(HloModule two

%body (p0: f32[2,4,2,8], p1: f32[2,2,8,4]) -> f32[2,4,4] {
  %p0 = f32[2,4,2,8]{3,2,1,0} parameter(0)
  %p1 = f32[2,2,8,4]{3,2,1,0} parameter(1)
  ROOT %d = f32[2,4,4]{2,1,0} dot(%p0, %p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2,3}, rhs_contracting_dims={1,2}
}

ENTRY %main (a: f32[2,4,2,8], w: f32[2,2,8,4]) -> f32[2,4,4] {
  %a = f32[2,4,2,8]{3,2,1,0} parameter(0)
  %w = f32[2,2,8,4]{3,2,1,0} parameter(1)
  ROOT %f = f32[2,4,4]{2,1,0} fusion(%a, %w), kind=kCustom, calls=%body
}
)",
                      {2, 8},
                      [](std::size_t p, const Index& r, const Index& k) {
                        return p == 0 ? Index{r[0], r[1], k[0], k[1]} : Index{r[0], k[0], k[1], r[2]};
                      }};

// Every root tiling, every K step size: each parameter's reads per (tile, step) are the printed
// step box, exactly. Returns the (tiling, K step) pairs checked with more than one step.
int check_steps(const DotFusion& d) {
  INFO(d.name);
  const test::Costed costed = test::cost_module(d.hlo, cost::default_device(analysis::Target::kGpu));
  const auto [c, i] = costed.find("f");
  const tiles::TiledFusion fusion = tiles::tile_instruction(*costed.analysis, c, i);
  REQUIRE(fusion.undefined_reason.empty());
  std::int64_t k_total = 1;
  for (std::int64_t n : d.k_extents) k_total *= n;
  REQUIRE(fusion.k_extent == k_total);
  const std::size_t rank = fusion.root_dims.size();
  std::vector<Index> tilings{{}};
  for (std::int64_t n : fusion.root_dims) {
    std::vector<Index> next;
    for (const Index& prefix : tilings)
      for (std::int64_t s : tiles::candidate_sizes(n)) {
        next.push_back(prefix);
        next.back().push_back(s);
      }
    tilings = std::move(next);
  }
  int stepped = 0;
  for (const std::int64_t k_tile : tiles::k_tile_candidates(fusion)) {
    const tiles::KStepTiles k = tiles::k_step_tiles(fusion, k_tile);
    const Index steps_of = step_extents(d.k_extents, k_tile);
    Index steps_per_dim;
    std::int64_t steps = 1;
    for (std::size_t j = 0; j < d.k_extents.size(); ++j) {
      steps_per_dim.push_back(ceil_div(d.k_extents[j], steps_of[j]));
      steps *= steps_per_dim.back();
    }
    for (const Index& sizes : tilings) {
      INFO("tiling (" << fmt::format("{}", fmt::join(sizes, ", ")) << "), K step " << k_tile);
      const tiles::ConcreteTiling t = tiles::concrete_tiling(fusion, sizes, false, &k);
      REQUIRE(t.constraints_hold);  // plain dots: XLA tiles every size and step
      REQUIRE(t.k_steps == steps);
      if (steps > 1) ++stepped;
      for (std::size_t e = 0; e < fusion.entries.size(); ++e) {
        const tiles::TiledEntry& entry = fusion.entries[e];
        if (!entry.reads_memory) continue;
        const tiles::ConcreteEntry& ce = t.entries[e];
        INFO("parameter " << entry.parameter);
        CHECK(ce.steps == steps);
        const auto p = static_cast<std::size_t>(entry.parameter);
        for_each_index(t.tiles_per_dimension, [&](const Index& tile) {
          for_each_index(steps_per_dim, [&](const Index& step) {
            std::set<Index> read;
            Index extent(rank), k_extent(d.k_extents.size());
            for (std::size_t j = 0; j < rank; ++j)
              extent[j] = std::min(sizes[j], fusion.root_dims[j] - tile[j] * sizes[j]);
            for (std::size_t j = 0; j < k_extent.size(); ++j)
              k_extent[j] = std::min(steps_of[j], d.k_extents[j] - step[j] * steps_of[j]);
            for_each_index(extent, [&](const Index& r) {
              Index root(rank);
              for (std::size_t j = 0; j < rank; ++j) root[j] = tile[j] * sizes[j] + r[j];
              for_each_index(k_extent, [&](const Index& kk) {
                Index at(kk.size());
                for (std::size_t j = 0; j < kk.size(); ++j) at[j] = step[j] * steps_of[j] + kk[j];
                read.insert(d.reads(p, root, at));
              });
            });
            // Per dimension: the values read, a progression of the step's stride, no more than its size;
            // a full tile and step (not cut at an edge) reads the whole box.
            std::int64_t box = 1;
            bool full = extent == Index(sizes.begin(), sizes.end()) && k_extent == steps_of;
            for (std::size_t j = 0; j < ce.step_sizes.size(); ++j) {
              std::set<std::int64_t> values;
              for (const Index& x : read) values.insert(x[j]);
              CHECK(static_cast<std::int64_t>(values.size()) <= ce.step_sizes[j]);
              if (full) CHECK(static_cast<std::int64_t>(values.size()) == ce.step_sizes[j]);
              for (auto it = values.begin(); it != values.end() && std::next(it) != values.end(); ++it)
                CHECK(*std::next(it) - *it == std::abs(ce.step_strides[j]));
              box *= static_cast<std::int64_t>(values.size());
            }
            CHECK(static_cast<std::int64_t>(read.size()) == box);
          });
        });
      }
    }
  }
  return stepped;
}

}  // namespace

TEST_CASE("tiles: K steps read exactly the printed step box of each operand (brute force)", "[tiles]") {
  for (const DotFusion* d : {&k_transposed, &k_slice, &k_two}) CHECK(check_steps(*d) > 0);
}

TEST_CASE("tiles: K steps fill the contracted dimensions from the last", "[tiles]") {
  const test::Costed costed = test::cost_module(k_two.hlo, cost::default_device(analysis::Target::kGpu));
  const auto [c, i] = costed.find("f");
  const tiles::TiledFusion fusion = tiles::tile_instruction(*costed.analysis, c, i);
  const std::vector<std::int64_t> whole{2, 4, 4};
  // K = 2 x 8: a step of 4 is (1, 4), of 8 (1, 8), of 16 (2, 8): the whole, one step.
  for (const auto& [k_tile, lhs_step, steps] :
       {std::tuple{4, Index{1, 4}, 4}, std::tuple{8, Index{1, 8}, 2}, std::tuple{16, Index{2, 8}, 1}}) {
    const tiles::KStepTiles k = tiles::k_step_tiles(fusion, k_tile);
    const tiles::ConcreteTiling t = tiles::concrete_tiling(fusion, whole, false, &k);
    CHECK(t.k_steps == steps);
    for (std::size_t e = 0; e < fusion.entries.size(); ++e) {
      if (fusion.entries[e].parameter != 0) continue;
      CHECK(t.entries[e].step_sizes == Index{2, 4, lhs_step[0], lhs_step[1]});
    }
  }
}

TEST_CASE("tiles: a fusion without a dot has no K step, a reduce's dimension is not one", "[tiles]") {
  const std::string hlo = "HloModule r\n\n" + k_add + R"(
%body (p0: f32[64,2048]) -> f32[64] {
  %p0 = f32[64,2048]{1,0} parameter(0)
  %zero = f32[] constant(0)
  ROOT %sum = f32[64]{0} reduce(%p0, %zero), dimensions={1}, to_apply=%add
}

ENTRY %main (a: f32[64,2048]) -> f32[64] {
  %a = f32[64,2048]{1,0} parameter(0)
  ROOT %f = f32[64]{0} fusion(%a), kind=kInput, calls=%body
}
)";
  const test::Costed costed = test::cost_module(hlo, cost::default_device(analysis::Target::kGpu));
  const auto [c, i] = costed.find("f");
  const tiles::TiledFusion fusion = tiles::tile_instruction(*costed.analysis, c, i);
  CHECK(fusion.k_extent == 1);
  CHECK(tiles::k_tile_candidates(fusion) == std::vector<std::int64_t>{0});
  const tiles::KStepTiles k = tiles::k_step_tiles(fusion, 16);
  const tiles::ConcreteTiling t = tiles::concrete_tiling(fusion, std::vector<std::int64_t>{8}, false, &k);
  CHECK(t.k_steps == 1);
  for (const tiles::ConcreteEntry& e : t.entries) CHECK(e.step_sizes == e.sizes);
}

TEST_CASE("tile search: operand tiles over the block limit with the whole of K find tilings in K steps", "[tiles]") {
  // Every tile of the f32[64] row sums reads whole rows of the 1024 x 2048 weight: 2^21 elements.
  const std::string hlo = "HloModule gemm_row_sum\n\n" + k_add + R"(
%body (p0: f32[64,1024], p1: f32[1024,2048]) -> f32[64] {
  %p0 = f32[64,1024]{1,0} parameter(0)
  %p1 = f32[1024,2048]{1,0} parameter(1)
  %d = f32[64,2048]{1,0} dot(%p0, %p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  %zero = f32[] constant(0)
  ROOT %sum = f32[64]{0} reduce(%d, %zero), dimensions={1}, to_apply=%add
}

ENTRY %main (a: f32[64,1024], w: f32[1024,2048]) -> f32[64] {
  %a = f32[64,1024]{1,0} parameter(0)
  %w = f32[1024,2048]{1,0} parameter(1)
  ROOT %f = f32[64]{0} fusion(%a, %w), kind=kCustom, calls=%body
}
)";
  const test::Costed costed = test::cost_module(hlo, test::named_device("h100-sxm"));
  const auto [c, i] = costed.find("f");
  const tiles::TiledFusion fusion = tiles::tile_instruction(*costed.analysis, c, i);
  REQUIRE(fusion.k_extent == 1024);
  // The whole of K: the weight's tile alone is over the limit, whatever the root tile.
  const tiles::KStepTiles whole = tiles::k_step_tiles(fusion, 1024);
  for (std::int64_t s : tiles::candidate_sizes(64)) {
    const tiles::TilingEstimate e =
        tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, std::vector{s}, false, &whole));
    CHECK(e.largest_tile > tiles::k_max_tile_elements);
  }
  const tiles::TileSearch search = tiles::search_tilings(fusion, *costed.model, 50);
  REQUIRE(!search.best.empty());
  for (const tiles::TilingEstimate& e : search.best) {
    CHECK(e.k_tile > 0);
    CHECK(e.k_tile <= 512);
    CHECK(e.largest_tile <= tiles::k_max_tile_elements);
    CHECK(e.k_steps == 1024 / e.k_tile);
  }
  // In steps, a tiling reads and computes what it does with the whole of K: rows of the weight
  // span whole sectors either way, and the FLOPs are those of every element of every tile.
  const tiles::KStepTiles half = tiles::k_step_tiles(fusion, 512);
  const std::vector<std::int64_t> rows{8};
  const tiles::TilingEstimate stepped =
      tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, rows, false, &half));
  const tiles::TilingEstimate at_once =
      tiles::estimate_tiling(fusion, *costed.model, tiles::concrete_tiling(fusion, rows, false, &whole));
  CHECK(stepped.bytes_read == at_once.bytes_read);
  CHECK(stepped.flops == at_once.flops);
  CHECK(stepped.k_steps == 2);
  // 8 tiles, each reading 8 rows of the input and the whole weight (f32).
  CHECK(stepped.bytes_read == 8.0 * (8 * 1024 + 1024 * 2048) * 4);
}

TEST_CASE("tiles: a map keeps its contracted marks when its domain's tightening is recalled", "[tiles]") {
  // Equal maps (the marks are not part of equality) share the process-wide tightening memo: the
  // second recalls the first's answer, and must keep its own marks.
  const indexing::IndexingMap plain = indexing::parse_map(
      "(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 9], d0 + s0 in [0, 5], d0 * 2 + s0 in [0, 7]");
  for (const bool first_marked : {false, true}) {
    indexing::IndexingMap first = plain, second = plain;
    indexing::build::mark_contracted(first_marked ? first : second);
    CHECK(indexing::tighten_domain(first));
    CHECK(indexing::tighten_domain(second));
    CHECK(first == second);
    CHECK(first.domain().variables(simplify::VarKind::kRange)[0].contracted == first_marked);
    CHECK(second.domain().variables(simplify::VarKind::kRange)[0].contracted == !first_marked);
  }
}

}  // namespace test_tiles_k_steps_cases

// The heat maps of `hlo-index picture` against brute force: for fusions of
// every rank (a scalar, a vector, 2-D windows and transposes, 3-D and 4-D
// operands as grids and projections), runtime offsets (dynamic-slice,
// gather), several maps per operand, and maps whose range variables do not
// determine the element (an element read twice by one output is one read),
// each map's domain is enumerated point by point, its (output point, operand
// element) pairs collected, and the reads per cell binned independently of
// the library; both of the library's ways of counting (enumeration, counting
// per block of cells) must give the same cells. The totals match
// utilisation's count of reads, and one thread group's reads match
// coalescing's verdict.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <functional>
#include <map>
#include <set>

#include "indexing/analysis/group_access.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/read_heatmap.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/map_parser.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_read_heatmap_cases {

using namespace hlo_index;
using analysis::HeatmapOptions;
using analysis::ReadHeatmap;
using analysis::SliceChoice;
using indexing::IndexingMap;

namespace {

const char* k_module = R"(HloModule heat

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

fused_window_sum {
  p = f32[9,11] parameter(0)
  zero = f32[] constant(0)
  ROOT w = f32[7,5] reduce-window(p, zero), window={size=3x3 stride=1x2}, to_apply=add
}

fused_transpose_add {
  p = f32[6,6] parameter(0)
  t = f32[6,6] transpose(p), dimensions={1,0}
  ROOT a = f32[6,6] add(p, t)
}

fused_window {
  p = f32[12,10] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT d = f32[4,3] dynamic-slice(p, i, j), dynamic_slice_sizes={4,3}
}

fused_strided {
  p = f32[3,8,7] parameter(0)
  s = f32[3,4,7] slice(p), slice={[0:3], [1:8:2], [0:7]}
  zero = f32[] constant(0)
  ROOT r = f32[3,7] reduce(s, zero), dimensions={1}, to_apply=add
}

fused_heads {
  p = f32[2,3,4,5] parameter(0)
  ROOT t = f32[2,3,5,4] transpose(p), dimensions={0,1,3,2}
}

fused_scale {
  v = f32[13] parameter(0)
  c = f32[] parameter(1)
  b = f32[5,13] broadcast(v), dimensions={1}
  k = f32[5,13] broadcast(c), dimensions={}
  ROOT m = f32[5,13] multiply(b, k)
}

fused_gather {
  table = f32[9,4] parameter(0)
  rows = s32[5,1] parameter(1)
  ROOT g = f32[5,4] gather(table, rows), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,4}
}

fused_flat_sum {
  p = f32[4,6] parameter(0)
  f = f32[24] reshape(p)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(f, zero), dimensions={0}, to_apply=add
}

fused_broadcast_sum {
  p = f32[5] parameter(0)
  b = f32[5,2] broadcast(p), dimensions={0}
  f = f32[10] reshape(b)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(f, zero), dimensions={0}, to_apply=add
}

ENTRY main {
  a = f32[9,11] parameter(0)
  b = f32[6,6] parameter(1)
  c = f32[12,10] parameter(2)
  n = s32[] parameter(3)
  m = s32[] parameter(4)
  d = f32[3,8,7] parameter(5)
  e = f32[2,3,4,5] parameter(6)
  v = f32[13] parameter(7)
  k = f32[] parameter(8)
  t = f32[9,4] parameter(9)
  r = s32[5,1] parameter(10)
  q = f32[4,6] parameter(11)
  o = f32[5] parameter(12)
  window_sum = f32[7,5] fusion(a), kind=kLoop, calls=fused_window_sum
  transpose_add = f32[6,6] fusion(b), kind=kLoop, calls=fused_transpose_add
  window = f32[4,3] fusion(c, n, m), kind=kLoop, calls=fused_window
  strided = f32[3,7] fusion(d), kind=kInput, calls=fused_strided
  heads = f32[2,3,5,4] fusion(e), kind=kLoop, calls=fused_heads
  scale = f32[5,13] fusion(v, k), kind=kLoop, calls=fused_scale
  gathered = f32[5,4] fusion(t, r), kind=kLoop, calls=fused_gather
  flat_sum = f32[] fusion(q), kind=kInput, calls=fused_flat_sum
  broadcast_sum = f32[] fusion(o), kind=kInput, calls=fused_broadcast_sum
  ROOT out = (f32[7,5], f32[6,6], f32[4,3], f32[3,7], f32[2,3,5,4], f32[5,13], f32[5,4], f32[], f32[]) tuple(window_sum, transpose_add, window, strided, heads, scale, gathered, flat_sum, broadcast_sum)
}
)";

// Every feasible point of a map's domain (runtime offsets pinned to the low
// end when `pinned`), as (output point with runtime values, operand element).
std::set<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> pairs_of(const IndexingMap& map,
                                                                                   bool pinned) {
  const auto vars = map.domain().all_variables();
  std::vector<std::int64_t> values(vars.size());
  std::set<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> out;
  const std::size_t nd = map.dim_count(), nr = map.range_count();
  std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (k == vars.size()) {
      const simplify::VarValues v{std::span(values).subspan(0, nd), std::span(values).subspan(nd, nr),
                                  std::span(values).subspan(nd + nr)};
      for (const auto& c : map.domain().constraints())
        if (!c.interval.contains(simplify::evaluate(c.expr, v))) return;
      std::vector<std::int64_t> output(values.begin(), values.begin() + static_cast<long>(nd));
      output.insert(output.end(), values.begin() + static_cast<long>(nd + nr), values.end());
      std::vector<std::int64_t> element;
      for (const auto& e : map.results()) element.push_back(simplify::evaluate(e, v));
      out.emplace(std::move(output), std::move(element));
      return;
    }
    const auto b = map.domain().bounds(vars[k]);
    const std::int64_t hi = pinned && vars[k].kind == simplify::VarKind::kRuntime ? b.lo : b.hi;
    for (std::int64_t x = b.lo; x <= hi; ++x) {
      values[k] = x;
      walk(k + 1);
    }
  };
  walk(0);
  return out;
}

struct Expected {
  std::map<std::pair<std::size_t, std::size_t>, std::int64_t> reads;  // (slice, cell) -> reads
  std::set<std::pair<std::size_t, std::size_t>> may_read;
  std::int64_t total = 0;
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// Where the brute force puts an element: slices and cells from the dims and
// the options alone (none: a slice not drawn).
std::optional<std::pair<std::size_t, std::size_t>> cell_of(const std::vector<std::int64_t>& dims,
                                                           const std::vector<std::int64_t>& e, const HeatmapOptions& o,
                                                           bool projected) {
  const std::size_t rank = dims.size();
  std::int64_t rows = 1, columns = 1, row = 0, column = 0;
  if (rank >= 1) {
    const std::int64_t per = ceil_div(dims[rank - 1], o.max_columns);
    columns = ceil_div(dims[rank - 1], per);
    column = e[rank - 1] / per;
  }
  if (rank >= 2) {
    const std::int64_t per = ceil_div(dims[rank - 2], o.max_rows);
    rows = ceil_div(dims[rank - 2], per);
    row = e[rank - 2] / per;
  }
  (void)rows;
  std::int64_t slice = 0;
  if (rank > 2 && !projected) {
    for (std::size_t k = 0; k + 2 < rank; ++k) slice = slice * dims[k] + e[k];
    if (slice >= o.max_slices) return std::nullopt;
  }
  return std::make_pair(static_cast<std::size_t>(slice), static_cast<std::size_t>(row * columns + column));
}

Expected brute_force(const indexing::MapSet& maps, const std::vector<std::int64_t>& dims, const HeatmapOptions& o,
                     bool projected) {
  Expected x;
  for (const IndexingMap& m : maps) {
    if (!m.is_defined()) continue;
    for (const auto& [output, element] : pairs_of(m, true)) {
      ++x.total;
      if (auto at = cell_of(dims, element, o, projected)) ++x.reads[*at];
    }
    for (const auto& [output, element] : pairs_of(m, false))
      if (auto at = cell_of(dims, element, o, projected)) x.may_read.insert(*at);
  }
  return x;
}

void check_against_brute_force(const ReadHeatmap& h, const Expected& x) {
  REQUIRE(h.defined());
  CHECK(h.total_reads == x.total);
  CHECK(h.exact);
  std::int64_t cells_total = 0;
  for (std::size_t s = 0; s < h.slices.size(); ++s) {
    for (std::size_t c = 0; c < h.slices[s].cells.size(); ++c) {
      const auto it = x.reads.find({s, c});
      const std::int64_t expected = it == x.reads.end() ? 0 : it->second;
      INFO(fmt::format("slice {} cell {}", s, c));
      CHECK(h.slices[s].cells[c].reads == expected);
      CHECK(h.slices[s].cells[c].may_read == (x.may_read.count({s, c}) > 0));
      cells_total += h.slices[s].cells[c].reads;
    }
  }
  std::int64_t expected_drawn = 0;
  for (const auto& [at, n] : x.reads) expected_drawn += n;
  CHECK(cells_total == expected_drawn);
}

struct Case {
  std::string fusion;
  std::size_t operand;
};

}  // namespace

TEST_CASE("read heat maps: every cell against brute force, both ways of counting", "[read_heatmap]") {
  const std::vector<hlo::Module> modules = test::parse_ok(k_module);
  const hlo::Module& module = modules[0];
  const hlo::Computation& entry = module.computations[module.entry];
  analysis::ModuleAnalysis analysis(module, {});
  const std::vector<Case> cases = {{"window_sum", 0}, {"transpose_add", 0}, {"window", 0},   {"window", 1},
                                   {"strided", 0},    {"heads", 0},         {"scale", 0},    {"scale", 1},
                                   {"gathered", 0},   {"gathered", 1},      {"flat_sum", 0}, {"broadcast_sum", 0}};
  for (const Case& c : cases) {
    std::uint32_t ii = 0;
    while (entry.instructions[ii].name != c.fusion) ++ii;
    const hlo::Instruction& instr = entry.instructions[ii];
    const hlo::Shape& shape = module.shape_of(entry.instructions[entry.operands_of(instr)[c.operand]]);
    const std::vector<std::int64_t> dims(shape.dims.begin(), shape.dims.end());
    const indexing::MapSet maps = analysis::operand_read_maps(analysis, module.entry, ii, c.operand);
    // Utilisation counts the same reads.
    const indexing::InstructionIndexing indexing = analysis.indexing(module.entry, ii, true, false);
    const analysis::InstructionUtilisation usage = analysis::utilisation(module, entry, instr, indexing);
    for (const std::int64_t cells : {64, 3}) {
      for (const SliceChoice slices : {SliceChoice::kAuto, SliceChoice::kGrid, SliceChoice::kProject}) {
        for (const std::int64_t enumerated : {std::int64_t{1} << 20, std::int64_t{0}}) {
          DYNAMIC_SECTION(fmt::format("{} operand {}, {} cells, slices {}, enumerate up to {}", c.fusion, c.operand,
                                      cells, static_cast<int>(slices), enumerated)) {
            HeatmapOptions o;
            o.max_rows = o.max_columns = cells;
            o.max_slices = 2;
            o.slices = slices;
            o.max_enumerated_points = enumerated;
            const ReadHeatmap h = analysis::read_heatmap(maps, dims, o);
            std::int64_t leading = 1;
            for (std::size_t k = 0; k + 2 < dims.size(); ++k) leading *= dims[k];
            const bool projected =
                dims.size() > 2 && (slices == SliceChoice::kProject || (slices == SliceChoice::kAuto && leading > 2));
            CHECK(h.projected == projected);
            CHECK(h.slices.size() ==
                  static_cast<std::size_t>(projected || dims.size() <= 2 ? 1 : std::min<std::int64_t>(leading, 2)));
            check_against_brute_force(h, brute_force(maps, dims, o, projected));
            CHECK(h.total_reads == usage.operands[c.operand].total_reads.value);
            // Elements per cell: the block, times the leading dimensions in a projection.
            std::int64_t elements = 0;
            for (const auto& cell : h.slices[0].cells) elements += cell.elements;
            std::int64_t slice_size = 1;
            for (std::size_t k = dims.size() > 2 ? dims.size() - 2 : 0; k < dims.size(); ++k) slice_size *= dims[k];
            CHECK(elements == slice_size * (projected ? leading : 1));
          }
        }
      }
    }
  }
}

TEST_CASE("read heat maps: binning, runtime offsets and the memo", "[read_heatmap]") {
  const std::vector<hlo::Module> modules = test::parse_ok(k_module);
  const hlo::Module& module = modules[0];
  const hlo::Computation& entry = module.computations[module.entry];
  analysis::ModuleAnalysis analysis(module, {});
  auto index_of = [&](std::string_view name) {
    std::uint32_t ii = 0;
    while (entry.instructions[ii].name != name) ++ii;
    return ii;
  };
  HeatmapOptions o;
  o.max_rows = o.max_columns = 4;
  // 9 x 11 in at most 4 x 4 cells: 3 rows and 3 columns per cell, the last column of 2.
  const indexing::MapSet window_sum = analysis::operand_read_maps(analysis, module.entry, index_of("window_sum"), 0);
  const ReadHeatmap h = analysis::read_heatmap(window_sum, {9, 11}, o);
  CHECK(h.rows.per_cell == 3);
  CHECK(h.rows.cells == 3);
  CHECK(h.columns.per_cell == 3);
  CHECK(h.columns.cells == 4);
  CHECK(h.slices[0].cells[3].elements == 3 * 2);
  CHECK(h.rows.last(2) == 8);
  CHECK(h.columns.last(3) == 10);
  // A dynamic slice: one execution reads the top-left 4 x 3 block; any other element may be read.
  const indexing::MapSet window = analysis::operand_read_maps(analysis, module.entry, index_of("window"), 0);
  const ReadHeatmap w = analysis::read_heatmap(window, {12, 10}, {});
  CHECK(w.runtime_offsets);
  std::int64_t read = 0, may = 0;
  for (const auto& cell : w.slices[0].cells) {
    read += cell.reads > 0 ? 1 : 0;
    may += cell.may_read ? 1 : 0;
  }
  CHECK(read == 12);
  CHECK(may == 120);
  CHECK(w.slices[0].cells[0].reads == 1);
  CHECK(w.slices[0].cells[3].reads == 0);  // (0, 3): outside the block at offset (0, 0)
  // The memo gives the same heat map for the same maps, and another for other options.
  analysis::ReadHeatmapMemo memo(analysis.offsets().maps());
  const ReadHeatmap& first = memo.of(window_sum, {9, 11}, o);
  CHECK(&memo.of(window_sum, {9, 11}, o) == &first);
  CHECK(&memo.of(window_sum, {9, 11}, {}) != &first);
  CHECK(first.total_reads == h.total_reads);
  // Past the budget of counts: larger cells, the same total.
  HeatmapOptions frugal;
  frugal.max_enumerated_points = 0;
  frugal.max_counts = 6;
  const ReadHeatmap coarse = analysis::read_heatmap(window_sum, {9, 11}, frugal);
  REQUIRE(coarse.defined());
  CHECK(coarse.coarsened);
  CHECK(coarse.rows.cells * coarse.columns.cells < 9 * 11);
  std::int64_t in_cells = 0;
  for (const auto& cell : coarse.slices[0].cells) in_cells += cell.reads;
  CHECK(in_cells == coarse.total_reads);
  CHECK(coarse.total_reads == h.total_reads);
  CHECK_FALSE(h.coarsened);
  // Past the time limit: no heat map, with the reason (counting per block checks the clock first).
  HeatmapOptions hurried;
  hurried.max_enumerated_points = 0;
  hurried.time_limit_seconds = 1e-9;
  const ReadHeatmap late = analysis::read_heatmap(window_sum, {9, 11}, hurried);
  CHECK_FALSE(late.defined());
  CHECK(late.undefined_reason == "counting the reads took longer than 1e-09 s");
  CHECK(late.slices.empty());
  // An undefined map gives no heat map, with the reason.
  const ReadHeatmap none = analysis::read_heatmap({IndexingMap::undefined("because")}, {4}, {});
  CHECK_FALSE(none.defined());
  CHECK(none.undefined_reason == "because");
}

TEST_CASE("one thread group's reads: the units its offsets touch", "[read_heatmap]") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(HloModule g

fused {
  p = f32[64,64]{1,0} parameter(0)
  t = f32[64,64]{1,0} transpose(p), dimensions={1,0}
  ROOT a = f32[64,64]{1,0} add(p, t)
}

ENTRY main {
  x = f32[64,64]{1,0} parameter(0)
  ROOT f = f32[64,64]{1,0} fusion(x), kind=kLoop, calls=fused
}
)");
  const hlo::Module& module = modules[0];
  analysis::ModuleAnalysis analysis(module, {});
  analysis.patterns().set_target(analysis::Target::kGpu);
  const hlo::Computation& entry = module.computations[module.entry];
  const analysis::GroupAccess a = analysis::group_access(analysis, module.entry, entry.root, 0);
  REQUIRE(a.reason.empty());
  // The worst map is the transpose: warp 0's 32 threads read column 0, rows 0 to 31: one
  // element in each of 32 segments of 128 bytes (a row of 64 floats is two segments).
  CHECK(a.maps == 2);
  CHECK(a.verdict.pattern == analysis::ReadPattern::kStrided);
  CHECK(a.verdict.stride == 64);
  REQUIRE(a.reads.threads.size() == 32);
  for (std::size_t k = 0; k < 32; ++k)
    CHECK(a.reads.threads[k] == std::vector<std::int64_t>{static_cast<std::int64_t>(k) * 64});
  REQUIRE(a.units.size() == 32);
  for (std::size_t k = 0; k < 32; ++k) {
    CHECK(a.units[k].unit == static_cast<std::int64_t>(2 * k));
    REQUIRE(a.units[k].slot_reads.size() == 32);
    CHECK(a.units[k].slot_reads[0] == 1);
    CHECK(std::count(a.units[k].slot_reads.begin(), a.units[k].slot_reads.end(), 0) == 31);
  }
  CHECK(a.distinct_elements == 32);
  CHECK(a.reads_total == 32);
}

TEST_CASE("read heat maps: a map of more than 64 variables may read its results' bounding box", "[read_heatmap]") {
  // 65 runtime offsets of 0 or 1 added to d0: row d0 + rt0 + ... + rt64 of an 80 x 8 operand.
  // Pinned (one value of the offsets) its reads are enumerated; where other values may read,
  // counting per block is too slow at 67 variables, so the box of its results stands in: rows 0
  // to 3 + 65 = 68, here exactly the rows some value reaches.
  constexpr int k_offsets = 65;
  std::string runtime, sum, bounds;
  for (int k = 0; k < k_offsets; ++k) {
    runtime += fmt::format("{}rt{}", k > 0 ? ", " : "", k);
    sum += fmt::format(" + rt{}", k);
    bounds += fmt::format(", rt{} in [0, 1]", k);
  }
  const IndexingMap map = indexing::parse_map(
      fmt::format("(d0, d1){{{}}} -> (d0{}, d1), domain: d0 in [0, 3], d1 in [0, 7]{}", runtime, sum, bounds));
  REQUIRE(map.runtime_count() == k_offsets);
  const ReadHeatmap h = analysis::read_heatmap({map}, {80, 8}, {});
  REQUIRE(h.defined());
  CHECK(h.may_read_boxed);
  CHECK(h.runtime_offsets);
  REQUIRE(h.rows.per_cell == 1);
  REQUIRE(h.columns.per_cell == 1);
  std::int64_t reads = 0;
  for (std::int64_t r = 0; r < 80; ++r) {
    for (std::int64_t c = 0; c < 8; ++c) {
      const auto& cell = h.slices[0].cells[static_cast<std::size_t>(r * 8 + c)];
      if (cell.may_read != (r <= 3 + k_offsets)) FAIL("row " << r << ", column " << c);
      if (cell.reads > 0 && !cell.may_read) FAIL("read but not may_read: row " << r << ", column " << c);
      reads += cell.reads;
    }
  }
  CHECK(reads == 4 * 8);  // one value of the offsets: the 4 x 8 block it reads, once each
  CHECK(h.total_reads == 4 * 8);
  // The same map with two offsets is enumerated point by point: no box.
  const IndexingMap few = indexing::parse_map(
      "(d0, d1){rt0, rt1} -> (d0 + rt0 + rt1, d1), domain: d0 in [0, 3], d1 in [0, 7], rt0 in [0, 1], rt1 in [0, 1]");
  CHECK_FALSE(analysis::read_heatmap({few}, {80, 8}, {}).may_read_boxed);
}

}  // namespace test_analysis_read_heatmap_cases

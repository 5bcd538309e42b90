// Read patterns under the access models of each target (coalescing.hpp):
// named cases with known answers (XLA's emitters: loop, row and column
// reductions, tiled transposes; TPU tiles; CPU lines; runtime offsets), and a
// brute-force check on random small ops for every model.
//
// The brute force shares no code with layout/, indexing/ or coalescing.cpp:
// it lays out both arrays with the row-major formula in physical order (one
// level of 2-D tiles for TPU cases), evaluates each op's semantics on logical
// indices, builds each group of the model (a warp of 32 consecutive output
// offsets, or a tile row of a transpose, or the consecutive reads of a
// reduced row; TPU: an output tile with all its iterations; CPU: 16 outputs),
// counts the transfer units touched and the contiguous minimum, and compares
// the means and the verdict with the analysis.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "parser/parse.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_coalescing_cases {

using namespace hlo_index;
using analysis::AccessModel;
using analysis::Coalescing;
using analysis::ReadPattern;
using analysis::Target;

namespace {

using Ints = std::vector<std::int64_t>;

std::string cat_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s.append(l).append("\n");
  return s;
}

std::vector<hlo::Module> parse(const std::string& text) {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "coalescing.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  return modules;
}

// The read patterns of operand `operand` (output `output`) of the entry root
// of `body` (an entry computation and any computations it calls).
std::vector<Coalescing> root_patterns(const std::string& body, std::optional<Target> target, std::size_t operand = 0,
                                      std::size_t output = 0) {
  const std::string text = cat_lines({"HloModule c", "add {", "  a = f32[] parameter(0)", "  b = f32[] parameter(1)",
                                      "  ROOT s = f32[] add(a, b)", "}"}) +
                           body;
  const std::vector<hlo::Module> modules = parse(text);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  analysis::ModuleAnalysis analysis(m, {});
  analysis.patterns().set_target(target);
  const auto logical = analysis.indexing(m.entry, c.root, true, false);
  const auto table =
      analysis::read_patterns(m, c, c.instructions[c.root], logical, analysis.offsets(), analysis.patterns());
  REQUIRE(output < table.size());
  const auto it = table[output].find(operand);
  return it == table[output].end() ? std::vector<Coalescing>{} : it->second;
}

Coalescing root_pattern(const std::string& body, std::optional<Target> target = Target::kGpu, std::size_t operand = 0) {
  const auto patterns = root_patterns(body, target, operand);
  REQUIRE(patterns.size() == 1);
  return patterns[0];
}

const char* const k_row_reduce =
    "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
    "  ROOT r = f32[256] reduce(p, z), dimensions={1}, to_apply=add\n}\n";

}  // namespace

TEST_CASE("coalescing: the target is TPU when a layout has tiles or a memory space", "[indexing][coalescing]") {
  auto gpu = parse("HloModule g\nENTRY e {\n  ROOT p = f32[8,128]{1,0} parameter(0)\n}\n");
  CHECK(analysis::detect_target(gpu[0]) == Target::kGpu);
  auto tiled = parse("HloModule t\nENTRY e {\n  ROOT p = f32[8,128]{1,0:T(8,128)} parameter(0)\n}\n");
  CHECK(analysis::detect_target(tiled[0]) == Target::kTpu);
  auto space = parse("HloModule s\nENTRY e {\n  ROOT p = f32[8,128]{1,0:S(1)} parameter(0)\n}\n");
  CHECK(analysis::detect_target(space[0]) == Target::kTpu);
  CHECK(analysis::parse_target("cpu") == Target::kCpu);
  CHECK_FALSE(analysis::parse_target("ipu").has_value());
}

TEST_CASE("coalescing: the target is CPU when the module calls XLA:CPU's libraries and nothing of a GPU's",
          "[indexing][coalescing]") {
  auto onednn = parse(R"(HloModule c
ENTRY e {
  x = f32[8,128]{1,0} parameter(0)
  ROOT n = f32[8,128]{1,0} custom-call(x), custom_call_target="__onednn$layernorm"
}
)");
  CHECK(analysis::detect_target(onednn[0]) == Target::kCpu);
  auto partitions = parse(R"(HloModule c
f {
  x = f32[8,128]{1,0} parameter(0)
  ROOT n = f32[8,128]{1,0} negate(x)
}
ENTRY e {
  x = f32[8,128]{1,0} parameter(0)
  ROOT r = f32[8,128]{1,0} fusion(x), kind=kLoop, calls=f, backend_config={"outer_dimension_partitions":["2"]}
}
)");
  CHECK(analysis::detect_target(partitions[0]) == Target::kCpu);
  // A GPU library call wins over a CPU-looking config: the module ran on a GPU.
  auto both = parse(R"(HloModule g
ENTRY e {
  x = f32[8,128]{1,0} parameter(0)
  y = f32[128,8]{1,0} parameter(1)
  n = f32[8,128]{1,0} custom-call(x), custom_call_target="__onednn$layernorm"
  ROOT d = (f32[8,8]{1,0}, s8[0]{0}) custom-call(n, y), custom_call_target="__cublas$gemm"
}
)");
  CHECK(analysis::detect_target(both[0]) == Target::kGpu);
  auto queue = parse(R"(HloModule g
f {
  x = f32[8,128]{1,0} parameter(0)
  ROOT n = f32[8,128]{1,0} negate(x)
}
ENTRY e {
  x = f32[8,128]{1,0} parameter(0)
  ROOT r = f32[8,128]{1,0} fusion(x), kind=kLoop, calls=f, backend_config={"operation_queue_id":"0","outer_dimension_partitions":[]}
}
)");
  CHECK(analysis::detect_target(queue[0]) == Target::kGpu);
}

TEST_CASE("coalescing: GPU loop emitter counts 128-byte transactions per warp", "[indexing][coalescing]") {
  auto elementwise = root_pattern("ENTRY e {\n  p = f32[64,64] parameter(0)\n  ROOT n = f32[64,64] negate(p)\n}\n");
  CHECK(elementwise.model == AccessModel::kGpuLoop);
  CHECK(elementwise.pattern == ReadPattern::kCoalesced);
  CHECK(elementwise.transfers == Approx(1.0));
  CHECK(elementwise.used_fraction == Approx(1.0));
  // A small transpose stays with the loop emitter: 32 threads, 32 segments.
  auto transpose = root_pattern(
      "ENTRY e {\n  p = f32[16,128] parameter(0)\n  ROOT t = f32[128,16] transpose(p), dimensions={1,0}\n}\n");
  CHECK(transpose.model == AccessModel::kGpuLoop);
  CHECK(transpose.pattern == ReadPattern::kStrided);
  CHECK(transpose.stride == 128);
  CHECK(transpose.transfers == Approx(16.0));  // 16 rows, two threads per row
  auto strided =
      root_pattern("ENTRY e {\n  p = f32[1024] parameter(0)\n  ROOT s = f32[512] slice(p), slice={[0:1024:2]}\n}\n");
  CHECK(strided.pattern == ReadPattern::kStrided);
  CHECK(strided.transfers == Approx(2.0));
  CHECK(strided.min_transfers == Approx(1.0));
  // Dropping the first element of each 128-element row (llama31's slices):
  // warps straddle rows with a one-element gap and misaligned; the read is
  // still one dense run, judged by the segments it spans.
  auto shifted = root_pattern(
      "ENTRY e {\n  p = bf16[64,128] parameter(0)\n  ROOT s = bf16[64,127] slice(p), slice={[0:64], [1:128]}\n}\n");
  CHECK(shifted.pattern == ReadPattern::kCoalesced);
  CHECK(shifted.transfers == Approx(shifted.min_transfers));
  CHECK(shifted.transfers > 1.0);  // some warps do straddle two segments
  auto broadcast =
      root_pattern("ENTRY e {\n  p = f32[64] parameter(0)\n  ROOT b = f32[64,64] broadcast(p), dimensions={0}\n}\n");
  CHECK(broadcast.pattern == ReadPattern::kBroadcast);
  auto bf16 = root_pattern("ENTRY e {\n  p = bf16[4096] parameter(0)\n  ROOT n = bf16[4096] negate(p)\n}\n");
  CHECK(bf16.pattern == ReadPattern::kCoalesced);
  CHECK(bf16.used_fraction == Approx(0.5));  // 64 bytes of a 128-byte transaction per warp
  CHECK(bf16.groups_sampled == 64);
}

TEST_CASE("coalescing: a variadic reduce through the loop emitter needs 8 transactions per warp",
          "[indexing][coalescing]") {
  // Each warp reads runs of four s32 values 160 bytes apart (the reduced
  // dimension of 10 is fixed at its first point): 8 segments where one would do.
  const std::string body =
      "argmax {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  c = s32[] parameter(2)\n"
      "  d = s32[] parameter(3)\n  m = s32[] maximum(a, c)\n  n = s32[] minimum(b, d)\n"
      "  ROOT t = (s32[], s32[]) tuple(m, n)\n}\n"
      "fused {\n  p0 = s32[256,10,4] parameter(0)\n  p1 = s32[256,10,4] parameter(1)\n  z = s32[] constant(0)\n"
      "  r = (s32[256,4], s32[256,4]) reduce(p0, p1, z, z), dimensions={1}, to_apply=argmax\n"
      "  g0 = s32[256,4] get-tuple-element(r), index=0\n  ROOT n = s32[256,4] negate(g0)\n}\n"
      "ENTRY e {\n  p0 = s32[256,10,4] parameter(0)\n  p1 = s32[256,10,4] parameter(1)\n"
      "  ROOT f = s32[256,4] fusion(p0, p1), kind=kLoop, calls=fused\n}\n";
  auto c = root_pattern(body);
  CHECK(c.model == AccessModel::kGpuLoop);
  CHECK(c.pattern == ReadPattern::kUncoalesced);
  CHECK(c.transfers == Approx(8.0));
  CHECK(c.min_transfers == Approx(1.0));
  CHECK(c.stride == 1);  // most consecutive threads are one apart: the share of unit strides misled before
}

TEST_CASE("coalescing: XLA's reduction emitters", "[indexing][coalescing]") {
  // Row reduction: a warp reads 32 consecutive elements of one row.
  auto row = root_pattern(k_row_reduce);
  CHECK(row.model == AccessModel::kGpuRowReduction);
  CHECK(row.pattern == ReadPattern::kCoalesced);
  CHECK(row.transfers == Approx(1.0));
  // Multi-row: rows of 8, four rows per warp, still contiguous.
  auto multi = root_pattern(
      "ENTRY e {\n  p = f32[1024,8] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[1024] reduce(p, z), dimensions={1}, to_apply=add\n}\n");
  CHECK(multi.model == AccessModel::kGpuRowReduction);
  CHECK(multi.pattern == ReadPattern::kCoalesced);
  // A reduced dimension that is not minor in memory is a column reduction.
  auto column = root_pattern(
      "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[512] reduce(p, z), dimensions={0}, to_apply=add\n}\n");
  CHECK(column.model == AccessModel::kGpuColumnReduction);
  CHECK(column.pattern == ReadPattern::kCoalesced);
  auto init = root_pattern(
      "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[512] reduce(p, z), dimensions={0}, to_apply=add\n}\n",
      Target::kGpu, 1);
  CHECK(init.pattern == ReadPattern::kBroadcast);
  // The same row reduction judged on CPU: every fetched line fully used.
  auto cpu = root_pattern(k_row_reduce, Target::kCpu);
  CHECK(cpu.model == AccessModel::kCpuLines);
  CHECK(cpu.pattern == ReadPattern::kCoalesced);
  CHECK(cpu.used_fraction == Approx(1.0));
}

TEST_CASE("coalescing: XLA's tiled transpose reads tile rows", "[indexing][coalescing]") {
  const std::string fusion =
      "t_body {\n  p = f32[128,256] parameter(0)\n  ROOT t = f32[256,128] transpose(p), dimensions={1,0}\n}\n"
      "ENTRY e {\n  p = f32[128,256] parameter(0)\n  ROOT f = f32[256,128] fusion(p), kind=kInput, calls=t_body\n}\n";
  auto tiled = root_pattern(fusion);
  CHECK(tiled.model == AccessModel::kGpuTiledTranspose);
  CHECK(tiled.pattern == ReadPattern::kCoalesced);
  CHECK(tiled.reason == "tile rows 128 output elements apart");
  // On CPU the same transpose reads one element per line.
  auto cpu = root_pattern(fusion, Target::kCpu);
  CHECK(cpu.pattern == ReadPattern::kStrided);
  CHECK(cpu.used_fraction == Approx(1.0 / 16));
}

TEST_CASE("coalescing: runtime offsets", "[indexing][coalescing]") {
  // A dynamic-slice's offset is the same for every thread: judged at one value.
  auto dynamic = root_pattern(
      "ENTRY e {\n  p = f32[1024] parameter(0)\n  i = s32[] parameter(1)\n"
      "  ROOT d = f32[64] dynamic-slice(p, i), dynamic_slice_sizes={64}\n}\n");
  CHECK(dynamic.pattern == ReadPattern::kCoalesced);
  // A gather's row indices differ between threads: not judged.
  auto gather = root_pattern(
      "ENTRY e {\n  t = f32[100,8] parameter(0)\n  i = s32[64,1] parameter(1)\n"
      "  ROOT g = f32[64,8] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
      "index_vector_dim=1, slice_sizes={1,8}\n}\n");
  CHECK(gather.pattern == ReadPattern::kIrregular);
  CHECK(gather.reason == "data-dependent: runtime offsets that differ between the threads of a group");
  // A device's shard index and its position in the group are the same for every thread, though
  // no operand holds them: judged at one value, not called data-dependent.
  auto shard = root_pattern(
      "ENTRY e {\n  p = f32[4,2048] parameter(0)\n"
      "  ROOT s = f32[4,1024] custom-call(p), custom_call_target=\"SPMDFullToShardShape\"\n}\n");
  CHECK(shard.pattern == ReadPattern::kCoalesced);
  auto exchange = root_pattern(
      "ENTRY e {\n  p = f32[8,1024] parameter(0)\n"
      "  ROOT a = f32[8,1024] all-to-all(p), dimensions={0}, replica_groups={{0,1,2,3,4,5,6,7}}\n}\n");
  CHECK(exchange.pattern == ReadPattern::kCoalesced);
}

TEST_CASE("coalescing: TPU reads whole tiles", "[indexing][coalescing]") {
  // deepseek3's convert.636: bf16 (2,1)-packed tiles read for a tiled output
  // use every tile transferred (the GPU warp model called it strided).
  const std::string convert =
      "ENTRY e {\n  p = f32[3,128,1536]{2,1,0:T(8,128)} parameter(0)\n"
      "  ROOT c = bf16[3,128,1536]{2,1,0:T(8,128)(2,1)} convert(p)\n}\n";
  auto tpu = root_pattern(convert, std::nullopt);
  CHECK(tpu.model == AccessModel::kTpuTiles);
  CHECK(tpu.pattern == ReadPattern::kCoalesced);
  CHECK(tpu.unit_bytes == 4096);
  CHECK(tpu.used_fraction == Approx(1.0));
  const std::string packed =
      "ENTRY e {\n  p = bf16[16,256]{1,0:T(8,128)(2,1)} parameter(0)\n"
      "  ROOT c = f32[16,256]{1,0:T(8,128)} convert(p)\n}\n";
  auto bf16 = root_pattern(packed, std::nullopt);
  CHECK(bf16.pattern == ReadPattern::kCoalesced);
  CHECK(bf16.unit_bytes == 2048);
  CHECK(bf16.transfers == Approx(1.0));
  // A transposing copy between tiled layouts: an output tile (8 of dimension
  // 1 by 128 of dimension 0) takes 8 elements of each of 16 operand tiles.
  auto transposed = root_pattern(
      "ENTRY e {\n  p = f32[256,256]{1,0:T(8,128)} parameter(0)\n"
      "  ROOT c = f32[256,256]{0,1:T(8,128)} copy(p)\n}\n",
      std::nullopt);
  CHECK(transposed.pattern == ReadPattern::kStrided);
  CHECK(transposed.transfers == Approx(16.0));
  CHECK(transposed.used_fraction == Approx(1.0 / 16));
}

// ---------------------------------------------------------------------------
// Brute force.

namespace {

struct Array {
  Ints dims;
  Ints minor_to_major;
  Ints tile;  // empty, or two entries (TPU cases: rank 2 only)
  std::string type = "f32";
  std::int64_t bits = 32;

  std::string text() const {
    std::string s = type + "[";
    for (std::size_t k = 0; k < dims.size(); ++k) s.append(k ? "," : "").append(std::to_string(dims[k]));
    s += "]{";
    for (std::size_t k = 0; k < minor_to_major.size(); ++k)
      s.append(k ? "," : "").append(std::to_string(minor_to_major[k]));
    if (!tile.empty()) s += ":T(" + std::to_string(tile[0]) + "," + std::to_string(tile[1]) + ")";
    return s + "}";
  }
  // Physical sizes, major to minor.
  Ints physical() const {
    Ints p;
    for (std::size_t k = minor_to_major.size(); k-- > 0;) p.push_back(dims[minor_to_major[k]]);
    return p;
  }
  std::int64_t slots() const {
    const Ints p = physical();
    if (tile.empty()) {
      std::int64_t n = 1;
      for (std::int64_t d : p) n *= d;
      return n;
    }
    return (p[0] + tile[0] - 1) / tile[0] * tile[0] * ((p[1] + tile[1] - 1) / tile[1] * tile[1]);
  }
  // The layout formula: row-major in physical order; one level of tiles.
  std::int64_t offset(const Ints& index) const {
    const Ints p = physical();
    Ints phys;
    for (std::size_t k = minor_to_major.size(); k-- > 0;) phys.push_back(index[minor_to_major[k]]);
    if (tile.empty()) {
      std::int64_t o = 0;
      for (std::size_t k = 0; k < p.size(); ++k) o = o * p[k] + phys[k];
      return o;
    }
    const std::int64_t tiles_per_row = (p[1] + tile[1] - 1) / tile[1];
    return ((phys[0] / tile[0]) * tiles_per_row + phys[1] / tile[1]) * tile[0] * tile[1] +
           (phys[0] % tile[0]) * tile[1] + phys[1] % tile[1];
  }
};

// Every index of a box, the last dimension fastest.
std::vector<Ints> box(const Ints& dims) {
  std::vector<Ints> out;
  Ints i(dims.size(), 0);
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  for (std::int64_t k = 0; k < n; ++k) {
    out.push_back(i);
    for (std::size_t j = dims.size(); j-- > 0;) {
      if (++i[j] < dims[j]) break;
      i[j] = 0;
    }
  }
  return out;
}

// One random op: its HLO text and its semantics (operand 0 indices read by
// an output index, in iteration order).
struct Case {
  std::string name, hlo;
  Array in, out;
  std::function<std::vector<Ints>(const Ints&)> reads;
  std::vector<std::int64_t> reduced;  // reduce only
};

Ints random_layout(test::Rng& rng, std::size_t rank) {
  Ints p = rng.permutation(rank);
  return p;
}

Case random_case(test::Rng& rng, bool tpu) {
  Case c;
  const std::size_t rank = tpu ? 2 : static_cast<std::size_t>(rng.uniform(2, 3));
  Ints dims;
  for (std::size_t k = 0; k < rank; ++k) dims.push_back(rng.uniform(2, tpu ? 6 : 12));
  const int type = static_cast<int>(rng.uniform(0, 2));
  c.in.type = type == 0 ? "f32" : type == 1 ? "bf16" : "s8";
  c.in.bits = type == 0 ? 32 : type == 1 ? 16 : 8;
  c.in.dims = dims;
  c.in.minor_to_major = random_layout(rng, rank);
  c.out.type = c.in.type;
  c.out.bits = c.in.bits;
  if (tpu) {
    c.in.tile = {rng.uniform(1, 2) * 2, rng.uniform(1, 2) * 2};
  }
  const int op = static_cast<int>(rng.uniform(0, 3));
  if (op == 0) {  // transpose
    const Ints perm = rng.permutation(rank);
    for (std::size_t k = 0; k < rank; ++k) c.out.dims.push_back(dims[perm[k]]);
    std::string ps;
    for (std::size_t k = 0; k < rank; ++k) ps.append(k ? "," : "").append(std::to_string(perm[k]));
    c.name = "transpose";
    c.hlo = "transpose(p), dimensions={" + ps + "}";
    c.reads = [perm](const Ints& o) {
      Ints i(o.size());
      for (std::size_t k = 0; k < o.size(); ++k) i[perm[k]] = o[k];
      return std::vector<Ints>{i};
    };
  } else if (op == 1) {  // strided slice
    Ints start, stride;
    std::string ss;
    for (std::size_t k = 0; k < rank; ++k) {
      start.push_back(rng.uniform(0, 1));
      stride.push_back(rng.uniform(1, 2));
      const std::int64_t size = (dims[k] - start[k] + stride[k] - 1) / stride[k];
      c.out.dims.push_back(size);
      ss += (k ? ", [" : "[") + std::to_string(start[k]) + ":" + std::to_string(start[k] + (size - 1) * stride[k] + 1) +
            ":" + std::to_string(stride[k]) + "]";
    }
    c.name = "slice";
    c.hlo = "slice(p), slice={" + ss + "}";
    c.reads = [start, stride](const Ints& o) {
      Ints i(o.size());
      for (std::size_t k = 0; k < o.size(); ++k) i[k] = start[k] + o[k] * stride[k];
      return std::vector<Ints>{i};
    };
  } else if (op == 2) {  // reduce over one or more (not all) dimensions
    std::vector<std::int64_t> reduced;
    for (std::size_t k = 0; k < rank; ++k)
      if (rng.chance(50)) reduced.push_back(static_cast<std::int64_t>(k));
    if (reduced.empty()) reduced.push_back(static_cast<std::int64_t>(rng.index(rank)));
    if (reduced.size() == rank) reduced.pop_back();
    Ints kept, reduced_dims;
    std::string rs;
    for (std::size_t k = 0; k < rank; ++k) {
      if (std::find(reduced.begin(), reduced.end(), static_cast<std::int64_t>(k)) != reduced.end()) {
        reduced_dims.push_back(dims[k]);
        rs += (rs.empty() ? "" : ",") + std::to_string(k);
      } else {
        kept.push_back(static_cast<std::int64_t>(k));
        c.out.dims.push_back(dims[k]);
      }
    }
    c.name = "reduce";
    c.reduced = reduced;
    c.hlo = "reduce(p, z), dimensions={" + rs + "}, to_apply=add";
    const std::size_t r = rank;
    c.reads = [kept, reduced, reduced_dims, r](const Ints& o) {
      std::vector<Ints> out;
      for (const Ints& s : box(reduced_dims)) {
        Ints i(r);
        for (std::size_t k = 0; k < kept.size(); ++k) i[kept[k]] = o[k];
        for (std::size_t k = 0; k < reduced.size(); ++k) i[reduced[k]] = s[k];
        out.push_back(i);
      }
      return out;
    };
  } else {  // broadcast of a rank-1 operand into a rank-2 output
    c.in.dims = {dims[0]};
    c.in.minor_to_major = {0};
    c.in.tile.clear();
    c.out.dims = {dims[0], dims[1]};
    const std::int64_t d = rng.uniform(0, 1);
    if (d == 1) c.out.dims = {dims[1], dims[0]};
    c.name = "broadcast";
    c.hlo = "broadcast(p), dimensions={" + std::to_string(d) + "}";
    c.reads = [d](const Ints& o) { return std::vector<Ints>{Ints{o[d]}}; };
  }
  c.out.minor_to_major = random_layout(rng, c.out.dims.size());
  if (tpu && c.out.dims.size() == 2) c.out.tile = {2, 4};
  return c;
}

// The groups the analysis evaluates: all of them up to `most`, else the
// first half and the other half spread evenly.
std::vector<std::int64_t> sampled(std::int64_t groups, std::int64_t most) {
  std::vector<std::int64_t> out;
  if (groups <= most) {
    for (std::int64_t g = 0; g < groups; ++g) out.push_back(g);
    return out;
  }
  const std::int64_t head = most / 2, spread = most - head;
  for (std::int64_t g = 0; g < head; ++g) out.push_back(g);
  for (std::int64_t i = 0; i < spread; ++i) out.push_back(head + i * (groups - head - 1) / (spread - 1));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct Expected {
  double transfers = 0, minimum = 0;
  bool coalesced = false;
  std::int64_t groups = 0;
};

// The model simulated directly: groups of output offsets, the operand
// offsets each reads, units touched and the contiguous minimum.
Expected simulate(const Case& c, const Coalescing& verdict) {
  const std::int64_t slots = c.out.slots();
  std::map<std::int64_t, Ints> at;  // output offset -> logical index (padding slots absent)
  for (const Ints& o : box(c.out.dims)) at[c.out.offset(o)] = o;
  auto reads_of = [&](std::int64_t t) {
    Ints offsets;
    auto it = at.find(t);
    if (it == at.end()) return offsets;
    for (const Ints& i : c.reads(it->second)) offsets.push_back(c.in.offset(i));
    return offsets;
  };
  const AccessModel model = verdict.model;
  const std::int64_t bits = c.in.bits;
  std::int64_t unit = 1024;
  std::int64_t size = 32;
  if (model == AccessModel::kCpuLines) unit = 512, size = 16;
  if (model == AccessModel::kTpuTiles) {
    unit = c.in.tile.empty() ? 4096 : c.in.tile[0] * c.in.tile[1] * bits;
    size = c.out.tile.empty() ? 1024 : c.out.tile[0] * c.out.tile[1];
  }
  std::vector<std::vector<std::int64_t>> groups;
  if (model == AccessModel::kGpuRowReduction) {
    // Rows shorter than a warp share it (32 / row length rows per warp);
    // each row read in ascending offsets, 32 reads a warp.
    std::int64_t rows = 1;
    for (std::int64_t t = 0; t < slots; ++t) {
      const auto n = static_cast<std::int64_t>(reads_of(t).size());
      if (n > 0) {
        rows = std::max<std::int64_t>(1, 32 / n);
        break;
      }
    }
    for (std::int64_t g : sampled((slots + rows - 1) / rows, 64)) {
      std::vector<std::int64_t> warp;
      for (std::int64_t t = g * rows; t < std::min(slots, (g + 1) * rows); ++t) {
        Ints row = reads_of(t);
        std::sort(row.begin(), row.end());
        for (std::int64_t o : row)
          if (static_cast<std::int64_t>(warp.size()) < 32) warp.push_back(o);
      }
      groups.push_back(warp);
    }
  } else if (model == AccessModel::kTpuTiles || model == AccessModel::kCpuLines) {
    const std::int64_t most = model == AccessModel::kTpuTiles ? 4 : 16;
    for (std::int64_t g : sampled((slots + size - 1) / size, most)) {
      std::vector<std::int64_t> all;
      for (std::int64_t t = g * size; t < std::min(slots, (g + 1) * size); ++t) {
        const Ints r = reads_of(t);
        all.insert(all.end(), r.begin(), r.end());
      }
      groups.push_back(all);
    }
  } else {
    // Thread k reads its lowest offset; a tiled transpose's threads are
    // `step` outputs apart, where one step reads the next operand element.
    std::int64_t step = 1;
    if (model == AccessModel::kGpuTiledTranspose) {
      const Ints p = c.out.physical();
      std::int64_t stride = 1;
      for (std::size_t k = p.size(); k-- > 1;) {
        stride *= p[k];
        const Ints a = reads_of(0), b = reads_of(stride);
        if (!a.empty() && !b.empty() &&
            *std::min_element(b.begin(), b.end()) == *std::min_element(a.begin(), a.end()) + 1) {
          step = stride;
          break;
        }
      }
    }
    for (std::int64_t g : sampled((slots + 31) / 32, 64)) {
      const std::int64_t t0 = (g % step) + (g / step) * 32 * step;
      std::vector<std::int64_t> warp;
      for (std::int64_t k = 0; k < 32 && t0 + k * step < slots; ++k) {
        const Ints r = reads_of(t0 + k * step);
        if (!r.empty()) warp.push_back(*std::min_element(r.begin(), r.end()));
      }
      groups.push_back(warp);
    }
  }
  Expected e;
  std::int64_t transfers = 0, minimum = 0;
  for (const auto& group : groups) {
    const std::set<std::int64_t> distinct(group.begin(), group.end());
    if (distinct.empty()) continue;
    std::set<std::int64_t> units;
    for (std::int64_t o : distinct) units.insert(o * bits / unit);
    // Runs split at gaps of a unit or more; a run at least a unit long with
    // 90% of its span read takes the units it spans, the rest pool their bits.
    std::vector<std::vector<std::int64_t>> runs;
    for (std::int64_t o : distinct) {
      if (runs.empty() || (o - runs.back().back()) * bits >= unit) runs.emplace_back();
      runs.back().push_back(o);
    }
    std::int64_t pooled = 0, spanned = 0, largest = 0;
    for (const auto& run : runs) {
      const std::int64_t span = run.back() - run.front() + 1, count = static_cast<std::int64_t>(run.size());
      std::set<std::int64_t> run_units;
      for (std::int64_t o : run) run_units.insert(o * bits / unit);
      const auto touched = static_cast<std::int64_t>(run_units.size());
      const bool dense = 10 * count >= 9 * span;
      if (dense) largest = std::max(largest, touched);
      if (dense && span * bits >= unit)
        spanned += touched;
      else
        pooled += count * bits;
    }
    transfers += static_cast<std::int64_t>(units.size());
    minimum += std::max(largest, spanned + (pooled + unit - 1) / unit);
    ++e.groups;
  }
  if (e.groups == 0) return e;
  e.transfers = static_cast<double>(transfers) / static_cast<double>(e.groups);
  e.minimum = static_cast<double>(minimum) / static_cast<double>(e.groups);
  e.coalesced = 10 * minimum > 9 * transfers;
  return e;
}

}  // namespace

TEST_CASE("coalescing: every target's model equals a direct simulation on random ops",
          "[indexing][coalescing][bruteforce]") {
  test::Rng rng(0xc0a1e5ce);
  int compared = 0;
  for (int n = 0; n < 240; ++n) {
    const Target target = n % 3 == 0 ? Target::kGpu : n % 3 == 1 ? Target::kCpu : Target::kTpu;
    const Case c = random_case(rng, target == Target::kTpu);
    const std::string body = "ENTRY e {\n  p = " + c.in.text() + " parameter(0)\n  z = " + c.in.type +
                             "[] constant(0)\n  ROOT r = " + c.out.text() + " " + c.hlo + "\n}\n";
    INFO(target_name(target) << "\n" << body);
    // The reduce's computation adds f32: give it the operand's type.
    std::string text = body;
    if (c.in.type != "f32") {
      text = "add_t {\n  a = " + c.in.type + "[] parameter(0)\n  b = " + c.in.type +
             "[] parameter(1)\n  ROOT s = " + c.in.type + "[] add(a, b)\n}\n" + body;
      const auto at = text.find("to_apply=add");
      if (at != std::string::npos) text.replace(at, 12, "to_apply=add_t");
    }
    const Coalescing verdict = root_pattern(text, target);
    const Expected e = simulate(c, verdict);
    INFO("model " << model_name(verdict.model) << ", pattern " << pattern_name(verdict.pattern) << ", transfers "
                  << verdict.transfers << " (minimum " << verdict.min_transfers << "), simulated " << e.transfers
                  << " (minimum " << e.minimum << ")");
    if (target == Target::kGpu && c.name == "reduce") {
      const std::int64_t minor = c.in.minor_to_major[0];
      const bool row = std::find(c.reduced.begin(), c.reduced.end(), minor) != c.reduced.end();
      CHECK(verdict.model == (row ? AccessModel::kGpuRowReduction : AccessModel::kGpuColumnReduction));
    }
    REQUIRE(verdict.groups_sampled == e.groups);
    CHECK(verdict.transfers == Approx(e.transfers));
    CHECK(verdict.min_transfers == Approx(e.minimum));
    CHECK(verdict.coalesced() == e.coalesced);
    ++compared;
  }
  CHECK(compared == 240);
}

}  // namespace test_indexing_coalescing_cases

// Hand-written cases of the cost model's counts that the brute force
// (test_cost_bruteforce) found wrong, one per fix, and the closed forms of
// op_costs on sizes no enumeration reaches.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include "cost_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_cost_model_cases {

using namespace hlo_index;
using test::byte_device;
using test::bytes_read;
using test::bytes_written;
using test::cost_module;
using test::named_device;

namespace {

const std::string k_add = R"(
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT a = f32[] add(x, y)
}
)";

std::string module(const std::string& computations, const std::string& entry) {
  return "HloModule m\n" + computations + "\nENTRY e {\n" + entry + "}\n";
}

}  // namespace

// Element 42 of a 6-bit array holds bits 252 to 257: the end of sector 0 and the start of sector 1.
// Counted by its first bit alone, it moved one sector.
TEST_CASE("cost: an element that straddles two transfer units moves both", "[cost]") {
  auto m = cost_module(module("", R"(  x = f6e2m3fn[100]{0} parameter(0)
  ROOT s = f6e2m3fn[1]{0} slice(x), slice={[42:43]}
)"),
                       named_device("h100-sxm"));
  const cost::InstructionCost& c = m.cost("s");
  CHECK(c.operand_reads.at(0).units == 2);
  CHECK(c.operand_reads.at(0).exact);
  auto aligned = cost_module(module("", R"(  x = f6e2m3fn[100]{0} parameter(0)
  ROOT s = f6e2m3fn[1]{0} slice(x), slice={[41:42]}
)"),
                             named_device("h100-sxm"));
  CHECK(aligned.cost("s").operand_reads.at(0).units == 1);  // bits 246 to 251
}

// A transfer unit smaller than an element (a device file may say 1 byte): each element moves all its
// bytes. Counted by its first byte alone, an f32 moved one byte.
TEST_CASE("cost: a transfer unit smaller than an element moves every byte of it", "[cost]") {
  auto m = cost_module(module("", R"(  x = f32[2] parameter(0)
  ROOT s = f32[1] slice(x), slice={[1:2]}
)"),
                       byte_device());
  CHECK(bytes_read(m.cost("s"), 0) == 4);
  CHECK(bytes_written(m.cost("s")) == 4);
}

// f32[3,5] tiled 8 x 128 on a GPU: each row's 5 elements are 20 bytes at the start of a 512-byte tile
// row; the other 125 sectors of the 4 KiB tile hold padding only, which no kernel moves. The whole
// buffer (128 sectors) was charged for a read of every element and for the write.
TEST_CASE("cost: units of tile padding only are not moved", "[cost]") {
  auto m = cost_module(module("", R"(  x = f32[3,5]{1,0:T(8,128)} parameter(0)
  ROOT c = f32[3,5]{1,0:T(8,128)} copy(x)
)"),
                       named_device("h100-sxm"));
  const cost::InstructionCost& c = m.cost("c");
  CHECK(c.operand_reads.at(0).units == 3);
  CHECK(c.output_writes.at(0).units == 3);
  CHECK(c.bytes_exact);
  // On a TPU the unit is the tile, padding included: one.
  auto t = cost_module(module("", R"(  x = f32[3,5]{1,0:T(8,128)} parameter(0)
  ROOT c = f32[3,5]{1,0:T(8,128)} copy(x)
)"),
                       named_device("tpu-v5e"));
  CHECK(t.cost("c").operand_reads.at(0).units == 1);
  CHECK(t.cost("c").operand_reads.at(0).unit_bytes == 4096);
}

// s4 tiled T(3): a tile is 12 bits, so tile 1 starts at bit 12, inside byte 1. Elements 2 and 3 are
// in tiles 0 and 1: two units. With the unit rounded to 2 bytes first, both fell in unit 0.
TEST_CASE("cost: a TPU tile of sub-byte elements is a unit even when it does not end on a byte", "[cost]") {
  auto m = cost_module(module("", R"(  x = s4[6]{0:T(3)} parameter(0)
  ROOT s = s4[2]{0} slice(x), slice={[2:4]}
)"),
                       named_device("tpu-v5e"));
  const cost::InstructionCost& c = m.cost("s");
  CHECK(c.operand_reads.at(0).units == 2);
  CHECK(c.operand_reads.at(0).unit_bytes == 2);
}

// f32[2] under a window of 2 padded 3 on each side: 7 windows over -3..4, holding 0, 0, 1, 2, 1, 0, 0
// elements: one reducer application in all (XLA's convention: 7 x (2 - 1) = 7). op_flops applied XLA's
// count for both.
TEST_CASE("cost: reduce-window applications over windows that meet padding", "[cost]") {
  auto m = cost_module(module(k_add, R"(  x = f32[2] parameter(0)
  z = f32[] constant(0)
  ROOT rw = f32[7] reduce-window(x, z), window={size=2 pad=3_3}, to_apply=add
)"),
                       byte_device());
  const cost::OpFlops f = m.flops("rw");
  CHECK(f.flops == 1);
  CHECK(f.xla_flops == 7);
  // Base dilation: f32[3] dilated to 5 (holes at 1 and 3), windows of 3 at stride 2: 0..2 and 2..4,
  // each over 2 elements.
  auto d = cost_module(module(k_add, R"(  x = f32[3] parameter(0)
  z = f32[] constant(0)
  ROOT rw = f32[2] reduce-window(x, z), window={size=3 stride=2 lhs_dilate=2}, to_apply=add
)"),
                       byte_device());
  CHECK(d.flops("rw").flops == 2);
  CHECK(d.flops("rw").xla_flops == 4);
  // Window dilation and padding in two dimensions: the per-dimension counts multiply.
  auto two = cost_module(module(k_add, R"(  x = f32[4,3] parameter(0)
  z = f32[] constant(0)
  ROOT rw = f32[4,2] reduce-window(x, z), window={size=3x2 pad=2_0x1_0 rhs_dilate=1x2}, to_apply=add
)"),
                         byte_device());
  // Rows: windows -2..0, -1..1, 0..2, 1..3 hold 1, 2, 3, 3 rows. Columns: output c reads columns c - 1
  // and c + 1, which hold 1 and 2 columns. Per output, rows x columns - 1 applications:
  // (1 + 2 + 3 + 3) x (1 + 2) - 4 x 2 = 19.
  CHECK(two.flops("rw").flops == 19);
  CHECK(two.flops("rw").xla_flops == 8 * 5);
}

// Convolutions of a million-element window: the valid positions in closed form (a loop over kernel
// and output positions is 2.7e11 steps here).
TEST_CASE("cost: convolution FLOPs of very long windows in closed form", "[cost]") {
  auto m = cost_module(module("", R"(  input = f32[1,1,1048576] parameter(0)
  kernel = f32[1,1,1048576] parameter(1)
  ROOT conv = f32[1,1,1048576] convolution(input, kernel), window={size=1048576 pad=524288_524287}, dim_labels=bf0_oi0->bf0
)"),
                       byte_device());
  // Output o and window position k read input o + k - 524288: the pairs where it is in [0, 2^20).
  const std::int64_t n = 1048576, low = 524288;
  std::int64_t valid = 0;
  for (std::int64_t k = 0; k < n; ++k) {  // per window position, the outputs whose input is real
    const std::int64_t lo = std::max<std::int64_t>(0, low - k), hi = std::min<std::int64_t>(n - 1, n - 1 + low - k);
    valid += std::max<std::int64_t>(0, hi - lo + 1);
  }
  CHECK(m.flops("conv").xla_flops == 2 * valid);
  // Base dilation 3 and stride 2 with window dilation 5: the residue classes.
  auto d = cost_module(module("", R"(  input = f32[1,1,7] parameter(0)
  kernel = f32[1,1,4] parameter(1)
  ROOT conv = f32[1,1,7] convolution(input, kernel), window={size=4 stride=2 pad=5_4 lhs_dilate=3 rhs_dilate=5}, dim_labels=bf0_oi0->bf0
)"),
                       byte_device());
  std::int64_t direct = 0;
  for (std::int64_t k = 0; k < 4; ++k) {
    for (std::int64_t o = 0; o < 7; ++o) {
      const std::int64_t u = o * 2 - 5 + k * 5;
      if (u >= 0 && u % 3 == 0 && u / 3 < 7) ++direct;
    }
  }
  CHECK(d.flops("conv").xla_flops == 2 * direct);
}

// The instruction's cost takes op_flops' exact count: windows holding no element apply nothing (a
// count of reads beyond the first per window went below zero on them: 4 reads - 7 windows).
TEST_CASE("cost: a standalone reduce-window costs its exact applications", "[cost]") {
  auto m = cost_module(module(k_add, R"(  x = f32[2] parameter(0)
  z = f32[] constant(0)
  ROOT rw = f32[7] reduce-window(x, z), window={size=2 pad=3_3}, to_apply=add
)"),
                       byte_device());
  const cost::InstructionCost& c = m.cost("rw");
  CHECK(c.flops == 1);
  CHECK(c.xla_flops == 7);
  CHECK(c.flops_exact);
}

// A variadic reduce whose second result alone is used: it still runs at every position read.
TEST_CASE("cost: a fused variadic op read through its second result is counted", "[cost]") {
  auto m = cost_module(R"(HloModule m
add2 {
  a0 = f32[] parameter(0)
  a1 = f32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = f32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = f32[] add(a1, b1)
  ROOT t = (f32[], f32[]) tuple(s0, s1)
}
f {
  x = f32[8,16] parameter(0)
  y = f32[8,16] parameter(1)
  z = f32[] constant(0)
  r = (f32[8], f32[8]) reduce(x, y, z, z), dimensions={1}, to_apply=add2
  ROOT g = f32[8] get-tuple-element(r), index=1
}
ENTRY e {
  x = f32[8,16] parameter(0)
  y = f32[8,16] parameter(1)
  ROOT o = f32[8] fusion(x, y), kind=kInput, calls=f
}
)",
                       byte_device());
  const cost::InstructionCost& c = m.cost("o");
  CHECK(c.flops == 2 * 8 * 15);  // two adds per step, 15 steps for each of 8 rows
  CHECK(c.flops_exact);
}

// A reduce-window whose windows near the edge meet padding, sliced to its first elements: the
// average cost per element scales the slice only approximately.
TEST_CASE("cost: a fused op of uneven cost per element, partly evaluated, is not exact", "[cost]") {
  auto m = cost_module(module(k_add + R"(
f {
  x = f32[16] parameter(0)
  z = f32[] constant(0)
  w = f32[16] reduce-window(x, z), window={size=5 pad=2_2}, to_apply=add
  ROOT s = f32[2] slice(w), slice={[0:2]}
}
)",
                              R"(  x = f32[16] parameter(0)
  ROOT o = f32[2] fusion(x), kind=kLoop, calls=f
)"),
                       byte_device());
  const cost::InstructionCost& c = m.cost("o");
  CHECK_FALSE(c.flops_exact);
  auto whole = cost_module(module(k_add + R"(
f {
  x = f32[16] parameter(0)
  z = f32[] constant(0)
  ROOT w = f32[16] reduce-window(x, z), window={size=5 pad=2_2}, to_apply=add
}
)",
                                  R"(  x = f32[16] parameter(0)
  ROOT o = f32[16] fusion(x), kind=kLoop, calls=f
)"),
                           byte_device());
  CHECK(whole.cost("o").flops_exact);  // every element evaluated: the exact total
}

// A fused op evaluated through a runtime offset: how many of its elements one execution evaluates
// depends on the offset's value.
TEST_CASE("cost: evaluations through a runtime offset are not exact", "[cost]") {
  auto m = cost_module(R"(HloModule m
f {
  x = f32[16] parameter(0)
  i = s32[] parameter(1)
  e = f32[16] exponential(x)
  ROOT d = f32[4] dynamic-slice(e, i), dynamic_slice_sizes={4}
}
ENTRY e {
  x = f32[16] parameter(0)
  i = s32[] parameter(1)
  ROOT o = f32[4] fusion(x, i), kind=kLoop, calls=f
}
)",
                       byte_device());
  const cost::InstructionCost& c = m.cost("o");
  CHECK(c.transcendentals == 4);
  CHECK_FALSE(c.flops_exact);
}

}  // namespace test_cost_model_cases

// Coalescing of operand reads under the one-thread-per-output-element model,
// on the reference notes' transpose and reduce examples and simple ops.
#include <catch2/catch.hpp>

#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/physical_indexing.hpp"
#include "layout/physical_layout.hpp"
#include "parser/parse.hpp"

using namespace hlo_index;
using analysis::ReadPattern;

namespace {

// Coalescing of operand `operand` of the entry root of `body`.
analysis::Coalescing root_coalescing(const std::string& body, std::size_t operand = 0) {
  const std::string hlo =
      "HloModule c\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\n" +
      body;
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(hlo, "coalescing.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  const hlo::Instruction& root = c.instructions[c.root];
  indexing::IndexingAnalysis analysis(m, {});
  analysis::PhysicalIndexing physical(m);
  auto maps = physical.apply(c, root, analysis.analyze(m.entry, c.root, true, false));
  const auto out = layout::PhysicalLayout::of(m.shape_of(root));
  const auto& operand_shape = m.shape_of(c.instructions[c.operands_of(root)[operand]]);
  return analysis::coalescing(maps.output_to_input[0][operand], out.allocated_elements(),
                              hlo::element_type_bits(operand_shape.type));
}

}  // namespace

TEST_CASE("coalescing: elementwise reads are coalesced and fill whole segments", "[indexing][coalescing]") {
  auto c = root_coalescing("ENTRY e {\n  p = f32[64,64] parameter(0)\n  ROOT n = f32[64,64] negate(p)\n}\n");
  CHECK(c.pattern == ReadPattern::kCoalesced);
  CHECK(c.stride == 1);
  CHECK(c.segment_fraction == Approx(1.0));
}

TEST_CASE("coalescing: a transpose that moves the minor dimension is strided", "[indexing][coalescing]") {
  // The notes' transpose example: XLA's heuristic also calls it not coalesced.
  auto c = root_coalescing(
      "ENTRY e {\n  p = f32[64,128] parameter(0)\n  ROOT t = f32[128,64] transpose(p), dimensions={1,0}\n}\n");
  CHECK(c.pattern == ReadPattern::kStrided);
  CHECK(c.stride == 128);
  CHECK(c.segment_fraction == Approx(1.0 / 32));
  // The same transpose as a layout change only (a bitcast-like copy between
  // layouts whose physical order agrees) reads consecutively.
  auto same_order = root_coalescing(
      "ENTRY e {\n  p = f32[64,128]{0,1} parameter(0)\n  ROOT t = f32[128,64]{1,0} transpose(p), "
      "dimensions={1,0}\n}\n");
  CHECK(same_order.pattern == ReadPattern::kCoalesced);
}

TEST_CASE("coalescing: reductions, broadcasts, strided slices, dynamic slices", "[indexing][coalescing]") {
  // A row reduction with one thread per output row walks rows 512 apart.
  auto row = root_coalescing(
      "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[256] reduce(p, z), dimensions={1}, to_apply=add\n}\n");
  CHECK(row.pattern == ReadPattern::kStrided);
  CHECK(row.stride == 512);
  // A column reduction: consecutive outputs are consecutive columns.
  auto column = root_coalescing(
      "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[512] reduce(p, z), dimensions={0}, to_apply=add\n}\n");
  CHECK(column.pattern == ReadPattern::kCoalesced);
  // Its init value is one element every thread reads.
  auto init = root_coalescing(
      "ENTRY e {\n  p = f32[256,512] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[512] reduce(p, z), dimensions={0}, to_apply=add\n}\n",
      1);
  CHECK(init.pattern == ReadPattern::kBroadcast);
  auto broadcast =
      root_coalescing("ENTRY e {\n  p = f32[64] parameter(0)\n  ROOT b = f32[64,64] broadcast(p), dimensions={0}\n}\n");
  CHECK(broadcast.pattern == ReadPattern::kBroadcast);
  auto strided =
      root_coalescing("ENTRY e {\n  p = f32[1024] parameter(0)\n  ROOT s = f32[512] slice(p), slice={[0:1024:2]}\n}\n");
  CHECK(strided.pattern == ReadPattern::kStrided);
  CHECK(strided.stride == 2);
  CHECK(strided.segment_fraction == Approx(0.5));
  auto dynamic = root_coalescing(
      "ENTRY e {\n  p = f32[1024] parameter(0)\n  i = s32[] parameter(1)\n"
      "  ROOT d = f32[64] dynamic-slice(p, i), dynamic_slice_sizes={64}\n}\n");
  CHECK(dynamic.pattern == ReadPattern::kIrregular);
  CHECK(dynamic.reason == "data-dependent: runtime offsets");
}

TEST_CASE("coalescing: bf16 reads pack 64 elements into a segment", "[indexing][coalescing]") {
  auto c = root_coalescing("ENTRY e {\n  p = bf16[4096] parameter(0)\n  ROOT n = bf16[4096] negate(p)\n}\n");
  CHECK(c.pattern == ReadPattern::kCoalesced);
  CHECK(c.segment_fraction == Approx(1.0));
  CHECK(c.groups_sampled == 64);
}

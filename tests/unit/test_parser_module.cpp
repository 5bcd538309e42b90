// Whole-module parsing: the forms real dumps contain (issue #2, items 1-10).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse_helpers.hpp"
#include "parser/attributes.hpp"
#include "parser/document.hpp"
#include "parser/parse.hpp"
#include "parser/print.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_module_cases {

using namespace hlo_index;
using test::first_error;
using test::parse_ok;

namespace {

const hlo::Instruction& find(const hlo::Computation& c, std::string_view name) {
  for (const hlo::Instruction& i : c.instructions)
    if (i.name == name) return i;
  FAIL("no instruction " << name);
  return c.instructions.front();
}

// Re-printing and re-parsing gives the same bytes.
void check_round_trip(const hlo::Module& module) {
  std::string printed = parser::print_module(module);
  auto again = parse_ok(printed);
  REQUIRE(again.size() == 1);
  CHECK(parser::print_module(again[0]) == printed);
}

}  // namespace

TEST_CASE("a module with header, signature, ROOT, typed and untyped operands") {
  auto modules = parse_ok(R"(
HloModule m, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0})->f32[3,2]{1,0}}

ENTRY %main (p0: f32[2,3]) -> f32[3,2] {
  %p0 = f32[2,3]{1,0} parameter(0)
  %t = f32[3,2]{1,0} transpose(f32[2,3]{1,0} %p0), dimensions={1,0}
  ROOT %n = f32[3,2]{1,0} negate(t)
}
)");
  const hlo::Module& m = modules[0];
  CHECK(m.name == "m");
  REQUIRE(m.attributes.size() == 2);
  CHECK(m.attributes[1].name == "entry_computation_layout");
  REQUIRE(m.computations.size() == 1);
  const hlo::Computation& c = m.computations[0];
  CHECK(c.is_entry);
  REQUIRE(c.signature.size() == 1);
  CHECK(c.signature[0].name == "p0");
  REQUIRE(c.instructions.size() == 3);
  CHECK(c.root == 2);
  const hlo::Instruction& t = find(c, "t");
  CHECK(t.opcode == hlo::Opcode::kTranspose);
  CHECK(c.operands_of(t).size() == 1);
  CHECK(c.operands_of(t)[0] == 0);
  CHECK(parser::int_list_attribute(c, t, "dimensions") == std::vector<std::int64_t>{1, 0});
  CHECK(find(c, "p0").parameter_number == 0);
  check_round_trip(m);
}

TEST_CASE("headerless text: the last computation is the entry, its last instruction the root") {
  auto modules = parse_ok(R"(
fused {
  p = f32[4] parameter(0)
  ROOT e = f32[4] exponential(p)
}
main {
  a = f32[4] parameter(0)
  b = f32[4] fusion(a), kind=kLoop, calls=fused
  c = f32[4] negate(b)
})");
  const hlo::Module& m = modules[0];
  CHECK_FALSE(m.has_header);
  CHECK(m.name == "main");
  CHECK(m.entry == 1);
  const hlo::Computation& main = m.computations[1];
  CHECK(main.root == 2);
  CHECK(main.instructions[2].is_root);
  const hlo::Instruction& fusion = find(main, "b");
  REQUIRE(main.callees_of(fusion).size() == 1);
  CHECK(main.callees_of(fusion)[0] == 0);
  CHECK(main.attribute(fusion, "kind") == "kLoop");
  check_round_trip(m);
}

TEST_CASE("the 2017 header and computations called before they are defined") {
  auto modules = parse_ok(R"(HloModule convolution.167:

ENTRY %convolution.167 (parameter.0: f32[16,28,28,128]) -> f32[16,28,28,128] {
  %parameter.0 = f32[16,28,28,128]{3,0,2,1} parameter(0)
  ROOT %c = f32[16,28,28,128]{3,0,2,1} call(%parameter.0), to_apply=%later
}

%later (x: f32[16,28,28,128]) -> f32[16,28,28,128] {
  ROOT %x = f32[16,28,28,128]{3,0,2,1} parameter(0)
}
)");
  CHECK(modules[0].name == "convolution.167");
  CHECK(modules[0].entry == 0);
}

TEST_CASE("several modules: '// -----' separators and PyTorch/XLA graph wrappers") {
  auto split = parse_ok(
      "HloModule a\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n// -----\n"
      "// a comment between modules\nHloModule b\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"
      "// ----------------------\n");
  REQUIRE(split.size() == 2);
  CHECK(split[1].name == "b");
  auto wrapped = parse_ok(
      "[ScheduleSyncTensorsGraph]\nTensorsGraphInfo:\n  mark_step (x.py:1)\n\nHashes: (1, 2)\n\n"
      "## BEGIN_GRAPH\nHloModule IrToHlo.1\nENTRY %e {\n  ROOT %p = f32[] parameter(0)\n}\n"
      "## END_GRAPH\n\nnot HLO at all {{{\n## BEGIN_GRAPH\nHloModule IrToHlo.2\n"
      "ENTRY %e {\n  ROOT %p = f32[] parameter(0)\n}\n## END_GRAPH\n");
  REQUIRE(wrapped.size() == 2);
  CHECK(wrapped[1].name == "IrToHlo.2");
}

TEST_CASE("comments, stack-frame tables, trailing computation attributes, multi-line instructions") {
  auto modules = parse_ok(
      "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n"
      "FileNames\n1 \"a.py\"\n2 \"<embedded module \\'_launcher\\'>\"\n\nFunctionNames\n1 \"f\"\n\n"
      "FileLocations\n1 {file_name_id=1 function_name_id=1 line=6 end_line=6 column=11 end_column=20}\n\n"
      "StackFrames\n1 {file_location_id=1 parent_frame_id=1}\n\n"
      "%sc (p: f32[2]) -> f32[2] {\n  ROOT %p = f32[2]{0} parameter(0)\n}, execution_thread=\"sparsecore\"\n\n"
      "ENTRY %e (x: f32[2]) -> f32[2] {\n  /* leading */ %x = f32[2]{0} parameter(0), stack_frame_id=1\n"
      "  // CHECK: something\n  ROOT %t = (f32[2]{0}, /*index=1*/f32[2]{0})\n"
      "\ttuple(%x,\n\t  %x), metadata={op_name=\"t\"}\n}\n");
  const hlo::Module& m = modules[0];
  REQUIRE(m.stack_frame_tables.size() == 4);
  CHECK(m.stack_frame_tables[0].entries.size() == 2);
  CHECK(m.stack_frame_tables[2].name == "FileLocations");
  CHECK(m.computations[0].trailing_attributes.size() == 1);
  const hlo::Computation& e = m.computations[1];
  CHECK(e.instructions.size() == 2);
  CHECK(m.shape_of(e.instructions[1]).elements.size() == 2);
  check_round_trip(m);
}

TEST_CASE("attributes of every kind are kept, unknown ones are never rejected") {
  auto modules = parse_ok(R"(
HloModule m
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %e (p: f32[4,8]) -> f32[4] {
  %p = f32[4,8]{1,0} parameter(0), sharding={devices=[2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  %z = f32[] constant(-inf)
  %sl = f32[2,8]{1,0} slice(%p), slice={[0:4:2], [0:8]}
  %pd = f32[5,8]{1,0} pad(%sl, %z), padding=1_1_1x0_0
  %rw = f32[4,8]{1,0} reduce-window(%p, %z), window={size=1x3 pad=0_0x1_1}, to_apply=%add
  %ag = f32[4,8]{1,0} all-gather(%p), replica_groups=[1,512]<=[512], dimensions={0}, channel_id=1
  %ar = f32[4,8]{1,0} all-reduce(%p), replica_groups={{0,1},{2,3}}, to_apply=%add
  %cc = f32[4,8]{1,0} custom-call(%p), custom_call_target="__cublas$lt$matmul", backend_config={"a":{"b":[1,2]}}, origin={{"a"}}
  %q = f32[4,8]{1,0} custom-call(%p), custom_call_target="x", backend_config="{\"escaped\": 1}", operand_layout_constraints={f32[4,8]{1,0}}
  %m = f32[4,8]{1,0} custom-call(%p), custom_call_target="y", backend_config={key = "\7F\A4\F6", n = 0.200000e+00 : f32}, control-predecessors={%q}
  %d = f32[4,8]{1,0} dot(%p, %p), lhs_contracting_dims={1}, rhs_contracting_dims={1}, sparsity=L.1@2:4, result_accuracy={tolerance={atol=0,rtol=0,ulps=10}}
  %ag2 = f32[4,8]{1,0} all-gather(%p), replica_groups=mesh['axis_0'=4,'axis_1'=1] {'axis_0'}, dimensions={0}
  ROOT %r = f32[4]{0} reduce(%p, %z), dimensions={1}, to_apply=%add, frontend_attributes={_xla_x="1"}
}
)");
  const hlo::Computation& e = modules[0].computations[1];
  CHECK(e.attribute(find(e, "ag2"), "dimensions") == "{0}");
  CHECK(e.attribute(find(e, "ag2"), "replica_groups") == "mesh['axis_0'=4,'axis_1'=1] {'axis_0'}");
  CHECK(parser::slice_attribute(e, find(e, "sl"))->at(0) == parser::SliceDim{0, 4, 2});
  CHECK(parser::padding_attribute(e, find(e, "pd"))->at(0) == parser::PaddingDim{1, 1, 1});
  CHECK(parser::window_attribute(e, find(e, "rw"))->at(1).pad_high == 1);
  CHECK(parser::dot_dimensions(e, find(e, "d")).rhs_contracting == std::vector<std::int64_t>{1});
  check_round_trip(modules[0]);
}

TEST_CASE("constants: special floats, complex, arrays, booleans") {
  auto modules = parse_ok(R"(
ENTRY e {
  a = f32[] constant(-inf)
  b = f32[] constant(nan)
  c = c64[] constant((1, 0))
  d = f32[0]{0} constant({})
  f = f32[2,2]{1,0} constant({ { 1.5e-3, -2 }, { 0x1p3, inf } })
  g = pred[2]{0} constant({true, false})
  ROOT t = (f32[], f32[], c64[], f32[0], f32[2,2], pred[2]) tuple(a, b, c, d, f, g)
})");
  const hlo::Computation& c = modules[0].computations[0];
  CHECK(find(c, "c").literal == "(1, 0)");
  CHECK(find(c, "f").literal == "{ { 1.5e-3, -2 }, { 0x1p3, inf } }");
  check_round_trip(modules[0]);
}

TEST_CASE("inline operand instructions, left-out shapes, typed literal attributes") {
  auto modules = parse_ok(R"(
e {
  a = f32[] exponential(f32[] parameter(0))
  t = tuple(a, a)
  ROOT g = get-tuple-element(t), index=1
}
f {
  p = f32[2,3] parameter(0)
  ROOT c = f32[2,3] custom-call(f32[2,3] p), custom_call_target="SetBound", literal=s32[] 1
})");
  const hlo::Computation& c = modules[0].computations[0];
  REQUIRE(c.instructions.size() == 4);
  CHECK(c.instructions[0].opcode == hlo::Opcode::kParameter);
  CHECK(modules[0].shape_of(find(c, "t")).elements.size() == 2);
  CHECK(hlo::to_string(modules[0].shape_of(find(c, "g"))) == "f32[]");
  const hlo::Computation& f = modules[0].computations[1];
  CHECK(f.attribute(find(f, "c"), "literal") == "s32[] 1");
}

TEST_CASE("truncated input: an error by default, a warning when allowed") {
  std::string text = "HloModule m\nENTRY %e {\n  %p = f32[] parameter(0)\n  %q = f32[] call(%p), to_apply=%gone\n";
  CHECK(first_error(text) ==
        "2:10: computation 'e' is not closed: expected '}' before the end of the input (a dump "
        "cut off here? --allow-truncated keeps what is there, with a warning)");
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "t.hlo", diagnostics, {.allow_truncated = true});
  CHECK_FALSE(diagnostics.has_errors());
  CHECK(diagnostics.warning_count() == 2);
  REQUIRE(modules.size() == 1);
  CHECK(modules[0].computations[0].instructions.size() == 2);
  CHECK(modules[0].computations[0].callees[0] == hlo::k_none);
}

TEST_CASE("semantic errors point at the offending token") {
  CHECK(first_error("ENTRY e {\n  ROOT a = f32[] negate(b)\n}") == "2:25: use of undefined value 'b'");
  CHECK(first_error("ENTRY e {\n  a = f32[] parameter(0)\n  ROOT a = f32[] negate(a)\n}") ==
        "3:8: redefinition of 'a' in computation 'e'");
  CHECK(first_error("ENTRY e {\n  p = f32[2] parameter(0)\n  ROOT b = f32[2,3] broadcast(p), dimensions={0,1}\n}") ==
        "3:46: 'dimensions' has 2 entries but the operand has rank 1");
  CHECK(first_error("ENTRY e {\n}") == "1:9: computation 'e' has no instructions; it needs a ROOT");
}

namespace {

// hlo_regions as the plain definition says: every line, one at a time.
std::vector<std::string_view> regions_line_by_line(std::string_view text) {
  struct Line {
    std::string_view content;
    std::size_t begin, end;
  };
  std::vector<Line> lines;
  for (std::size_t begin = 0; begin < text.size();) {
    std::size_t end = std::min(text.find('\n', begin), text.size());
    lines.push_back({text.substr(begin, end - begin), begin, end});
    begin = end + 1;
  }
  auto is_separator = [](std::string_view line) {
    return line.starts_with("// -----") && line.substr(8).find_first_not_of(" \t\r") == std::string_view::npos;
  };
  bool wrapped = false;
  for (const Line& line : lines) wrapped = wrapped || line.content.starts_with("## BEGIN_GRAPH");
  std::vector<std::string_view> regions;
  if (wrapped) {
    std::size_t open = std::string_view::npos;
    for (const Line& line : lines) {
      if (line.content.starts_with("## BEGIN_GRAPH")) {
        open = line.end;
      } else if (line.content.starts_with("## END_GRAPH") && open != std::string_view::npos) {
        regions.push_back(text.substr(open, line.begin - open));
        open = std::string_view::npos;
      }
    }
    if (open != std::string_view::npos) regions.push_back(text.substr(open));
    return regions;
  }
  std::size_t start = 0;
  for (const Line& line : lines) {
    if (!is_separator(line.content)) continue;
    regions.push_back(text.substr(start, line.begin - start));
    start = line.end;
  }
  regions.push_back(text.substr(start));
  return regions;
}

}  // namespace

TEST_CASE("hlo_regions finds the marker lines wherever they fall, as a line-by-line reading does") {
  // Markers at the start, the end, back to back, across the 16-byte blocks the search
  // reads, with CRLF, and look-alikes that are not markers.
  const std::vector<std::string> pieces = {
      "// -----",   "// ------",   "// -----  ", "// -----\r", "## BEGIN_GRAPH", "## END_GRAPH", "#", "/",  "//", "x",
      "  // -----", "HloModule m", "ENTRY e {",  "}",          "/* // ---",      "a = f32[] b",  "",  "\r",
  };
  std::uint32_t state = 12345;
  auto next = [&state](std::uint32_t n) {
    state = state * 1664525u + 1013904223u;
    return (state >> 8) % n;
  };
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    const std::uint32_t lines = next(12);
    for (std::uint32_t k = 0; k < lines; ++k) {
      text += pieces[next(static_cast<std::uint32_t>(pieces.size()))];
      text += std::string(next(20), 'y');  // moves the next line across block boundaries
      if (next(8) != 0 || k + 1 < lines) text += '\n';
    }
    INFO(text);
    CHECK(parser::hlo_regions(text) == regions_line_by_line(text));
  }
}

}  // namespace test_parser_module_cases

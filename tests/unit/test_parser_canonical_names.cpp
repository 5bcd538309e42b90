// Canonical names (parser/canonical_names.hpp): stems, positions, collisions,
// renumbered dumps, and the module renamed in place with its calls intact.
#include <catch2/catch.hpp>
#include <string>

#include "parser/canonical_names.hpp"
#include "parser/print.hpp"
#include "tests/corpus.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_canonical_names_cases {

using namespace hlo_index;

namespace {

hlo::Module parse_one(const std::string& text) {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "test.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE_FALSE(diagnostics.has_errors());
  REQUIRE(modules.size() == 1);
  return std::move(modules.front());
}

// `module` printed as it is named, without the attributes print_canonical leaves out.
std::string print_without_run_specific(const hlo::Module& module) {
  parser::PrintOptions options;
  options.dropped_attributes = {"metadata", "backend_config", "frontend_attributes", "stack_frame_id"};
  options.stack_frame_tables = false;
  return parser::print_module(module, options);
}

hlo::Module renamed(hlo::Module module) {
  parser::rename_canonically(module);
  return module;
}

std::string callee_name(const hlo::Module& m, const hlo::Computation& c, std::string_view instruction, std::size_t k) {
  for (const hlo::Instruction& i : c.instructions) {
    if (i.name != instruction) continue;
    REQUIRE(k < c.callees_of(i).size());
    REQUIRE(c.callees_of(i)[k] != hlo::k_none);
    return std::string(m.computations[c.callees_of(i)[k]].name);
  }
  FAIL("no instruction " << instruction);
  return {};
}

// Fusions, a reduce, a while loop, a conditional and control predecessors; the
// numeric suffixes are XLA's usual ones.
const char* const k_module = R"(HloModule jit_step.42, entry_computation_layout={(f32[8,16]{1,0}, s32[])->f32[8]{0}}

FileNames
1 "model.py"

%add.clone.3 (x.1: f32[], y.2: f32[]) -> f32[] {
  %x.1 = f32[] parameter(0)
  %y.2 = f32[] parameter(1)
  ROOT %add.5 = f32[] add(%x.1, %y.2)
}

%fused_computation.12 (param_0.7: f32[8,16], param_1.9: s32[]) -> f32[8] {
  %param_0.7 = f32[8,16]{1,0} parameter(0)
  %param_1.9 = s32[] parameter(1)
  %constant.17 = s32[] constant(0)
  %dynamic-slice.4 = f32[8,8]{1,0} dynamic-slice(%param_0.7, %constant.17, %param_1.9), dynamic_slice_sizes={8,8}
  %constant.18 = f32[] constant(0)
  ROOT %reduce.21 = f32[8]{0} reduce(%dynamic-slice.4, %constant.18), dimensions={1}, to_apply=%add.clone.3
}

%fused_computation.13 (param_0.8: f32[8]) -> f32[8] {
  %param_0.8 = f32[8]{0} parameter(0)
  ROOT %negate.2 = f32[8]{0} negate(%param_0.8)
}

%cond.60 (c.1: s32[]) -> pred[] {
  %c.1 = s32[] parameter(0)
  %constant.61 = s32[] constant(3)
  ROOT %compare.62 = pred[] compare(%c.1, %constant.61), direction=LT
}

%body.70 (b.1: s32[]) -> s32[] {
  %b.1 = s32[] parameter(0)
  %constant.71 = s32[] constant(1)
  ROOT %add.72 = s32[] add(%b.1, %constant.71)
}

ENTRY %main.99 (Arg_0.1: f32[8,16], Arg_1.2: s32[]) -> f32[8] {
  %Arg_0.1 = f32[8,16]{1,0} parameter(0), metadata={op_name="jit(step)/x" source_file="model.py" source_line=3}
  %Arg_1.2 = s32[] parameter(1), stack_frame_id=1
  %while.80 = s32[] while(%Arg_1.2), condition=%cond.60, body=%body.70, backend_config={"known_trip_count":{"n":"3"}}
  %fusion.3 = f32[8]{0} fusion(%Arg_0.1, %while.80), kind=kInput, calls=%fused_computation.12, metadata={op_name="jit(step)/reduce"}
  %fusion.4 = f32[8]{0} fusion(%fusion.3), kind=kLoop, calls=%fused_computation.13, control-predecessors={%while.80}
  ROOT %conditional.5 = f32[8]{0} conditional(%Arg_1.2, %fusion.4, %fusion.3), branch_computations={%fused_computation.13, %fused_computation.13}, frontend_attributes={_xla_stream="1"}
}
)";

// The same module as another compiler run might number it, with other metadata.
const char* const k_renumbered = R"(HloModule jit_step.7, entry_computation_layout={(f32[8,16]{1,0}, s32[])->f32[8]{0}}

%add.clone.1 (x.4: f32[], y.5: f32[]) -> f32[] {
  %x.4 = f32[] parameter(0)
  %y.5 = f32[] parameter(1)
  ROOT %add.6 = f32[] add(%x.4, %y.5)
}

%fused_computation.2 (param_0.1: f32[8,16], param_1.3: s32[]) -> f32[8] {
  %param_0.1 = f32[8,16]{1,0} parameter(0)
  %param_1.3 = s32[] parameter(1)
  %constant.1 = s32[] constant(0)
  %dynamic-slice = f32[8,8]{1,0} dynamic-slice(%param_0.1, %constant.1, %param_1.3), dynamic_slice_sizes={8,8}
  %constant.2 = f32[] constant(0)
  ROOT %reduce = f32[8]{0} reduce(%dynamic-slice, %constant.2), dimensions={1}, to_apply=%add.clone.1
}

%fused_computation.5 (param_0.2: f32[8]) -> f32[8] {
  %param_0.2 = f32[8]{0} parameter(0)
  ROOT %negate.9 = f32[8]{0} negate(%param_0.2)
}

%cond (c: s32[]) -> pred[] {
  %c = s32[] parameter(0)
  %constant.3 = s32[] constant(3)
  ROOT %compare = pred[] compare(%c, %constant.3), direction=LT
}

%body.1 (b: s32[]) -> s32[] {
  %b = s32[] parameter(0)
  %constant.4 = s32[] constant(1)
  ROOT %add = s32[] add(%b, %constant.4)
}

ENTRY %main.3 (Arg_0.7: f32[8,16], Arg_1.8: s32[]) -> f32[8] {
  %Arg_0.7 = f32[8,16]{1,0} parameter(0), metadata={op_name="jit(step)/y" source_file="other.py" source_line=30}
  %Arg_1.8 = s32[] parameter(1)
  %while.1 = s32[] while(%Arg_1.8), condition=%cond, body=%body.1, backend_config={"known_trip_count":{"n":"3"},"x":1}
  %fusion = f32[8]{0} fusion(%Arg_0.7, %while.1), kind=kInput, calls=%fused_computation.2
  %fusion.1 = f32[8]{0} fusion(%fusion), kind=kLoop, calls=%fused_computation.5, control-predecessors={%while.1}
  ROOT %conditional = f32[8]{0} conditional(%Arg_1.8, %fusion.1, %fusion), branch_computations={%fused_computation.5, %fused_computation.5}
}
)";

const char* const k_canonical = R"(HloModule jit_step, entry_computation_layout={(f32[8,16]{1,0}, s32[])->f32[8]{0}}

%add.clone (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %add = f32[] add(%x, %y)
}

%fused_computation (param_0: f32[8,16], param_1: s32[]) -> f32[8] {
  %param_0 = f32[8,16]{1,0} parameter(0)
  %param_1 = s32[] parameter(1)
  %constant = s32[] constant(0)
  %dynamic-slice = f32[8,8]{1,0} dynamic-slice(%param_0, %constant, %param_1), dynamic_slice_sizes={8,8}
  %constant.1 = f32[] constant(0)
  ROOT %reduce = f32[8]{0} reduce(%dynamic-slice, %constant.1), dimensions={1}, to_apply=%add.clone
}

%fused_computation.1 (param_0: f32[8]) -> f32[8] {
  %param_0 = f32[8]{0} parameter(0)
  ROOT %negate = f32[8]{0} negate(%param_0)
}

%cond (c: s32[]) -> pred[] {
  %c = s32[] parameter(0)
  %constant = s32[] constant(3)
  ROOT %compare = pred[] compare(%c, %constant), direction=LT
}

%body (b: s32[]) -> s32[] {
  %b = s32[] parameter(0)
  %constant = s32[] constant(1)
  ROOT %add = s32[] add(%b, %constant)
}

ENTRY %main (Arg_0: f32[8,16], Arg_1: s32[]) -> f32[8] {
  %Arg_0 = f32[8,16]{1,0} parameter(0)
  %Arg_1 = s32[] parameter(1)
  %while = s32[] while(%Arg_1), condition=%cond, body=%body
  %fusion = f32[8]{0} fusion(%Arg_0, %while), kind=kInput, calls=%fused_computation
  %fusion.1 = f32[8]{0} fusion(%fusion), kind=kLoop, calls=%fused_computation.1, control-predecessors={%while}
  ROOT %conditional = f32[8]{0} conditional(%Arg_1, %fusion.1, %fusion), branch_computations={%fused_computation.1, %fused_computation.1}
}
)";

// `name` with every numeric part N between dots replaced by 7·N + 3: another
// numbering, as injective as the first.
std::string renumber(std::string_view name) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    const std::string_view part = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    const bool number =
        !part.empty() && part.size() < 12 && part.find_first_not_of("0123456789") == std::string_view::npos;
    out += number ? std::to_string(std::stoll(std::string(part)) * 7 + 3) : std::string(part);
    if (dot == std::string_view::npos) return out;
    out += '.';
    start = dot + 1;
  }
}

// `module` printed with every name renumbered.
std::string print_renumbered(const hlo::Module& module) {
  const std::string module_name = renumber(module.name);
  std::vector<std::string> computations;
  std::vector<std::vector<std::string>> instructions;
  for (const hlo::Computation& c : module.computations) {
    computations.push_back(renumber(c.name));
    auto& names = instructions.emplace_back();
    for (const hlo::Instruction& i : c.instructions) names.push_back(renumber(i.name));
  }
  parser::PrintOptions options;
  options.rename = [&](std::uint32_t c, std::uint32_t i) -> std::string_view {
    if (c == hlo::k_none) return module_name;
    return i == hlo::k_none ? computations[c] : instructions[c][i];
  };
  return parser::print_module(module, options);
}

// Every module of the corpus in `dir`: its canonical text is a fixed point of
// renaming, and a renumbered copy gives the same canonical text.
void check_canonical_names_of_corpus(const std::filesystem::path& dir) {
  REQUIRE(std::filesystem::is_directory(dir));
  for (const auto& file : corpus::files(dir)) {
    DYNAMIC_SECTION(file.filename().string()) {
      const parser::ParseOptions lenient{.allow_truncated = true};
      parser::DiagnosticEngine diagnostics;
      const std::string text = corpus::read(file);
      auto modules = parser::parse_hlo_text(text, file.filename().string(), diagnostics, lenient);
      auto copies = parser::parse_hlo_text(text, file.filename().string(), diagnostics, lenient);
      REQUIRE_FALSE(diagnostics.has_errors());
      REQUIRE(copies.size() == modules.size());
      for (std::size_t m = 0; m < modules.size(); ++m) {
        const hlo::Module& module = modules[m];
        const std::string canonical = parser::print_canonical(module);
        // Renamed in place, the module prints as its canonical text, and that text parses to it.
        hlo::Module& renamed = copies[m];
        parser::rename_canonically(renamed);
        CHECK(renamed.instruction_count() == module.instruction_count());
        CHECK(parser::print_canonical(renamed) == canonical);
        CHECK(print_without_run_specific(renamed) == canonical);
        parser::DiagnosticEngine reparse;
        auto reparsed = parser::parse_hlo_text(canonical, "canonical.hlo", reparse, lenient);
        INFO(parser::render(reparse));
        REQUIRE_FALSE(reparse.has_errors());
        REQUIRE(reparsed.size() == 1);
        // Canonical names are a fixed point.
        CHECK(parser::print_module(reparsed[0]) == canonical);
        CHECK(parser::print_canonical(reparsed[0]) == canonical);
        // Another numbering of the same module.
        parser::DiagnosticEngine again;
        auto renumbered = parser::parse_hlo_text(print_renumbered(module), "renumbered.hlo", again, lenient);
        INFO(parser::render(again));
        REQUIRE_FALSE(again.has_errors());
        REQUIRE(renumbered.size() == 1);
        CHECK(parser::print_canonical(renumbered[0]) == canonical);
      }
    }
  }
}

}  // namespace

TEST_CASE("canonical names: a name's stem drops its numeric parts") {
  CHECK(parser::name_stem("fusion.123") == "fusion");
  CHECK(parser::name_stem("fusion") == "fusion");
  CHECK(parser::name_stem("add.7.clone.2") == "add.clone");
  CHECK(parser::name_stem("param_0.1") == "param_0");
  CHECK(parser::name_stem("region_0.23") == "region_0");
  CHECK(parser::name_stem("get-tuple-element.5") == "get-tuple-element");
  CHECK(parser::name_stem("fusion.3.operand0") == "fusion.operand0");
  CHECK(parser::name_stem("wrapped_add.1a") == "wrapped_add.1a");
  CHECK(parser::name_stem("42") == "");
  CHECK(parser::name_stem("1.2") == "");
  CHECK(parser::name_stem("") == "");
}

TEST_CASE("canonical names: by stem and position, the first without a number") {
  hlo::Module m = parse_one(k_module);
  parser::CanonicalNames names = parser::canonical_names(m);
  CHECK(names.module == "jit_step");
  CHECK(names.computations ==
        std::vector<std::string>{"add.clone", "fused_computation", "fused_computation.1", "cond", "body", "main"});
  CHECK(names.instructions[1] ==
        std::vector<std::string>{"param_0", "param_1", "constant", "dynamic-slice", "constant.1", "reduce"});
  CHECK(names.instructions[5] ==
        std::vector<std::string>{"Arg_0", "Arg_1", "while", "fusion", "fusion.1", "conditional"});
  CHECK(parser::print_canonical(m) == k_canonical);
}

TEST_CASE("canonical names: a renumbered dump with other metadata prints the same") {
  hlo::Module a = parse_one(k_module), b = parse_one(k_renumbered);
  CHECK(parser::print_module(a) != parser::print_module(b));
  CHECK(parser::print_canonical(b) == parser::print_canonical(a));
  const std::string renamed_a = print_without_run_specific(renamed(std::move(a)));
  const std::string renamed_b = print_without_run_specific(renamed(std::move(b)));
  CHECK(renamed_b == renamed_a);
}

TEST_CASE("canonical names: stems that collide get numbers in program order") {
  hlo::Module m = parse_one(R"(HloModule 17
%c.2 {
  %p = f32[] parameter(0)
  ROOT %n = f32[] negate(%p)
}
%c {
  %p = f32[] parameter(0)
  ROOT %n = f32[] abs(%p)
}
ENTRY %3 {
  %add.9 = f32[] parameter(0)
  %add = f32[] add(%add.9, %add.9)
  %add.clone = f32[] add(%add, %add)
  %add.1 = f32[] add(%add.clone, %add)
  %add.5.clone.7 = f32[] add(%add.1, %add.1)
  %7 = f32[] multiply(%add.5.clone.7, %add.5.clone.7)
  %8 = f32[] multiply(%7, %7)
  %add.0 = f32[] call(%8), to_apply=%c
  ROOT %add.3 = f32[] call(%add.0), to_apply=%c.2
}
)");
  parser::CanonicalNames names = parser::canonical_names(m);
  CHECK(names.module == "module");
  CHECK(names.computations == std::vector<std::string>{"c", "c.1", "computation"});
  CHECK(names.instructions[2] == std::vector<std::string>{"add", "add.1", "add.clone", "add.2", "add.clone.1",
                                                          "multiply", "multiply.1", "add.3", "add.4"});
  // The calls follow their computations, not their old names.
  hlo::Module r = renamed(std::move(m));
  CHECK(r.name == "module");
  CHECK(callee_name(r, r.computations[2], "add.3", 0) == "c.1");
  CHECK(callee_name(r, r.computations[2], "add.4", 0) == "c");
  CHECK(r.computations[0].instructions[1].opcode == hlo::Opcode::kNegate);
  CHECK(r.computations[1].instructions[1].opcode == hlo::Opcode::kAbs);
}

TEST_CASE("canonical names: calls=, to_apply=, body=, condition= and branch lists follow the renamed computations") {
  hlo::Module r = renamed(parse_one(k_renumbered));
  REQUIRE(r.computations.size() == 6);
  const hlo::Computation& entry = r.computations[r.entry];
  CHECK(entry.name == "main");
  CHECK(callee_name(r, entry, "while", 0) == "cond");
  CHECK(callee_name(r, entry, "while", 1) == "body");
  CHECK(callee_name(r, entry, "fusion", 0) == "fused_computation");
  CHECK(callee_name(r, entry, "fusion.1", 0) == "fused_computation.1");
  CHECK(callee_name(r, entry, "conditional", 1) == "fused_computation.1");
  CHECK(callee_name(r, r.computations[1], "reduce", 0) == "add.clone");
  CHECK(entry.signature[0].name == "Arg_0");
  // Printing under canonical names again changes nothing.
  CHECK(parser::print_canonical(r) == k_canonical);
  CHECK(print_without_run_specific(r) == k_canonical);
}

TEST_CASE("canonical names: renamed in place, control predecessors follow and every attribute stays") {
  hlo::Module r = renamed(parse_one(k_module));
  CHECK(parser::print_canonical(r) == k_canonical);
  const hlo::Computation& entry = r.computations[r.entry];
  REQUIRE(entry.instructions.size() == 6);
  CHECK(entry.attribute(entry.instructions[4], "control-predecessors") == "{%while}");
  CHECK(entry.attribute(entry.instructions[4], "calls") == "%fused_computation.1");
  CHECK(entry.attribute(entry.instructions[2], "condition") == "%cond");
  // Maps read backend_config and frontend_attributes (a custom call's configuration, a sharding rule).
  CHECK(entry.attribute(entry.instructions[2], "backend_config") == R"({"known_trip_count":{"n":"3"}})");
  CHECK(entry.attribute(entry.instructions[5], "frontend_attributes") == R"({_xla_stream="1"})");
  CHECK(entry.attribute(entry.instructions[1], "stack_frame_id") == "1");
  CHECK(entry.attribute(entry.instructions[3], "kind") == "kInput");
  CHECK(r.stack_frame_tables.size() == 1);
  CHECK(r.computations[1].signature[1].name == "param_1");
}

TEST_CASE("canonical names: a module without a header is named after its entry") {
  hlo::Module m = parse_one("ENTRY %main.5 {\n  %p.1 = f32[] parameter(0)\n  ROOT %n.2 = f32[] negate(%p.1)\n}\n");
  CHECK(parser::canonical_names(m).module == "main");
  hlo::Module r = renamed(std::move(m));
  CHECK(r.name == "main");
  CHECK(parser::print_module(r) == "ENTRY %main {\n  %p = f32[] parameter(0)\n  ROOT %n = f32[] negate(%p)\n}\n");
}

TEST_CASE("print_module: renaming and dropped attributes leave the default print alone") {
  hlo::Module m = parse_one(k_module);
  parser::PrintOptions keep;
  CHECK(parser::print_module(m, keep) == parser::print_module(m));
  parser::PrintOptions drop;
  drop.dropped_attributes = {"metadata", "kind"};
  const std::string printed = parser::print_module(m, drop);
  CHECK(printed.find("metadata=") == std::string::npos);
  CHECK(printed.find("kind=") == std::string::npos);
  CHECK(printed.find("calls=%fused_computation.12") != std::string::npos);
  CHECK(printed.find("FileNames") != std::string::npos);
}

TEST_CASE("canonical names: every module of testdata/corpus, and a renumbered copy, gives the same canonical text") {
  check_canonical_names_of_corpus(HLO_INDEX_CORPUS_DIR);
}

#ifdef HLO_INDEX_FULL_CORPUS_DIR
TEST_CASE("canonical names: every module of the full corpus, and a renumbered copy, gives the same canonical text") {
  check_canonical_names_of_corpus(HLO_INDEX_FULL_CORPUS_DIR);
}
#endif

}  // namespace test_parser_canonical_names_cases

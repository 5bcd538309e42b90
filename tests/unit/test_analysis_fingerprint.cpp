// Stable identities (analysis/fingerprint.hpp) and source attribution
// (analysis/source_info.hpp): a fingerprint survives renaming, renumbering
// and reordering and changes with what the instruction computes; metadata
// gives op_name and source line, for a fusion from its root or fused ops.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <map>
#include <string>

#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/source_info.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_fingerprint_cases {

using namespace hlo_index;
using analysis::ModuleFingerprints;

namespace {

struct Names {
  std::string body, fusion_a, fusion_b, param_x, param_y, add, root;
};

// Two identical exp(x + y) fusions and a negate, the computations in either order and the
// two independent fusions of the entry in either order.
std::string module_text(const Names& n, bool reorder, const std::string& op = "exponential",
                        const std::string& shape = "f32[64,128]{1,0}") {
  const std::string body = fmt::format(
      "%{0} (a.{0}: f32[64,128], b.{0}: f32[64,128]) -> f32[64,128] {{\n"
      "  %a.{0} = {2} parameter(0)\n  %b.{0} = {2} parameter(1)\n"
      "  %s.{0} = {2} add({2} %a.{0}, {2} %b.{0}), metadata={{op_name=\"jit(f)/add\"}}\n"
      "  ROOT %e.{0} = {2} {1}({2} %s.{0}), metadata={{op_name=\"jit(f)/exp\" source_file=\"f.py\" "
      "source_line=7}}\n}}\n\n",
      n.body, op, shape);
  const std::string neg = fmt::format(
      "%{0}.neg (p.{0}: f32[64,128]) -> f32[64,128] {{\n  %p.{0} = f32[64,128]{{1,0}} parameter(0)\n"
      "  ROOT %n.{0} = f32[64,128]{{1,0}} negate(f32[64,128]{{1,0}} %p.{0})\n}}\n\n",
      n.body);
  const std::string a = fmt::format("  %{} = {} fusion({} %{}, {} %{}), kind=kLoop, calls=%{}\n", n.fusion_a, shape,
                                    shape, n.param_x, shape, n.param_y, n.body);
  const std::string b =
      fmt::format("  %{} = f32[64,128]{{1,0}} fusion(f32[64,128]{{1,0}} %{}), kind=kLoop, calls=%{}.neg\n", n.fusion_b,
                  n.param_x, n.body);
  const std::string c = fmt::format("  %{}.2 = {} fusion({} %{}, {} %{}), kind=kLoop, calls=%{}\n", n.fusion_a, shape,
                                    shape, n.param_y, shape, n.param_x, n.body);
  std::string text = "HloModule m\n\n" + (reorder ? neg + body : body + neg);
  text += fmt::format(
      "ENTRY %main.{0} ({1}: f32[64,128], {2}: f32[64,128]) -> (f32[64,128], f32[64,128], f32[64,128]) {{\n"
      "  %{1} = f32[64,128]{{1,0}} parameter(0)\n  %{2} = f32[64,128]{{1,0}} parameter(1)\n",
      n.root, n.param_x, n.param_y);
  text += reorder ? b + a + c : a + b + c;
  text += fmt::format(
      "  ROOT %t.{0} = (f32[64,128]{{1,0}}, f32[64,128]{{1,0}}, f32[64,128]{{1,0}}) tuple(%{1}, %{2}, "
      "%{1}.2)\n}}\n",
      n.root, n.fusion_a, n.fusion_b);
  return text;
}

const Names k_first{"fused_add_exp.3", "fusion.11", "fusion.12", "Arg_0.1", "Arg_1.2", "add.4", "20"};
const Names k_renamed{"zz_body.907", "q.1", "neg_thing.5", "x_in.77", "y_in.78", "plus.0", "99"};

// Fingerprint of each instruction of the entry, by opcode and operand order (names differ).
std::map<std::string, std::string> entry_fingerprints(const std::string& text) {
  auto modules = test::parse_ok(text);
  const hlo::Module& m = modules.front();
  const ModuleFingerprints fp(m);
  std::map<std::string, std::string> out;
  const hlo::Computation& entry = m.computations[m.entry];
  std::map<std::string, int> seen;
  for (std::uint32_t i = 0; i < entry.instructions.size(); ++i) {
    const hlo::Instruction& instr = entry.instructions[i];
    std::string key(m.opcode_text(instr));
    if (instr.opcode == hlo::Opcode::kFusion) {
      const hlo::Computation* body = m.callee(entry, instr);
      key += body->instructions.size() == 2 ? ":neg" : ":exp";
      // The two exp fusions differ in their operand order: x, y first, y, x second.
      key += entry.instructions[entry.operands_of(instr)[0]].parameter_number == 0 ? ":xy" : ":yx";
    } else if (instr.opcode == hlo::Opcode::kParameter) {
      key += std::to_string(instr.parameter_number);
    }
    out[key] = fp.of(m.entry, i);
  }
  return out;
}

}  // namespace

TEST_CASE("fingerprint: the same for renamed, renumbered and reordered instructions and computations") {
  const auto original = entry_fingerprints(module_text(k_first, false));
  CHECK(original.size() == 6);
  CHECK(entry_fingerprints(module_text(k_renamed, false)) == original);
  CHECK(entry_fingerprints(module_text(k_renamed, true)) == original);
  CHECK(entry_fingerprints(module_text(k_first, true)) == original);
}

TEST_CASE("fingerprint: changes with the arithmetic, the shapes' layouts and the operands") {
  const auto original = entry_fingerprints(module_text(k_first, false));
  const auto other_op = entry_fingerprints(module_text(k_first, false, "tanh"));
  CHECK(other_op.at("fusion:exp:xy") != original.at("fusion:exp:xy"));
  CHECK(other_op.at("fusion:neg:xy") == original.at("fusion:neg:xy"));  // the negate did not change
  const auto layout = entry_fingerprints(module_text(k_first, false, "exponential", "f32[64,128]{0,1}"));
  CHECK(layout.at("fusion:exp:xy") != original.at("fusion:exp:xy"));
  // Same body, operands swapped: told apart.
  CHECK(original.at("fusion:exp:xy") != original.at("fusion:exp:yx"));
}

TEST_CASE("fingerprint: identical instructions are told apart by occurrence, in program order") {
  auto modules = test::parse_ok(
      "HloModule m\nENTRY %e (x: f32[8]) -> (f32[8], f32[8]) {\n  %x = f32[8]{0} parameter(0)\n"
      "  %a.1 = f32[8]{0} negate(f32[8]{0} %x)\n  %a.2 = f32[8]{0} negate(f32[8]{0} %x)\n"
      "  ROOT %t = (f32[8]{0}, f32[8]{0}) tuple(%a.1, %a.2)\n}\n");
  const ModuleFingerprints fp(modules.front());
  CHECK(fp.hash(0, 1) == fp.hash(0, 2));
  CHECK(fp.of(0, 1).size() == 16);
  CHECK(fp.of(0, 2) == fp.of(0, 1) + "-1");
}

TEST_CASE("module structure: equal for renamed copies of a program, different for another program") {
  const auto first = test::parse_ok(module_text(k_first, false));
  const auto renamed = test::parse_ok(module_text(k_renamed, true));
  const auto other_op = test::parse_ok(module_text(k_first, false, "tanh"));
  const auto other_layout = test::parse_ok(module_text(k_first, false, "exponential", "f32[64,128]{0,1}"));
  const std::uint64_t structure = analysis::module_structure(first.front());
  CHECK(analysis::module_structure(renamed.front()) == structure);
  CHECK(analysis::module_structure(other_op.front()) != structure);
  CHECK(analysis::module_structure(other_layout.front()) != structure);
  // An instruction more, even one nothing uses, is another program.
  std::string text = module_text(k_first, false);
  const std::size_t root = text.rfind("  ROOT %t.");
  text.insert(root, "  %unused = f32[64,128]{1,0} negate(f32[64,128]{1,0} %Arg_0.1)\n");
  CHECK(analysis::module_structure(test::parse_ok(text).front()) != structure);
}

TEST_CASE("fingerprint: op_name without numeric suffixes") {
  CHECK(analysis::canonical_op_name("jit(train_step)/jvp()/broadcast.95") == "jit(train_step)/jvp()/broadcast");
  CHECK(analysis::canonical_op_name("dot_general") == "dot_general");
  CHECK(analysis::canonical_op_name("") == "");
}

TEST_CASE("source info: metadata, stack frames, and a fusion's root or most common op_name") {
  const auto pairs = analysis::parse_metadata(R"({op_type="Mul" op_name="a/b \"q\"" source_line=12 stack_frame_id=3})");
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[1].second == "a/b \"q\"");
  CHECK(pairs[2].second == "12");

  auto modules = test::parse_ok(
      "HloModule m\n\nFileNames\n1 \"model.py\"\n\nFunctionNames\n1 \"f\"\n\n"
      "FileLocations\n1 {file_name_id=1 function_name_id=1 line=42 end_line=42 column=1 end_column=9}\n\n"
      "StackFrames\n1 {file_location_id=1 parent_frame_id=0}\n\n"
      "%body (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
      "  %n1 = f32[8]{0} negate(f32[8]{0} %p), metadata={op_name=\"jit(f)/neg\"}\n"
      "  %n2 = f32[8]{0} negate(f32[8]{0} %n1), metadata={op_name=\"jit(f)/neg\"}\n"
      "  ROOT %e = f32[8]{0} exponential(f32[8]{0} %n2), metadata={op_name=\"jit(f)/exp\" stack_frame_id=1}\n}\n\n"
      "%body2 (p: f32[8]) -> f32[8] {\n  %p = f32[8]{0} parameter(0)\n"
      "  %n1 = f32[8]{0} negate(f32[8]{0} %p), metadata={op_name=\"jit(f)/neg\" source_file=\"a.py\" "
      "source_line=3}\n  %n2 = f32[8]{0} negate(f32[8]{0} %n1), metadata={op_name=\"jit(f)/neg\"}\n"
      "  ROOT %e = f32[8]{0} exponential(f32[8]{0} %n2)\n}\n\n"
      "ENTRY %e (x: f32[8]) -> (f32[8], f32[8]) {\n  %x = f32[8]{0} parameter(0)\n"
      "  %f1 = f32[8]{0} fusion(f32[8]{0} %x), kind=kLoop, calls=%body\n"
      "  %f2 = f32[8]{0} fusion(f32[8]{0} %x), kind=kLoop, calls=%body2, metadata={op_name=\"own\"}\n"
      "  %f3 = f32[8]{0} fusion(f32[8]{0} %x), kind=kLoop, calls=%body2\n"
      "  ROOT %t = (f32[8]{0}, f32[8]{0}, f32[8]{0}) tuple(%f1, %f2, %f3)\n}\n");
  const hlo::Module& m = modules.front();
  const analysis::ModuleSources sources(m);
  const auto e = m.entry;
  // The root's metadata, its source line from the stack-frame tables.
  const analysis::SourceInfo f1 = sources.of(e, 1);
  CHECK(f1.op_name == "jit(f)/exp");
  CHECK(f1.location() == "model.py:42");
  // Its own metadata first.
  CHECK(sources.of(e, 2).op_name == "own");
  CHECK(sources.of(e, 2).location().empty());
  // A root without metadata: the most common op_name of the fused ops, with the first one's line.
  const analysis::SourceInfo f3 = sources.of(e, 3);
  CHECK(f3.op_name == "jit(f)/neg");
  CHECK(f3.location() == "a.py:3");
  CHECK(sources.of(e, 0).empty());
}

}  // namespace test_analysis_fingerprint_cases

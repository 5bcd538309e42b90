// XLA's verifier rules for structure (issue #28): operand counts by the op
// table, parameter numbering, the call graph, and the computations an
// instruction calls against its operands and result (parser/checks.cpp,
// parser/parse.cpp, parser/call_checks.cpp). For every rule a module it
// rejects, with the exact message at the exact place, and a valid variant it
// accepts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "parser/checks.hpp"
#include "parser/op_traits.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_verifier_cases {

using namespace hlo_index;

namespace {

// Where an error points: in the first line containing `line`, at the first `token` after
// the first `after` (the line's start when empty).
struct Where {
  std::string line;
  std::string token;
  std::string after = {};
};

// "LINE:COLUMN" of `where` in `text`, counting from 1.
std::string position(const std::string& text, const Where& where) {
  const std::size_t line_start = text.rfind('\n', text.find(where.line)) + 1;
  const std::string line = text.substr(line_start, text.find('\n', line_start) - line_start);
  const std::size_t from = where.after.empty() ? 0 : line.find(where.after) + where.after.size();
  const std::size_t column = line.find(where.token, from);
  REQUIRE(line.find(where.line) != std::string::npos);
  REQUIRE(column != std::string::npos);
  const auto lines_before = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(line_start), '\n');
  return std::to_string(lines_before + 1) + ":" + std::to_string(column + 1);
}

// The errors of `text` as "LINE:COLUMN: message" lines; "" when it parses.
std::string errors(const std::string& text, parser::ParseOptions options = {}) {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "t.hlo", diagnostics, options);
  std::string out;
  for (const parser::Diagnostic& d : diagnostics.diagnostics())
    if (d.severity == parser::Severity::kError)
      out += std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message + "\n";
  if (out.empty()) CHECK(modules.size() == 1);
  return out;
}

void rejects(const std::string& text, const Where& where, const std::string& message) {
  INFO(text);
  CHECK(errors(text) == position(text, where) + ": " + message + "\n");
}

void accepts(const std::string& text) {
  INFO(text);
  CHECK(errors(text) == "");
}

// Replaces the first `from` in `text` by `to`.
std::string with(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Scalar functions the modules below call.
const std::string k_functions = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
add_one {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT t = (f32[]) tuple(s)
}
add_twice {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
less_one {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = pred[] compare(a, b), direction=LT
  ROOT t = (pred[]) tuple(c)
}
add3 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  s = f32[] add(a, b)
  ROOT t = f32[] add(s, c)
}
add4 {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT s = f32[4] add(a, b)
}
to_s32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  s = f32[] add(a, b)
  ROOT c = s32[] convert(s)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}
less_keys {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  d = f32[] parameter(3)
  ROOT l = pred[] compare(a, b), direction=LT
}
)";

}  // namespace

//===--- Operand counts ---===//

TEST_CASE("operand counts follow the op table: exact, at least N, pairs", "[verifier]") {
  const std::string entry = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  c = pred[4] parameter(1)
  ROOT r = f32[4] add(p, p)
}
)";
  const Where at_r{"ROOT r", "r ="};
  accepts(entry);
  rejects(with(entry, "add(p, p)", "add(p)"), at_r, "add takes 2 operands, not 1");
  rejects(with(entry, "add(p, p)", "add(p, p, p)"), at_r, "add takes 2 operands, not 3");
  accepts(with(entry, "add(p, p)", "select(c, p, p)"));
  rejects(with(entry, "add(p, p)", "select(c, p)"), at_r, "select takes 3 operands, not 2");
  rejects(with(entry, "add(p, p)", "negate()"), at_r, "negate takes 1 operand, not 0");
  rejects(with(entry, "f32[4] add(p, p)", "f32[4,2] broadcast(), dimensions={0}"), at_r,
          "broadcast takes 1 operand, not 0");
  rejects(with(entry, "f32[4] add(p, p)", "f32[2] slice(p, p), slice={[0:2]}"), at_r, "slice takes 1 operand, not 2");
  accepts(with(entry, "f32[4] add(p, p)", "f32[8] concatenate(p, p), dimensions={0}"));
  rejects(with(entry, "f32[4] add(p, p)", "f32[8] concatenate(), dimensions={0}"), at_r,
          "concatenate takes at least 1 operand, not 0");
  rejects(with(entry, "f32[4] add(p, p)", "f32[4] iota(p), iota_dimension=0"), at_r, "iota takes no operands, not 1");
  // A left-out shape: the count is the problem, not the shape it leaves unknown.
  rejects(with(entry, "f32[4] add(p, p)", "add(p)"), at_r, "add takes 2 operands, not 1");
}

TEST_CASE("operand counts of reduce and scatter come in pairs", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  i = s32[2,1] parameter(1)
  u = f32[2] parameter(2)
  r = f32[] reduce(p, z), dimensions={0}, to_apply=add
  ROOT s = f32[8] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}
)";
  accepts(text);
  rejects(with(text, "reduce(p, z)", "reduce(p, z, z)"), {"r = f32[] reduce", "r ="},
          "reduce takes inputs and as many initial values (an even number of operands, at least 2), not 3");
  rejects(with(text, "scatter(p, i, u)", "scatter(p, i)"), {"ROOT s = f32[8] scatter", "s ="},
          "scatter takes inputs, the indices and as many updates (an odd number of operands, at least 3), not 2");
}

TEST_CASE("every op of fixed arity rejects one operand more, and every op with a minimum one less", "[verifier]") {
  for (int k = 0; k < static_cast<int>(hlo::Opcode::kUnknown); ++k) {
    const auto op = static_cast<hlo::Opcode>(k);
    const hlo::Arity arity = hlo::op_traits(op).operands;
    if (op == hlo::Opcode::kConstant || op == hlo::Opcode::kParameter) continue;  // their parentheses hold a literal
    std::size_t count = 0;
    if (arity.count == hlo::OperandCount::kExactly)
      count = arity.n + 1;
    else if (arity.count == hlo::OperandCount::kAtLeast && arity.n > 0)
      count = arity.n - 1;
    else
      continue;
    const std::string name(hlo::opcode_name(op));
    std::string text = "HloModule m\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT r = f32[] ";
    text += name;
    text += "(";
    for (std::size_t j = 0; j < count; ++j) text += j ? ", p" : "p";
    text += ")\n}\n";
    DYNAMIC_SECTION(name) {
      const auto problem = parser::operand_count_problem(op, count);
      REQUIRE(problem);
      rejects(text, {"ROOT r", "r ="}, *problem);
    }
  }
  CHECK(parser::operand_count_problem(hlo::Opcode::kDot, 3) == "dot takes 2 operands, not 3");
  CHECK_FALSE(parser::operand_count_problem(hlo::Opcode::kDot, 3, /*sparse=*/true));
  CHECK_FALSE(parser::operand_count_problem(hlo::Opcode::kCustomCall, 0));
  CHECK_FALSE(parser::operand_count_problem(hlo::Opcode::kTuple, 0));
}

//===--- Parameter numbers ---===//

TEST_CASE("parameter numbers run from 0 without gaps", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
)";
  accepts(text);
  rejects(with(text, "parameter(1)", "parameter(2)"), {"b = f32[] parameter(2)", "2)"},
          "'e' has parameter(2) but no parameter(1): parameters are numbered from 0 without gaps");
  rejects(with(text, "  a = f32[] parameter(0)\n  b = f32[] parameter(1)",
               "  a = f32[] parameter(3)\n  b = f32[] parameter(1)"),
          {"b = f32[] parameter(1)", "1)"},
          "'e' has parameter(1) but no parameter(0): parameters are numbered from 0 without gaps");
  // Numbered out of order, and a signature listing fewer parameters than the body has (XLA's parser
  // accepts it, and published dumps contain it).
  accepts(with(text, "  a = f32[] parameter(0)\n  b = f32[] parameter(1)",
               "  b = f32[] parameter(1)\n  a = f32[] parameter(0)"));
  accepts(with(text, "ENTRY e {", "ENTRY e (a: f32[]) -> f32[] {"));
}

//===--- The call graph ---===//

TEST_CASE("calls form no cycle and never reach the entry computation", "[verifier]") {
  const std::string text = R"(HloModule m
f {
  x = f32[] parameter(0)
  ROOT c = f32[] call(x), to_apply=g
}
g {
  y = f32[] parameter(0)
  ROOT n = f32[] negate(y)
}
ENTRY e {
  p = f32[] parameter(0)
  a = f32[] call(p), to_apply=f
  b = f32[] call(p), to_apply=g
  ROOT r = f32[] add(a, b)
}
)";
  accepts(text);  // g is called twice: a diamond, not a cycle
  rejects(with(text, "to_apply=g", "to_apply=f"), {"ROOT c", "f", "to_apply="},
          "computation 'f' calls itself: HLO computations cannot be recursive");
  rejects(with(text, "ROOT n = f32[] negate(y)", "ROOT n = f32[] call(y), to_apply=f"), {"ROOT n", "f", "to_apply="},
          "computation 'g' calls 'f', which leads back to 'g' (f -> g -> f): HLO computations cannot be recursive");
  rejects(with(text, "ROOT n = f32[] negate(y)", "ROOT n = f32[] call(y), to_apply=e"), {"ROOT n", "e", "to_apply="},
          "computation 'g' calls the entry computation 'e'");
}

TEST_CASE("a conditional's branch cannot be the entry computation", "[verifier]") {
  const std::string text = R"(HloModule m
g {
  i = s32[] parameter(0)
  x = f32[] parameter(1)
  ROOT c = f32[] conditional(i, x, x), branch_computations={b0, b1}
}
b0 {
  y = f32[] parameter(0)
  ROOT n = f32[] negate(y)
}
b1 {
  y = f32[] parameter(0)
  ROOT n = f32[] copy(y)
}
ENTRY e {
  z = f32[] parameter(0)
  ROOT n = f32[] negate(z)
}
)";
  accepts(text);
  rejects(with(text, "{b0, b1}", "{b0, e}"), {"ROOT c", "e}", "b0, "},
          "computation 'g' calls the entry computation 'e'");
}

//===--- fusion and call ---===//

TEST_CASE("a fusion binds operand k to parameter(k) and returns its computation's root", "[verifier]") {
  const std::string text = R"(HloModule m
fused {
  a = f32[4]{0} parameter(0)
  b = f32[4] parameter(1)
  ROOT s = f32[4]{0} add(a, b)
}
ENTRY e {
  p = f32[4] parameter(0)
  q = f32[<=4] parameter(1)
  ROOT f = f32[4]{0} fusion(p, q), kind=kLoop, calls=fused
}
)";
  const Where at_f{"ROOT f", "f ="};
  accepts(text);  // layouts and a bounded dynamic size aside
  rejects(with(text, "fusion(p, q)", "fusion(p)"), at_f,
          "'f' has 1 operand but the computation it calls, 'fused', has 2 parameters");
  rejects(with(text, "fusion(p, q)", "fusion(p, q, p)"), at_f,
          "'f' has 3 operands but the computation it calls, 'fused', has 2 parameters");
  rejects(with(text, "q = f32[<=4]", "q = s32[4]"), at_f,
          "operand 1 of 'f' is s32[4] but parameter(1) of 'fused' is f32[4]");
  rejects(with(text, "ROOT f = f32[4]{0}", "ROOT f = f32[]"), at_f,
          "'f' is f32[] but the computation it calls, 'fused', returns f32[4]");
  rejects(with(text, "ROOT f = f32[4]{0}", "ROOT f = f32[5]"), at_f,
          "'f' is f32[5] but the computation it calls, 'fused', returns f32[4]");
  rejects(with(text, ", calls=fused", ""), at_f, "fusion 'f' has no calls= naming the computation it calls");
  rejects(with(text, "calls=fused", "calls={fused, fused}"), {"ROOT f", "fused", "calls={"},
          "calls= of fusion 'f' names 2 computations; it takes one");
}

TEST_CASE("a call passes its computation's parameters and returns its root", "[verifier]") {
  const std::string text = R"(HloModule m
c {
  a = f32[4] parameter(0)
  ROOT s = f32[4] negate(a)
}
ENTRY e {
  p = f32[4] parameter(0)
  ROOT f = f32[4] call(p), to_apply=c
}
)";
  const Where at_f{"ROOT f", "f ="};
  accepts(text);
  rejects(with(text, "ROOT f = f32[4]", "ROOT f = f32[9,9]"), at_f,
          "'f' is f32[9,9] but the computation it calls, 'c', returns f32[4]");
  rejects(with(text, "call(p)", "call(p, p)"), at_f,
          "'f' has 2 operands but the computation it calls, 'c', has 1 parameter");
}

//===--- async-start ---===//

TEST_CASE("an async-start's operands, element {0} and element {1} are its computation's", "[verifier]") {
  const std::string text = R"(HloModule m
w {
  a = f32[2,3] parameter(0)
  ROOT r = f32[2,3] negate(a)
}
ENTRY e {
  p = f32[2,3] parameter(0)
  s = ((f32[2,3]), f32[2,3], s32[]) async-start(p), calls=w
  ROOT d = f32[2,3] async-done(s), calls=w
}
)";
  const Where at_s{"s = ((", "s ="};
  accepts(text);
  rejects(with(text, "p = f32[2,3]", "p = f32[10]"), at_s,
          "operand 0 of 's' is f32[10] but parameter(0) of 'w' is f32[2,3]");
  rejects(with(text, "((f32[2,3]), f32[2,3], s32[])", "((f32[3]), f32[2,3], s32[])"), at_s,
          "element {0} of 's' is (f32[3]) but the parameters of 'w' are (f32[2,3])");
  rejects(with(with(text, "((f32[2,3]), f32[2,3], s32[])", "((f32[2,3]), f32[9], s32[])"), "ROOT d = f32[2,3]",
               "ROOT d = f32[9]"),
          at_s, "element {1} of 's' is f32[9] but the computation it wraps, 'w', returns f32[2,3]");
  rejects(with(with(text, "s = ((f32[2,3]), f32[2,3], s32[])", "s = f32[2,3]"), "ROOT d = f32[2,3] async-done(s)",
               "ROOT d = f32[2,3] negate(s)"),
          {"s = f32[2,3] async-start", "s ="},
          "'s' is f32[2,3] but an async-start is a tuple of at least two elements ((operands...), result, ...)");
}

//===--- while ---===//

TEST_CASE("a while's condition maps the state to pred[], its body the state to the state", "[verifier]") {
  const std::string text = R"(HloModule m
cond {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT t = (s32[], f32[4]) tuple(j, x)
}
other {
  s = (s32[], f32[4]) parameter(0)
  x = f32[4] get-tuple-element(s), index=1
  ROOT n = f32[4] negate(x)
}
two {
  s = (s32[], f32[4]) parameter(0)
  t = (s32[], f32[4]) parameter(1)
  ROOT c = pred[] constant(false)
}
ENTRY e {
  p = (s32[], f32[4]) parameter(0)
  ROOT w = (s32[], f32[4]) while(p), condition=cond, body=body
}
)";
  const Where at_w{"ROOT w", "w ="};
  accepts(text);
  rejects(with(text, ", body=body", ""), at_w, "while 'w' has no body= naming the computation it calls");
  rejects(with(text, "condition=cond, ", ""), at_w, "while 'w' has no condition= naming the computation it calls");
  rejects(with(text, "condition=cond, body=body", "condition=body, body=cond"), {"ROOT w", "body", "condition="},
          "the condition 'body' of 'w' returns (s32[], f32[4]) but must return pred[]");
  rejects(with(text, "condition=cond", "condition=two"), {"ROOT w", "two"},
          "the condition 'two' of 'w' has 2 parameters but must have 1 (the loop state)");
  rejects(with(text, "body=body", "body=other"), {"ROOT w", "other"},
          "the body 'other' of 'w' returns f32[4] but the loop state is (s32[], f32[4])");
  rejects(with(with(text, "p = (s32[], f32[4])", "p = (s32[], f32[5])"), "ROOT w = (s32[], f32[4])",
               "ROOT w = (s32[], f32[5])"),
          {"ROOT w", "cond", "condition="},
          "parameter(0) of the condition 'cond' is (s32[], f32[4]) but the loop state of 'w' "
          "(operand 0) is (s32[], f32[5])");
  rejects(with(text, "ROOT w = (s32[], f32[4])", "ROOT w = (s32[], f32[5])"), at_w,
          "'w' is (s32[], f32[5]) but its loop state (operand 0) is (s32[], f32[4])");
}

//===--- conditional ---===//

TEST_CASE("a conditional's branch k takes operand k+1 and returns the conditional's shape", "[verifier]") {
  const std::string text = R"(HloModule m
b0 {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
b1 {
  y = f32[4] parameter(0)
  ROOT c = f32[4] copy(y)
}
b2 {
  y = f32[4] parameter(0)
  z = f32[4] parameter(1)
  ROOT c = f32[4] add(y, z)
}
ENTRY e {
  i = s32[] parameter(0)
  p = f32[4] parameter(1)
  q = f32[4] parameter(2)
  ROOT r = f32[4] conditional(i, p, q), branch_computations={b0, b1}
}
)";
  const Where at_r{"ROOT r", "r ="};
  accepts(text);
  accepts(with(with(text, "i = s32[]", "i = pred[]"), "branch_computations={b0, b1}",
               "true_computation=b0, false_computation=b1"));
  rejects(with(text, "q = f32[4]", "q = f32[5]"), {"ROOT r", "b1}"},
          "parameter(0) of branch 1 of 'r', 'b1', is f32[4] but operand 2 is f32[5]");
  rejects(with(text, "ROOT r = f32[4]", "ROOT r = f32[5]"), {"ROOT r", "b0"},
          "branch 0 of 'r', 'b0', returns f32[4] but 'r' is f32[5]");
  rejects(with(text, "i = s32[]", "i = f32[]"), at_r,
          "the branch index of 'r' (operand 0) is f32[] but must be pred[] or s32[]");
  rejects(with(text, "conditional(i, p, q)", "conditional(i, p)"), at_r,
          "'r' has 2 operands for 2 branches: a conditional takes the branch index and one operand per branch");
  rejects(with(with(text, "i = s32[]", "i = pred[]"), "{b0, b1}", "{b0, b1, b1}"), at_r,
          "'r' has 3 branches but a pred[] branch index selects one of 2");
  rejects(with(text, "{b0, b1}", "{b0, b2}"), {"ROOT r", "b2"},
          "branch 1 of 'r', 'b2', has 2 parameters but must have 1");
  rejects(with(text, ", branch_computations={b0, b1}", ""), at_r,
          "conditional 'r' has no branch_computations= (nor true_computation= and false_computation=) naming its "
          "branches");
}

//===--- map ---===//

TEST_CASE("map applies a scalar function of one element of each operand", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[4] parameter(0)
  ROOT m = f32[4] map(p, p), dimensions={0}, to_apply=add
}
)";
  accepts(text);
  rejects(with(text, "map(p, p)", "map(p)"), {"ROOT m", "add", "to_apply="},
          "the function 'add' of map 'm' has 2 parameters but 'm' has 1 operand");
  rejects(with(text, "p = f32[4]", "p = s32[4]"), {"ROOT m", "add", "to_apply="},
          "parameter(0) of the function 'add' of map 'm' is f32[] but must be s32[] (an element of operand 0)");
  rejects(with(text, "to_apply=add", "to_apply=add4"), {"ROOT m", "add4"},
          "parameter(0) of the function 'add4' of map 'm' is f32[4] but must be f32[] (an element of operand 0)");
  rejects(with(text, "to_apply=add", "to_apply=add_twice"), {"ROOT m", "add_twice"},
          "the function 'add_twice' of map 'm' returns (f32[], f32[]) but must return a scalar");
  accepts(with(text, "to_apply=add", "to_apply=add_one"));
  rejects(with(text, "to_apply=add", "to_apply=to_s32"), {"ROOT m", "m ="},
          "'m' is f32[4] but mapping its operands with 'to_s32' gives s32[4]");
  rejects(with(text, "  ROOT m = f32[4] map(p, p)", "  q = f32[5] parameter(1)\n  ROOT m = f32[4] map(p, q)"),
          {"ROOT m", "m ="}, "map operands 0 and 1 have different dimensions: f32[4] and f32[5]");
}

//===--- Reducers ---===//

TEST_CASE("a reducer takes scalar accumulators and elements and returns the accumulators", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[4,8] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4] reduce(p, z), dimensions={1}, to_apply=add
}
)";
  const Where at_reducer{"ROOT r", "add", "to_apply="};
  accepts(text);
  accepts(with(text, "to_apply=add", "to_apply=add_one"));  // a 1-tuple of the accumulator
  // An initial value that is not a scalar: XLA's parser accepts it and the corpus holds one (its
  // reducer takes arrays); docs/parser-coverage.md.
  accepts(with(with(text, "z = f32[] constant(0)", "z = f32[4] parameter(1)"), "to_apply=add", "to_apply=add4"));
  accepts(with(text, "p = f32[4,8]", "p = bf16[4,8]"));  // mixed precision
  rejects(with(text, "to_apply=add", "to_apply=add4"), {"ROOT r", "add4"},
          "parameter(0) of the reducer 'add4' is f32[4] but must be a scalar");
  rejects(with(text, "to_apply=add", "to_apply=add3"), {"ROOT r", "add3"},
          "the reducer 'add3' of 'r' has 3 parameters but must have 2 (an accumulator and an element for each of 1 "
          "input)");
  rejects(with(text, "to_apply=add", "to_apply=to_s32"), {"ROOT r", "to_s32"},
          "parameter(0) of the reducer 'to_s32' is f32[] but it returns s32[]");
  rejects(with(with(text, "z = f32[] constant(0)", "z = s32[] constant(0)"), "ROOT r = f32[4]", "ROOT r = s32[4]"),
          {"ROOT r", "r ="}, "operand 1 of 'r' has elements of type s32 but its reducer 'add' accumulates f32[]");
  rejects(with(text, "p = f32[4,8]", "p = s32[4,8]"), at_reducer,
          "parameter(1) of the reducer 'add' is f32[] but operand 0 of 'r' has elements of type s32");
}

TEST_CASE("a reducer of two inputs returns a tuple of two accumulators, and the inputs share dimensions",
          "[verifier]") {
  const std::string text = R"(HloModule m
pair {
  a0 = f32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = f32[] parameter(2)
  b1 = s32[] parameter(3)
  s0 = f32[] add(a0, b0)
  s1 = s32[] add(a1, b1)
  ROOT t = (f32[], s32[]) tuple(s0, s1)
}
ENTRY e {
  p = f32[4,8] parameter(0)
  q = s32[4,8] parameter(1)
  z = f32[] constant(0)
  y = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(p, q, z, y), dimensions={1}, to_apply=pair
}
)";
  accepts(text);
  rejects(with(text, "ROOT t = (f32[], s32[]) tuple(s0, s1)", "ROOT t = f32[] add(s0, s0)"), {"ROOT r", "pair"},
          "the reducer 'pair' of 'r' returns f32[] but must return a tuple of 2 scalars");
  // Found by the structure-aware mutants (tests/fuzz/hlo_mutator.hpp): an internal error before.
  rejects(with(text, "q = s32[4,8]", "q = s32[]"), {"ROOT r", "r ="},
          "reduce's operand 1 is s32[] but operand 0 is f32[4,8]: the operands reduced must have the same dimensions");
}

TEST_CASE("reduce-window, all-reduce and reduce-scatter reducers", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[8] parameter(0)
  z = f32[] constant(0)
  w = f32[4] reduce-window(p, z), window={size=2 stride=2}, to_apply=add
  a = f32[8] all-reduce(p), replica_groups={}, to_apply=add
  ROOT s = f32[4] reduce-scatter(p), replica_groups={{0,1}}, dimensions={0}, to_apply=add
}
)";
  accepts(text);
  // A 1-tuple of the scalar, which XLA's importers flatten (the corpus holds such reducers).
  accepts(with(text, "replica_groups={}, to_apply=add", "replica_groups={}, to_apply=add_one"));
  rejects(with(text, "window={size=2 stride=2}, to_apply=add", "window={size=2 stride=2}, to_apply=add4"),
          {"w = f32[4]", "add4"}, "parameter(0) of the reducer 'add4' is f32[4] but must be a scalar");
  rejects(with(text, "replica_groups={}, to_apply=add", "replica_groups={}, to_apply=add_twice"),
          {"a = f32[8]", "add_twice"},
          "the reducer 'add_twice' of 'a' returns (f32[], f32[]) but must return a scalar");
  rejects(with(text, "dimensions={0}, to_apply=add", "dimensions={0}, to_apply=add3"),
          {"ROOT s = f32[4] reduce-scatter", "add3"},
          "the reducer 'add3' of 's' has 3 parameters but must have 2 (an accumulator and an element for each of 1 "
          "input)");
}

TEST_CASE("scatter and select-and-scatter combine with a reducer, select returns pred[]", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[8] parameter(0)
  i = s32[2,1] parameter(1)
  u = f32[2] parameter(2)
  src = f32[4] parameter(3)
  z = f32[] constant(0)
  s = f32[8] scatter(p, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = f32[8] select-and-scatter(p, src, z), window={size=2 stride=2}, select=less, scatter=add
}
)";
  accepts(text);
  accepts(with(text, "select=less", "select=less_one"));
  rejects(with(text, "index_vector_dim=1, to_apply=add", "index_vector_dim=1, to_apply=add3"), {"s = f32[8]", "add3"},
          "the combiner 'add3' of 's' has 3 parameters but must have 2 (an accumulator and an element for each of 1 "
          "input)");
  rejects(with(text, "select=less", "select=add"), {"ROOT t = f32[8]", "add", "select="},
          "the select computation 'add' of 't' returns f32[] but must return pred[]");
  rejects(with(text, "scatter=add", "scatter=add4"), {"ROOT t = f32[8]", "add4"},
          "parameter(0) of the combiner 'add4' is f32[4] but must be a scalar");
}

//===--- sort ---===//

TEST_CASE("a sort's comparator takes two scalars per operand and returns pred[]", "[verifier]") {
  const std::string text = k_functions + R"(ENTRY e {
  p = f32[8] parameter(0)
  ROOT s = f32[8] sort(p), dimensions={0}, to_apply=less
}
)";
  const Where at_less{"sort(p", "less"};
  accepts(text);
  accepts(with(text, ", to_apply=less", ""));                 // the form before comparators
  accepts(with(text, "to_apply=less", "to_apply=less_one"));  // a 1-tuple of the pred[]
  rejects(with(text, "f32[8] sort(p)", "(f32[8], f32[8]) sort(p, p)"), at_less,
          "the comparator 'less' of 's' has 2 parameters but must have 4 (two for each of 2 operands)");
  rejects(with(text, "to_apply=less", "to_apply=add"), {"sort(p", "add", "to_apply="},
          "the comparator 'add' of 's' returns f32[] but must return pred[]");
  rejects(with(with(text, "p = f32[8]", "p = s32[8]"), "ROOT s = f32[8]", "ROOT s = s32[8]"), at_less,
          "parameter(0) of the comparator 'less' is f32[] but must be s32[] (an element of operand 0)");
  rejects(
      with(with(text, "  ROOT s = f32[8] sort(p)", "  q = f32[4] parameter(1)\n  ROOT s = (f32[8], f32[4]) sort(p, q)"),
           "to_apply=less", "to_apply=less_keys"),
      {"sort(p", "s ="}, "sort operands 0 and 1 have different dimensions: f32[8] and f32[4]");
}

//===--- pad, truncated input ---===//

TEST_CASE("pad's padding value is a scalar", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  v = f32[] parameter(1)
  ROOT r = f32[6] pad(p, v), padding=1_1
}
)";
  accepts(text);
  rejects(with(text, "v = f32[]", "v = f32[1]"), {"ROOT r", "r ="},
          "pad's padding value (operand 1) must be a scalar, not f32[1]");
}

TEST_CASE("pad's padding value is a scalar also when the operand's size is dynamic", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[<=4] parameter(0)
  v = f32[] parameter(1)
  ROOT r = f32[<=6] pad(p, v), padding=1_1
}
)";
  accepts(text);
  rejects(with(text, "v = f32[]", "v = f32[2]"), {"ROOT r", "r ="},
          "pad's padding value (operand 1) must be a scalar, not f32[2]");
}

// Found by the structure-aware mutants (tests/fuzz/hlo_mutator.hpp): a size operand of the shape of
// another instruction reached the maps as a scalar read and ended in an internal error.
TEST_CASE("dynamic-reshape's sizes are scalar integers", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[6] parameter(0)
  a = s32[] parameter(1)
  b = s32[] parameter(2)
  ROOT r = f32[2,3] dynamic-reshape(p, a, b)
}
)";
  accepts(text);
  rejects(with(text, "b = s32[]", "b = f32[3,<=4]"), {"ROOT r", "r ="},
          "dynamic-reshape's size operand 2 must be a scalar integer, not f32[3,<=4]");
  rejects(with(text, "a = s32[]", "a = f32[]"), {"ROOT r", "r ="},
          "dynamic-reshape's size operand 1 must be a scalar integer, not f32[]");
}

TEST_CASE("all-gather-start's result is its operands and their all-gather", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  a = c64[4,2]{0,1} parameter(0)
  b = c64[4,2,2,3]{3,2,0,1} parameter(1)
  ags = ((c64[4,2]{0,1}, c64[4,2,2,3]{3,2,0,1}), (c64[4,4]{0,1}, c64[4,4,2,3]{3,2,0,1})) all-gather-start(a, b), channel_id=1, replica_groups={{0,1},{2,3}}, dimensions={1}, use_global_device_ids=true
  ROOT agd = (c64[4,4]{0,1}, c64[4,4,2,3]{3,2,0,1}) all-gather-done(ags)
}
)";
  accepts(text);
  rejects(with(text, "a = c64[4,2]{0,1}", "a = c64[4,2,2,3]{3,2,0,1}"), {"ags =", "ags ="},
          "all-gather-start's result element 0 is (c64[4,2], c64[4,2,2,3]) but its operands are (c64[4,2,2,3], "
          "c64[4,2,2,3])");
  rejects(with(with(text, "(c64[4,4]{0,1}, c64[4,4,2,3]{3,2,0,1})) all-gather-start",
                    "(c64[4,8]{0,1}, c64[4,4,2,3]{3,2,0,1})) all-gather-start"),
               "ROOT agd = (c64[4,4]{0,1}", "ROOT agd = (c64[4,8]{0,1}"),
          {"ags =", "ags ="},
          "all-gather-start (element 1) result shape (c64[4,8], c64[4,4,2,3]) does not match the operand gathered "
          "along dimension 1 by groups of 2: expected (c64[4,4], c64[4,4,2,3])");
}

TEST_CASE("batch norms: per-feature operands of the feature dimension's size, grad_output of x's shape", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  x = f32[2,3,4] parameter(0)
  scale = f32[3] parameter(1)
  offset = f32[3] parameter(2)
  mean = f32[3] parameter(3)
  variance = f32[3] parameter(4)
  grad = f32[2,3,4] parameter(5)
  inference = f32[2,3,4] batch-norm-inference(x, scale, offset, mean, variance), epsilon=0.001, feature_index=1
  training = (f32[2,3,4], f32[3], f32[3]) batch-norm-training(x, scale, offset), epsilon=0.001, feature_index=1
  ROOT backward = (f32[2,3,4], f32[3], f32[3]) batch-norm-grad(x, scale, mean, variance, grad), epsilon=0.001, feature_index=1
}
)";
  accepts(text);
  rejects(with(text, "grad = f32[2,3,4]", "grad = f32[3]"), {"ROOT backward", "backward ="},
          "batch-norm-grad's operand 4 is f32[3] but must be x's shape f32[2,3,4]");
  rejects(with(text, "feature_index=1\n  ROOT", "feature_index=2\n  ROOT"), {"training =", "training ="},
          "batch-norm-training's operand 1 is f32[3] but must be a vector of 4 elements (the size of x's dimension 2)");
  rejects(with(text, "inference = f32[2,3,4]", "inference = f32[2,3]"), {"inference =", "inference ="},
          "batch-norm-inference result shape f32[2,3] does not match operand 0 (x): expected f32[2,3,4]");
}

// Found by the structure-aware mutants: the tuple's element was compared only when every shape was
// static, so a custom call of a dynamic shape reached the physical maps as the tuple declared it.
TEST_CASE("a tuple is checked against operands of dynamic shape too", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[<=6] parameter(0)
  q = f32[2,4,5] parameter(1)
  ROOT t = (f32[<=6], f32[2,4,5]) tuple(p, q)
}
)";
  accepts(text);
  accepts(with(text, "ROOT t = (f32[<=6]", "ROOT t = (f32[6]"));  // compatible: a bound for its size
  rejects(with(text, "p = f32[<=6]", "p = f32[<=7]"), {"ROOT t", "t ="},
          "tuple result shape (f32[<=6], f32[2,4,5]) does not match the operands: expected (f32[<=7], f32[2,4,5])");
}

TEST_CASE("get-dimension-size returns s32[], set-dimension-size takes a scalar size", "[verifier]") {
  const std::string get = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  ROOT size = s32[] get-dimension-size(p), dimensions={0}
}
)";
  accepts(get);
  rejects(with(get, "ROOT size = s32[]", "ROOT size = f32[4,3]"), {"ROOT size", "size ="},
          "get-dimension-size returns s32[], not f32[4,3]");
  const std::string set = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  size = s32[] parameter(1)
  ROOT dyn = s32[<=5] set-dimension-size(p, size), dimensions={0}
}
)";
  accepts(set);
  rejects(with(set, "size = s32[] parameter(1)", "size = s32[2] parameter(1)"), {"ROOT dyn", "dyn ="},
          "set-dimension-size's size (operand 1) must be a scalar integer, not s32[2]");
}

TEST_CASE("send and copy-start return their operand's shape first", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  tok = token[] after-all()
  snd = (s32[5], u32[], token[]) send(p, tok), channel_id=1
  sd = token[] send-done(snd), channel_id=1
  cs = (s32[5], s32[5], u32[]) copy-start(p)
  ROOT cd = s32[5] copy-done(cs)
}
)";
  accepts(text);
  rejects(with(text, "snd = (s32[5]", "snd = (f32[4,3]"), {"snd =", "snd ="},
          "send's result element 0 is f32[4,3] but its operand is s32[5]");
  rejects(with(text, "cs = (s32[5], s32[5]", "cs = (s32[5], s32[6]"), {"cs =", "cs ="},
          "copy-start's result element 1 is s32[6] but its operand is s32[5]");
}

TEST_CASE("a scatter returns its operands' dimensions", "[verifier]") {
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
ENTRY e {
  operand = f32[3,8] parameter(0)
  indices = s32[3,5,1] parameter(1)
  updates = f32[3,5,2] parameter(2)
  ROOT s = f32[3,8] scatter(operand, indices, updates), update_window_dims={2}, inserted_window_dims={}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, to_apply=add
}
)";
  accepts(text);
  rejects(with(text, "ROOT s = f32[3,8]", "ROOT s = f32[3,5,1]"), {"ROOT s =", "s ="},
          "scatter's result is f32[3,5,1] but operand 0 is f32[3,8]: a scatter returns its operands' dimensions");
}

TEST_CASE("the -done of an async pair returns the dimensions of what its -start produces", "[verifier]") {
  const std::string text = R"(HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT sum = f32[] add(a, b)
}
ENTRY e {
  p = f32[10] parameter(0)
  ars = f32[10] all-reduce-start(p), replica_groups={}, to_apply=add
  ard = f32[10] all-reduce-done(ars)
  cs = (f32[10], f32[10], u32[]) copy-start(p)
  cd = f32[10] copy-done(cs)
  cps = (f32[10], f32[10]) collective-permute-start(p), source_target_pairs={{0,1},{1,0}}
  cpd = f32[10] collective-permute-done(cps)
  ROOT t = (f32[10], f32[10], f32[10]) tuple(ard, cd, cpd)
}
)";
  accepts(text);
  rejects(with(with(text, "ard = f32[10]", "ard = f32[]"), "ROOT t = (f32[10],", "ROOT t = (f32[],"),
          {"ard =", "ard ="},
          "all-reduce-done result shape f32[] does not have the dimensions of its operand, f32[10]");
  rejects(with(with(text, "cpd = f32[10]", "cpd = f32[5]"), "f32[10], f32[10]) tuple", "f32[10], f32[5]) tuple"),
          {"cpd =", "cpd ="},
          "collective-permute-done result shape f32[5] does not have the dimensions of element 1 of its operand, "
          "f32[10]");
}

TEST_CASE("an all-to-all returns its operands' dimensions", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[3,8] parameter(0)
  r = f32[2] parameter(1)
  s = f32[2] parameter(2)
  exchanged = f32[3,8] all-to-all(p), replica_groups={{0,1}}, dimensions={1}
  ROOT pairs = (f32[2], f32[2]) all-to-all(r, s), replica_groups={{0,1}}
}
)";
  accepts(text);
  rejects(with(text, "s = f32[2]", "s = f32[3,8]"), {"ROOT pairs", "pairs ="},
          "all-to-all's result element 1 is f32[2] but operand 1 is f32[3,8]: an all-to-all returns its operands' "
          "dimensions");
  rejects(with(text, "exchanged = f32[3,8]", "exchanged = f32[3,4]"), {"exchanged =", "exchanged ="},
          "all-to-all's result is f32[3,4] but operand 0 is f32[3,8]: an all-to-all returns its operands' dimensions");
}

// Found by the structure-aware mutants: a segmentation fault in the analysis before.
TEST_CASE("a dynamic-update-slice's update has the operand's rank, dynamic sizes or not", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  src = f32[6] parameter(0)
  upd = f32[2] parameter(1)
  i = s32[] parameter(2)
  ROOT d = f32[6] dynamic-update-slice(src, upd, i)
}
)";
  accepts(text);
  rejects(with(text, "upd = f32[2]", "upd = s32[]"), {"ROOT d", "d ="},
          "dynamic-update-slice update s32[] has rank 0 but the operand f32[6] has rank 1");
  rejects(with(with(text, "src = f32[6]", "src = f32[<=6,4]"), "ROOT d = f32[6]", "ROOT d = f32[<=6,4]"),
          {"ROOT d", "d ="}, "dynamic-update-slice update f32[2] has rank 1 but the operand f32[<=6,4] has rank 2");
}

TEST_CASE("a computation a truncated input cuts off is not checked against its callers", "[verifier]") {
  const std::string text = R"(HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT f = f32[9] fusion(p, p), kind=kLoop, calls=fused
}
fused {
  a = f32[4] parameter(0)
  b = f32[4] parameter(2)
)";
  CHECK(errors(text, {.allow_truncated = true}) == "");
  CHECK(errors(text + "  ROOT s = f32[4] add(a, b)\n}\n") ==
        position(text, {"b = f32[4] parameter(2)", "2)"}) +
            ": 'fused' has parameter(2) but no parameter(1): parameters are numbered from 0 without gaps\n");
}

}  // namespace test_parser_verifier_cases

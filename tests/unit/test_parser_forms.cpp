// Forms XLA's HLO parser accepts that real dumps and tests use: left-out result
// shapes, blanks inside shapes, buffer types (docs/parser-coverage.md).
#include <catch2/catch.hpp>
#include <string>

#include "layout/physical_layout.hpp"
#include "parse_helpers.hpp"
#include "parser/parse.hpp"
#include "parser/print.hpp"
#include "parser/result_shapes.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_forms_cases {

using namespace hlo_index;
using test::first_error;
using test::parse_ok;

namespace {

// The shape of the instruction `name` in the module's last computation.
std::string shape_of(const hlo::Module& m, std::string_view name) {
  const hlo::Computation& c = m.computations.back();
  for (const hlo::Instruction& i : c.instructions)
    if (i.name == name) return hlo::to_string(m.shape_of(i));
  FAIL("no instruction " << name);
  return {};
}

// `body` as the entry computation of a module with a `max` reducer.
std::string module(const std::string& body) {
  return "HloModule m\nmax {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT m = f32[] maximum(a, b)\n}\n"
         "ENTRY e {\n" +
         body + "}\n";
}

}  // namespace

TEST_CASE("left-out result shapes are inferred by the op's result-shape rule", "[forms]") {
  auto modules = parse_ok(module(R"(  x = f32[4,8] parameter(0)
  y = f32[4,8] parameter(1)
  c = f32[] constant(0)
  s = add(x, y)
  n = negate(f32[4,8] s)
  cmp = compare(x, y), direction=LT
  sel = select(cmp, x, y)
  t = transpose(x), dimensions={1,0}
  sl = slice(x), slice={[0:4:2], [1:8]}
  cat = concatenate(x, y), dimensions={1}
  d = dot(x, t), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = reduce(x, c), dimensions={1}, to_apply=max
  rw = reduce-window(x, c), window={size=2x2}, to_apply=max
  p = pad(x, c), padding=1_1x0_2
  ds = dynamic-slice(x, c, c), dynamic_slice_sizes={2,2}
  ROOT out = tuple(s, n, sel, t, sl, cat, d, r, rw, p, ds)
)"));
  const hlo::Module& m = modules[0];
  CHECK(shape_of(m, "s") == "f32[4,8]");
  CHECK(shape_of(m, "n") == "f32[4,8]");
  CHECK(shape_of(m, "cmp") == "pred[4,8]");
  CHECK(shape_of(m, "sel") == "f32[4,8]");
  CHECK(shape_of(m, "t") == "f32[8,4]");
  CHECK(shape_of(m, "sl") == "f32[2,7]");
  CHECK(shape_of(m, "cat") == "f32[4,16]");
  CHECK(shape_of(m, "d") == "f32[4,4]");
  CHECK(shape_of(m, "r") == "f32[4]");
  CHECK(shape_of(m, "rw") == "f32[3,7]");
  CHECK(shape_of(m, "p") == "f32[6,10]");
  CHECK(shape_of(m, "ds") == "f32[2,2]");
}

TEST_CASE("a left-out shape that cannot be inferred is an error at the instruction", "[forms]") {
  // No rule for the op.
  CHECK(first_error("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = rng-bit-generator(p)\n}") ==
        "3:12: expected shape: the result shape of 'rng-bit-generator' cannot be inferred (hlo-index has no shape "
        "rule for this op)");
  // A rule that needs the declared shape: convert, broadcast, reshape.
  CHECK(first_error("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = convert(p)\n}") ==
        "3:12: expected shape: the result shape of 'convert' cannot be inferred from these operands and attributes "
        "(write it out)");
  // Operands the rule rejects.
  CHECK(first_error("ENTRY e {\n  p = f32[4] parameter(0)\n  q = f32[5] parameter(1)\n  ROOT r = add(p, q)\n}") ==
        "4:12: add operands 0 and 1 have incompatible dimensions: f32[4] and f32[5]");
  CHECK(first_error("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = add(p, q)\n}") ==
        "3:19: use of undefined value 'q'");
}

TEST_CASE("blanks between the element type and the dimensions", "[forms]") {
  auto modules = parse_ok(
      "ENTRY e {\n  p = s32 [5696,10,4] parameter(0)\n  ROOT n = s32\t[5696,10,4]{2,1,0} negate(s32 "
      "[5696,10,4] p)\n}");
  CHECK(shape_of(modules[0], "p") == "s32[5696,10,4]");
  CHECK(shape_of(modules[0], "n") == "s32[5696,10,4]{2,1,0}");
}

TEST_CASE("infer_result_shape: a shape, an error, or nothing", "[forms]") {
  auto shape = [](std::string_view text) { return *parser::parse_shape(text); };
  hlo::Shape a = shape("f32[2,3]"), b = shape("f32[1,3]");
  const hlo::Shape* both[] = {&a, &b};
  auto sum = parser::infer_result_shape(hlo::Opcode::kAdd, both, {});
  REQUIRE(std::holds_alternative<hlo::Shape>(sum));
  CHECK(hlo::to_string(std::get<hlo::Shape>(sum)) == "f32[2,3]");
  const hlo::Shape* one[] = {&a};
  CHECK(std::holds_alternative<std::monostate>(parser::infer_result_shape(hlo::Opcode::kConvert, one, {})));
  CHECK(std::holds_alternative<std::monostate>(parser::infer_result_shape(hlo::Opcode::kIota, {}, {})));
  hlo::Shape c = shape("f32[4]");
  const hlo::Shape* mismatched[] = {&a, &c};
  CHECK(std::holds_alternative<parser::ResultShapeError>(
      parser::infer_result_shape(hlo::Opcode::kMultiply, mismatched, {})));
}

TEST_CASE("buffer types b(array): parsed, printed back, distinct from the array", "[forms]") {
  auto modules = parse_ok(R"(HloModule m
ENTRY e (p: f32[2,4]) -> f32[2,4] {
  p = f32[2,4]{1,0} parameter(0)
  buf = b(f32[2,4]{1,0}) custom-call(p), custom_call_target="Pin", output_to_operand_aliasing={{}: (0, {})}
  t = (b(f32[2,4]), s32[]) tuple(buf, s32[] constant(1))
  g = b( f32[2,4] ) get-tuple-element(t), index=0
  ROOT u = f32[2,4] custom-call(b(f32[2,4]) g), custom_call_target="Unpin", output_to_operand_aliasing={{}: (0, {})}
}
)");
  const hlo::Module& m = modules[0];
  CHECK(shape_of(m, "buf") == "b(f32[2,4]{1,0})");
  CHECK(shape_of(m, "t") == "(b(f32[2,4]), s32[])");
  CHECK(shape_of(m, "g") == "b(f32[2,4])");
  std::string printed = parser::print_module(m);
  CHECK(printed.find("buf = b(f32[2,4]{1,0}) custom-call(") != std::string::npos);
  CHECK(parser::print_module(parse_ok(printed)[0]) == printed);

  auto buffer = parser::parse_shape("b(f32[2,4]{1,0})");
  REQUIRE(buffer);
  CHECK(buffer->is_buffer);
  CHECK_FALSE(buffer->is_tuple);
  CHECK(buffer->rank() == 2);
  CHECK_FALSE(hlo::same_ignoring_layout(*buffer, *parser::parse_shape("f32[2,4]")));
  CHECK(hlo::same_ignoring_layout(*buffer, *parser::parse_shape("b(f32[2,4])")));
  // A buffer holds an array: not a tuple, not another buffer.
  CHECK_FALSE(parser::parse_shape("b((f32[2]))"));
  CHECK_FALSE(parser::parse_shape("b(b(f32[2]))"));
  // An operand declared as the array but defined as the buffer is an error.
  CHECK(first_error("ENTRY e {\n  p = b(f32[2]) parameter(0)\n  ROOT n = f32[2] negate(f32[2] p)\n}") ==
        "3:26: operand 'p' is declared as f32[2] but is defined as b(f32[2])");
}

TEST_CASE("left-out shapes of ops without a rule whose shape is fixed or an operand's", "[forms]") {
  auto modules = parse_ok(R"(HloModule m
cond {
  c = (s32[], f32[4]) parameter(0)
  ROOT t = pred[] constant(true)
}
body {
  ROOT b = (s32[], f32[4]) parameter(0)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT l = pred[] compare(a, b), direction=LT
}
less_keys {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT l = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[4] parameter(1)
  z = s32[] constant(0)
  tok = after-all()
  id = replica-id()
  pid = partition-id()
  size = get-dimension-size(x), dimensions={0}
  dep = add-dependency(x, tok)
  bar = opt-barrier(x)
  init = tuple(z, x)
  w = while(init), condition=cond, body=body
  s1 = sort(x), dimensions={0}, to_apply=less
  s2 = sort(x, i), dimensions={0}, to_apply=less_keys
  ROOT out = tuple(tok, id, pid, size, dep, bar, w, s1, s2)
}
)");
  const hlo::Module& m = modules[0];
  CHECK(shape_of(m, "tok") == "token[]");
  CHECK(shape_of(m, "id") == "u32[]");
  CHECK(shape_of(m, "pid") == "u32[]");
  CHECK(shape_of(m, "size") == "s32[]");
  CHECK(shape_of(m, "dep") == "f32[4]");
  CHECK(shape_of(m, "bar") == "f32[4]");
  CHECK(shape_of(m, "w") == "(s32[], f32[4])");
  CHECK(shape_of(m, "s1") == "f32[4]");
  CHECK(shape_of(m, "s2") == "(f32[4], s32[4])");
}

TEST_CASE("a blank between b and '(' of a buffer, split configs with several groups", "[forms]") {
  auto buffer = parser::parse_shape("b (f32[2]{0})");
  REQUIRE(buffer);
  CHECK(hlo::to_string(*buffer) == "b(f32[2]{0})");
  auto modules = parse_ok("ENTRY e {\n  p = b (f32[2]) parameter(0)\n  ROOT t = (b(f32[2])) tuple(p)\n}");
  CHECK(shape_of(modules[0], "p") == "b(f32[2])");
  // A name starting with b is still an element type or a name, not a buffer.
  CHECK(hlo::to_string(*parser::parse_shape("bf16[2]")) == "bf16[2]");

  auto split = parser::parse_shape("f32[2,4]{1,0:SC(0:1,2)(1:2)}");
  REQUIRE(split);
  CHECK(hlo::to_string(*split) == "f32[2,4]{1,0:SC(0:1,2)(1:2)}");
}

TEST_CASE("a buffer is laid out as the array it holds", "[forms]") {
  auto buffer = parser::parse_shape("b(f32[2,4]{0,1})");
  auto array = parser::parse_shape("f32[2,4]{0,1}");
  REQUIRE(buffer);
  REQUIRE(array);
  auto of_buffer = layout::PhysicalLayout::of(*buffer);
  auto of_array = layout::PhysicalLayout::of(*array);
  CHECK(of_buffer.physical_order() == of_array.physical_order());
  CHECK(of_buffer.allocated_bytes() == of_array.allocated_bytes());
}

}  // namespace test_parser_forms_cases

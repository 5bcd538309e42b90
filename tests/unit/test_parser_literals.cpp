// Constant literals checked against their shapes.
#include <catch2/catch.hpp>
#include <string>

#include "parser/literal_check.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_literals_cases {

using namespace hlo_index;

namespace {
// "" when `literal` fits `shape_text`, else "offset: message".
std::string check(const std::string& literal, const std::string& shape_text) {
  auto shape = parser::parse_shape(shape_text);
  REQUIRE(shape);
  auto problem = parser::check_literal(literal, *shape);
  if (!problem) return "";
  return std::to_string(problem->where - literal.data()) + ": " + problem->message;
}
}  // namespace

TEST_CASE("literals XLA prints are accepted") {
  CHECK(check("-inf", "f32[]") == "");
  CHECK(check("nan", "bf16[]") == "");
  CHECK(check("1.001e-05", "f32[]") == "");
  CHECK(check("0x1p3", "f64[]") == "");
  CHECK(check("true", "pred[]") == "");
  CHECK(check("(1, 0)", "c64[]") == "");
  CHECK(check("{}", "f32[0]") == "");
  CHECK(check("{...}", "f32[1000,1000]") == "");
  CHECK(check("{ { /*i0=0*/ { /*i1=0*/ {512} } } }", "f32[1,1,1,1]") == "");
  CHECK(check("{ {1, 2, 3}, {4, 5, 6} }", "s32[2,3]") == "");
  CHECK(check("1", "f32[3,3]") == "");  // one scalar for the whole array
  CHECK(check("18446744073709551615", "u64[]") == "");
  CHECK(check("{-128, 127}", "s8[2]") == "");
  CHECK(check("{0, 1}", "pred[2]") == "");
  CHECK(check("({1, 2}, 3)", "(s32[2], f32[])") == "");
  CHECK(check("{1, 2}", "s32[<=4]") == "");  // a bounded dimension holds at most its bound
}

TEST_CASE("literals that do not fit their shape are rejected with a position") {
  CHECK(check("{1, 2, abc}", "f32[3]") == "7: 'abc' is not a value of f32");
  CHECK(check("{1, 2}", "f32[3]") == "0: the literal has 2 elements in dimension 0 but the shape has 3");
  CHECK(check("{1, 2.5}", "s32[2]") == "4: '2.5' is not a value of s32");
  CHECK(check("true", "f32[]") == "0: 'true' is not a value of f32");
  CHECK(check("-1", "u8[]") == "0: '-1' is not a value of u8");
  CHECK(check("256", "u8[]") == "0: '256' is not a value of u8");
  CHECK(check("-129", "s8[]") == "0: '-129' is not a value of s8");
  CHECK(check("8", "s4[]") == "0: '8' is not a value of s4");
  CHECK(check("2", "pred[]") == "0: '2' is not a value of pred");
  CHECK(check("{1, 2, 3, 4, 5}", "s32[<=4]") == "0: the literal has 5 elements in dimension 0 but the shape has 4");
  CHECK(check("(1 0)", "c64[]") == "3: expected ',' in the literal");
  CHECK(check("{1, 2} x", "f32[2]") == "7: unexpected text after the literal");
}

}  // namespace test_parser_literals_cases

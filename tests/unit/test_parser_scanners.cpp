// The hand-written lexical scanners under the grammar.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "parser/scanners.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_scanners_cases {

using namespace hlo_index::parser;

namespace {
// Runs a scanner on `text`; returns how many bytes it consumed (-1: no match).
template <typename F>
long consumed(std::string_view text, F scanner) {
  const char* end = scanner(text.data(), text.data() + text.size());
  return end ? static_cast<long>(end - text.data()) : -1;
}
std::string error_of(std::string_view text, const char* (*scanner)(const char*, const char*)) {
  try {
    scanner(text.data(), text.data() + text.size());
  } catch (const SyntaxError& e) {
    return std::to_string(e.where - text.data()) + ": " + e.message;
  }
  return "no error";
}
}  // namespace

TEST_CASE("skip_blank skips spaces, block and line comments") {
  CHECK(consumed("  /*index=5*/ x", scan::skip_blank) == 14);
  CHECK(consumed("// a comment\n  x", scan::skip_blank) == 15);
  CHECK(consumed("x", scan::skip_blank) == 0);
  CHECK(consumed("/ x", scan::skip_blank) == 0);  // a lone slash is not a comment
  CHECK(error_of("  /* open", scan::skip_blank) == "2: unterminated comment");
}

TEST_CASE("quoted strings honour escapes and stop at the line end") {
  CHECK(consumed(R"("a\"b" rest)", scan::quoted) == 6);
  CHECK(consumed(R"('axis_0'=1)", scan::quoted) == 8);
  CHECK(error_of("\"abc\ndef\"", scan::quoted) == "0: unterminated string");
  CHECK(error_of("\"abc\\", scan::quoted) == "0: unterminated string");
}

TEST_CASE("attribute values: adjacent tokens, braces after blanks, stop at comma") {
  CHECK(consumed("{1,0}, next", scan::attribute_value) == 5);
  CHECK(consumed("1_4_1x4_8_0 ", scan::attribute_value) == 11);
  CHECK(consumed("mesh['a'=1,'b'=4] {'a'}, dimensions={1}", scan::attribute_value) == 23);
  CHECK(consumed("kLoop\n  %next = f32[] add()", scan::attribute_value) == 5);
  CHECK(consumed(", x", scan::attribute_value) == -1);
  CHECK(error_of("{\"a\":[1,2}}", scan::attribute_value) == "9: expected ']' before '}'");
  CHECK(error_of("{{{", scan::attribute_value) == "2: unclosed '{'");
}

TEST_CASE("nesting is bounded") {
  std::string deep(hlo_index::parser::k_max_nesting + 1, '(');
  CHECK(error_of(deep, scan::attribute_value) == "64: nesting deeper than 64 levels");
  std::string fine =
      std::string(hlo_index::parser::k_max_nesting, '(') + std::string(hlo_index::parser::k_max_nesting, ')');
  CHECK(consumed(fine, scan::attribute_value) == static_cast<long>(fine.size()));
}

TEST_CASE("shape extents: arrays, layouts, tuples, and a brace after blanks is a layout only before digits or ':'") {
  CHECK(consumed("f32[2,3]{1,0} add", scan::shape_text) == 13);
  CHECK(consumed("f32[3, 6] {1, 0} x", scan::shape_text) == 16);
  CHECK(consumed("f32[] {\n  ROOT x = f32[] c()", scan::shape_text) == 5);
  CHECK(consumed("f32[]{:T(128)} x", scan::shape_text) == 14);
  CHECK(consumed("(f32[], /*index=1*/ (s32[2]{0})) tuple", scan::shape_text) == 32);
  CHECK(consumed("tuple(a)", scan::shape_text) == -1);
}

TEST_CASE("integers: signs, int64 limits, overflow is an error") {
  std::int64_t v = 0;
  auto scan_int = [&](std::string_view t) { return scan::integer(t.data(), t.data() + t.size(), v); };
  REQUIRE(scan_int("-9223372036854775808"));
  CHECK(v == INT64_MIN);
  REQUIRE(scan_int("9223372036854775807x"));
  CHECK(v == INT64_MAX);
  CHECK(scan_int("x") == nullptr);
  CHECK_THROWS_AS(scan_int("9223372036854775808"), SyntaxError);
  CHECK_THROWS_AS(scan_int("-9223372036854775809"), SyntaxError);
}

}  // namespace test_parser_scanners_cases

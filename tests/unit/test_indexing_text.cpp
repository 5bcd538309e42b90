// The text form: XLA's one-line layout, the documents' multi-line layout,
// runtime-variable sections, and diagnostics with a caret for bad input.
#include <catch2/catch.hpp>

#include "indexing/map_parser.hpp"
#include "indexing/map_printer.hpp"

using namespace hlo_index::indexing;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_map(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

}  // namespace

TEST_CASE("one-line printing matches XLA's strings", "[indexing][text]") {
  for (const char* text : {
           "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]",
           "(d0, d1) -> (d0 - 1, d1), domain: d0 in [1, 2], d1 in [0, 7]",
           "(d0)[s0, s1] -> (d0 * 4 + s0 + s1 - 42), domain: d0 in [0, 31], s0 in [0, 1], s1 in [0, 3], "
           "d0 * 4 + s0 + s1 in [24, 459]",
           "(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0 * 2, d2 + s1 * 2, s2), domain: d0 in [0, 0], d1 in [0, 7], "
           "d2 in [0, 1], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
           "(d0, d1)[range]{rt0, rt1} -> (d1, d0, range + rt0, rt1), domain: d0 in [0, 99], d1 in [0, 43], "
           "range in [-99, 99], rt0 in [0, 2], rt1 in [0, 7]",
           "()[s0] -> (s0), domain: s0 in [0, 9]",
           "(d0) -> ((-d0) mod 2), domain: d0 in [0, 127]",
           "() -> ()",
           "(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 2]",
           "KNOWN EMPTY",
           "UNDEFINED",
       }) {
    CHECK(print_map(parse_map(text)) == text);
  }
}

TEST_CASE("constraints print sorted by their text", "[indexing][text]") {
  IndexingMap m = parse_map(
      "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 99], d0 mod 3 in [0, 0], (d0 - 1) mod 2 in [0, 0], "
      "d0 + s0 in [1, 100]");
  CHECK(print_map(m) ==
        "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 99], (d0 - 1) mod 2 in [0, 0], d0 + s0 in [1, 100], "
        "d0 mod 3 in [0, 0]");
}

TEST_CASE("multi-line layout prints and parses", "[indexing][text]") {
  const char* text =
      "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2)\n"
      "domain:\n"
      "d0 in [5, 9]\n"
      "d1 in [3, 17]\n"
      "d2 in [0, 48]\n"
      "(d1 - 3) mod 7 in [0, 0]\n"
      "d2 mod 2 in [0, 0]";
  IndexingMap m = parse_map(text);
  MapPrintOptions multi;
  multi.layout = MapLayout::kMultiLine;
  CHECK(print_map(m, multi) == text);
  CHECK(print_map(m) ==
        "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], d1 in [3, 17], "
        "d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]");
  multi.indent = "  ";
  CHECK(print_map(parse_map("(d0) -> (d0), domain: d0 in [0, 3]"), multi) ==
        "  (d0) -> (d0)\n  domain:\n  d0 in [0, 3]");
}

TEST_CASE("runtime variables round-trip with their sources", "[indexing][text]") {
  const char* text =
      "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in [0, 1], d1 in [0, 4], rt0 in [0, 8], rt1 in [0, 15]\n"
      "runtime variables:\n"
      "  rt0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]\n"
      "  rt1: constant(3); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]";
  IndexingMap m = parse_map(text);
  REQUIRE(m.runtime_sources().size() == 2);
  CHECK(m.runtime_sources()[1].source == "constant(3)");
  CHECK(print_map(m) == text);
  CHECK(parse_map(print_map(m)) == m);
}

TEST_CASE("the documents' spellings parse", "[indexing][text]") {
  // Implicit products, floorDiv, `/` for floordiv, ceildiv.
  CHECK(print_map(parse_map("(d0, d1) -> (100d0 + 10d1 floorDiv 4), domain: d0 in [0, 9], d1 in [0, 9]")) ==
        "(d0, d1) -> (d0 * 100 + (d1 * 5) floordiv 2), domain: d0 in [0, 9], d1 in [0, 9]");
  CHECK(print_map(parse_map("()[s0, s1] -> ((s0 * 128 + s1) / 192), domain: s0 in [0, 3], s1 in [0, 63]")) ==
        "()[s0, s1] -> ((s0 * 128 + s1) floordiv 192), domain: s0 in [0, 3], s1 in [0, 63]");
  CHECK(print_map(parse_map("(d0) -> (d0 ceildiv 4), domain: d0 in [0, 9]")) ==
        "(d0) -> ((d0 + 3) floordiv 4), domain: d0 in [0, 9]");
  // Unary minus before a term negates the whole product.
  CHECK(print_map(parse_map("(d0) -> (-(d0) floordiv 2), domain: d0 in [0, 9]")) ==
        "(d0) -> (-(d0 floordiv 2)), domain: d0 in [0, 9]");
  CHECK(print_map(parse_map("(d0) -> (d0 * -3), domain: d0 in [0, 9]")) == "(d0) -> (d0 * -3), domain: d0 in [0, 9]");
}

TEST_CASE("malformed maps get a diagnostic with a caret", "[indexing][text]") {
  CHECK(error_of("(d0) -> (d1), domain: d0 in [0, 9]") ==
        "<map>:1:10: error: unknown variable 'd1'\n"
        "(d0) -> (d1), domain: d0 in [0, 9]\n"
        "         ^\n");
  CHECK(error_of("(d0, d1) -> (d0 * d1), domain: d0 in [0, 9], d1 in [0, 9]") ==
        "<map>:1:17: error: a product of two non-constant expressions is not quasi-affine\n"
        "(d0, d1) -> (d0 * d1), domain: d0 in [0, 9], d1 in [0, 9]\n"
        "                ^\n");
  CHECK(error_of("(d0) -> (d0 mod 0), domain: d0 in [0, 9]").find("error: modulo by zero") != std::string::npos);
  CHECK(error_of("(d0) (d0), domain: d0 in [0, 9]").find("1:6: error: expected '->'") != std::string::npos);
  CHECK(error_of("(d0, d1) -> (d0), domain: d0 in [0, 9]").find("no interval for variable 'd1'") != std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9], d0 in [0, 3]").find("given twice") != std::string::npos);
  CHECK(error_of("(d0, d0) -> (d0), domain: d0 in [0, 9]").find("declared twice") != std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9] garbage").find("unknown variable 'garbage'") != std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 99999999999999999999]").find("integer out of range") !=
        std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9] (approximate) x").find("unexpected text after the map") !=
        std::string::npos);
}

TEST_CASE("approximate maps say so in their text", "[indexing][text]") {
  IndexingMap m = parse_map("(d0) -> (d0), domain: d0 in [0, 9] (approximate)");
  CHECK(m.approximate());
  CHECK(print_map(m) == "(d0) -> (d0), domain: d0 in [0, 9] (approximate)");
}

// Shapes and layouts: every element type, dynamic dims, tiles and layout attributes.
#include <catch2/catch.hpp>
#include <string>

#include "parser/parse.hpp"
#include "parser/shape.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_shapes_cases {

using namespace hlo_index;

namespace {
hlo::Shape shape(const std::string& text) {
  std::string error;
  auto s = parser::parse_shape(text, &error);
  INFO(text << " -> " << error);
  REQUIRE(s);
  return *s;
}
std::string error_of(const std::string& text) {
  std::string error;
  CHECK_FALSE(parser::parse_shape(text, &error));
  return error;
}
}  // namespace

TEST_CASE("every element type parses and prints back") {
  for (const auto& [name, type] : hlo::all_element_types()) {
    std::string text = std::string(name) + "[2]";
    hlo::Shape s = shape(text);
    CHECK(s.type == type);
    CHECK(hlo::to_string(s) == text);
  }
  CHECK(hlo::element_type_bits(hlo::ElementType::kBF16) == 16);
  CHECK(hlo::element_type_bits(hlo::ElementType::kS4) == 4);
  CHECK(hlo::element_type_bits(hlo::ElementType::kF8E8M0FNU) == 8);
}

TEST_CASE("scalars, dynamic dimensions and spaces") {
  hlo::Shape s = shape("f32[]");
  CHECK(s.rank() == 0);
  CHECK(s.element_count() == 1);
  s = shape("f32[1, 1, <=1801]");
  REQUIRE(s.rank() == 3);
  CHECK(s.dim_kinds[2] == hlo::DimKind::kBounded);
  CHECK(s.dims[2] == 1801);
  s = shape("f32[?,3]");
  CHECK(s.dim_kinds[0] == hlo::DimKind::kUnbounded);
  CHECK_FALSE(s.element_count());
  CHECK(hlo::to_string(s) == "f32[?,3]");
}

TEST_CASE("tuples, nested and empty") {
  hlo::Shape s = shape("(f32[2]{0}, (s32[], token[]), ())");
  REQUIRE(s.is_tuple);
  REQUIRE(s.elements.size() == 3);
  CHECK(s.elements[1].elements[1].type == hlo::ElementType::kToken);
  CHECK(s.elements[2].is_tuple);
  CHECK(s.elements[2].elements.empty());
  CHECK(hlo::to_string(s) == "(f32[2]{0}, (s32[], token[]), ())");
}

TEST_CASE("tiled layouts, memory space, element size and other layout attributes") {
  hlo::Shape s = shape("bf16[128,256]{1,0:T(8,128)(2,1)S(1)}");
  REQUIRE(s.layout);
  CHECK(s.layout->minor_to_major == std::vector<std::int64_t>{1, 0});
  REQUIRE(s.layout->tiles.size() == 2);
  CHECK(s.layout->tiles[0].dims == std::vector<std::int64_t>{8, 128});
  CHECK(s.layout->tiles[1].dims == std::vector<std::int64_t>{2, 1});
  CHECK(s.layout->memory_space == 1);

  s = shape("s32[1024]{0:T(1024)(128)(4,1)}");
  CHECK(s.layout->tiles.size() == 3);
  s = shape("f32[]{:T(128)}");
  CHECK(s.layout->minor_to_major.empty());
  CHECK(s.layout->tiles[0].dims == std::vector<std::int64_t>{128});
  s = shape("u32[]{:S(8)}");
  CHECK(s.layout->memory_space == 8);
  s = shape("pred[8,8,8]{0,2,1:E(32)}");
  CHECK(s.layout->element_size_bits == 32);
  s = shape("bf16[2,3,1004]{2,1,0:T(2,*,128)}");
  CHECK(s.layout->tiles[0].dims[1] == hlo::k_combined_tile_dim);
  s = shape("f32[4,8]{1,0:D(D,C+)#(s32)*(s64)L(100)}");
  CHECK(s.layout->dim_level_types == std::vector<std::string>{"D", "C+"});
  CHECK(s.layout->index_type == "s32");
  CHECK(s.layout->pointer_type == "s64");
  CHECK(s.layout->tail_padding_alignment == 100);
  CHECK(hlo::to_string(s) == "f32[4,8]{1,0:D(D,C+)L(100)#(s32)*(s64)}");
  s = shape("f32[3, 6, 128, 12288] {2, 1, 3, 0}");
  CHECK(s.layout->minor_to_major == std::vector<std::int64_t>{2, 1, 3, 0});
}

TEST_CASE("shape errors name the column and the problem") {
  CHECK(error_of("f31[2]") == "1: unknown element type 'f31'");
  CHECK(error_of("f32[2") == "6: expected ']'");
  CHECK(error_of("f32[2{0}") == "6: expected ']'");
  CHECK(error_of("f32[2x]") == "6: expected ']'");
  CHECK(error_of("f32[-2]") == "5: dimension size must not be negative");
  CHECK(error_of("f32[9223372036854775808]") == "5: integer is outside the range of a signed 64-bit integer");
  CHECK(error_of("f32[2]{1,0:T(8,}") == "16: expected ')' before '}'");
  CHECK(error_of("f32[2]{1,0:T(8,x)}") == "16: expected tile dimension");
  CHECK(error_of("f32[2] x") == "8: unexpected text after the shape");
}

}  // namespace test_parser_shapes_cases

// The layout model on the worked examples of the seed documents (tiled
// layout; shapes and layout) and the corpus's tiled shapes. The brute-force
// suite (test_layout_bruteforce.cpp) checks random layouts against the formula.
#include <catch2/catch.hpp>

#include "indexing/maps/layout_maps.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/maps/map_printer.hpp"
#include "layout/physical_layout.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_layout_physical_cases {

namespace {

using hlo_index::indexing::IndexingMap;
using hlo_index::layout::LayoutError;
using hlo_index::layout::PhysicalLayout;

PhysicalLayout layout_of(const std::string& text) {
  std::string error;
  auto shape = hlo_index::parser::parse_shape(text, &error);
  INFO(text << ": " << error);
  REQUIRE(shape.has_value());
  return PhysicalLayout::of(*shape);
}

std::vector<std::int64_t> values(const std::vector<hlo_index::simplify::Expr>& exprs,
                                 const std::vector<std::int64_t>& index) {
  std::vector<std::int64_t> result;
  result.reserve(exprs.size());
  for (const auto& e : exprs) result.push_back(hlo_index::simplify::evaluate(e, {index, {}, {}}));
  return result;
}

std::int64_t offset_of(const PhysicalLayout& l, const std::vector<std::int64_t>& index) {
  IndexingMap map = hlo_index::indexing::logical_to_physical(l);
  return values(map.results(), index).at(0);
}

// The element the inverse map puts at `offset`, or nullopt for padding.
std::optional<std::vector<std::int64_t>> element_at(const PhysicalLayout& l, std::int64_t offset) {
  IndexingMap map = hlo_index::indexing::physical_to_logical(l);
  const std::vector<std::int64_t> point{offset};
  if (!map.domain().bounds(hlo_index::simplify::Var{hlo_index::simplify::VarKind::kDim, 0}).contains(offset))
    return std::nullopt;
  for (const auto& c : map.domain().constraints())
    if (!c.interval.contains(hlo_index::simplify::evaluate(c.expr, {point, {}, {}}))) return std::nullopt;
  return values(map.results(), point);
}

}  // namespace

TEST_CASE("layout: the tiled-layout document's F32[3,5] with 2x2 tiles", "[layout]") {
  PhysicalLayout l = layout_of("f32[3,5]{1,0:T(2,2)}");
  CHECK(l.physical_dims() == std::vector<std::int64_t>{2, 3, 2, 2});
  // Element (2,3): tile index (1,1), index in the tile (0,1), linear index 17.
  CHECK(values(l.physical_index(hlo_index::indexing::build::dims(2)), {2, 3}) == std::vector<std::int64_t>{1, 1, 0, 1});
  CHECK(offset_of(l, {2, 3}) == 17);
  CHECK(l.logical_elements() == 15);
  CHECK(l.allocated_elements() == 24);
  CHECK(l.allocated_bytes() == 96);
  CHECK(element_at(l, 17) == std::vector<std::int64_t>{2, 3});
  // Offset 20 is the first slot of tile (1,2): element (2,4); offset 22 would
  // be row 3, which the array does not have: padding.
  CHECK(element_at(l, 20) == std::vector<std::int64_t>{2, 4});
  CHECK(element_at(l, 22) == std::nullopt);
}

TEST_CASE("layout: repeated tiling (2,4)(2,1) of a 4x8 array", "[layout]") {
  PhysicalLayout l = layout_of("f32[4,8]{1,0:T(2,4)(2,1)}");
  CHECK(l.physical_dims() == std::vector<std::int64_t>{2, 2, 1, 4, 2, 1});
  // Inside a 2x4 tile the 2x1 tiles pair the two rows: (0,0) (1,0) (0,1) (1,1) ...
  CHECK(offset_of(l, {0, 0}) == 0);
  CHECK(offset_of(l, {1, 0}) == 1);
  CHECK(offset_of(l, {0, 1}) == 2);
  CHECK(offset_of(l, {1, 3}) == 7);
  CHECK(offset_of(l, {0, 4}) == 8);   // the next 2x4 tile along the row
  CHECK(offset_of(l, {2, 0}) == 16);  // the first tile of the next row of tiles
  CHECK(offset_of(l, {3, 7}) == 31);
  CHECK(l.allocated_elements() == 32);
}

TEST_CASE("layout: bf16[16,256] with T(8,128)(2,1), element (9,130)", "[layout]") {
  PhysicalLayout l = layout_of("bf16[16,256]{1,0:T(8,128)(2,1)}");
  CHECK(l.physical_dims() == std::vector<std::int64_t>{2, 2, 4, 128, 2, 1});
  CHECK(offset_of(l, {9, 130}) == 3077);
  CHECK(element_at(l, 3077) == std::vector<std::int64_t>{9, 130});
  CHECK(l.allocated_bytes() == 16 * 256 * 2);
}

TEST_CASE("layout: combined dimensions (*,*,2,*,3)", "[layout]") {
  // F32[2,7,8,11,10] is combined to [112,110] and tiled by (2,3).
  PhysicalLayout l = layout_of("f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}");
  CHECK(l.physical_dims() == std::vector<std::int64_t>{56, 37, 2, 3});
  CHECK(l.allocated_elements() == 56 * 37 * 6);
  const std::vector<std::int64_t> e{1, 3, 5, 7, 9};
  std::int64_t c0 = (e[0] * 7 + e[1]) * 8 + e[2], c1 = e[3] * 10 + e[4];
  CHECK(offset_of(l, e) == ((c0 / 2) * 37 + c1 / 3) * 6 + (c0 % 2) * 3 + c1 % 3);
  CHECK(element_at(l, offset_of(l, e)) == e);
  // -1 is the older spelling of '*'.
  PhysicalLayout minus_one = layout_of("f32[2,7,8,11,10]{4,3,2,1,0:T(-1,-1,2,-1,3)}");
  CHECK(offset_of(minus_one, e) == offset_of(l, e));
}

TEST_CASE("layout: minor_to_major orders of the shapes document's 2x3 array", "[layout]") {
  // a b c / d e f: {0,1} lays out a d b e c f, {1,0} lays out a b c d e f.
  PhysicalLayout column = layout_of("f32[2,3]{0,1}");
  PhysicalLayout row = layout_of("f32[2,3]{1,0}");
  CHECK(offset_of(column, {1, 0}) == 1);  // d
  CHECK(offset_of(column, {0, 1}) == 2);  // b
  CHECK(offset_of(row, {1, 0}) == 3);
  CHECK(offset_of(row, {0, 1}) == 1);
  CHECK(offset_of(layout_of("f32[2,3]"), {1, 2}) == offset_of(row, {1, 2}));  // the default is major-to-minor
}

TEST_CASE("layout: padded_dimensions [3,5] of the 2x3 array as one covering tile", "[layout]") {
  // Column-major, dimension 0 padded to 3 and 1 to 5: a d 0 b e 0 c f 0 0 0 0 0 0 0.
  PhysicalLayout l = layout_of("f32[2,3]{0,1:T(5,3)}");
  CHECK(l.allocated_elements() == 15);
  CHECK(offset_of(l, {0, 0}) == 0);
  CHECK(offset_of(l, {1, 0}) == 1);
  CHECK(offset_of(l, {0, 1}) == 3);
  CHECK(offset_of(l, {1, 2}) == 7);
  CHECK(element_at(l, 2) == std::nullopt);
  CHECK(element_at(l, 8) == std::nullopt);
  CHECK(element_at(l, 14) == std::nullopt);
}

TEST_CASE("layout: the corpus's tiled shapes", "[layout]") {
  // A scalar with a rank-1 tile: one leading unit dimension, 128 slots.
  PhysicalLayout scalar = layout_of("f32[]{:T(128)}");
  CHECK(scalar.allocated_elements() == 128);
  CHECK(offset_of(scalar, {}) == 0);
  CHECK(element_at(scalar, 0) == std::vector<std::int64_t>{});
  CHECK(element_at(scalar, 1) == std::nullopt);
  // Three levels on a vector: 1024-element tiles of 8x128, rows paired by (4,1).
  PhysicalLayout vector = layout_of("pred[2048]{0:T(1024)(128)(4,1)}");
  CHECK(vector.physical_dims() == std::vector<std::int64_t>{2, 2, 128, 4, 1});
  for (std::int64_t e : {0, 1, 127, 128, 129, 700, 1023, 1024, 2047}) {
    std::int64_t r = e % 1024, h = r / 128, low = r % 128;
    CHECK(offset_of(vector, {e}) == (e / 1024) * 1024 + (h / 4) * 512 + low * 4 + h % 4);
  }
  PhysicalLayout matrix = layout_of("bf16[128,256]{1,0:T(8,128)(2,1)}");
  CHECK(matrix.allocated_elements() == 128 * 256);
}

TEST_CASE("layout: element width, tail padding and dynamic bounds", "[layout]") {
  CHECK(layout_of("s4[7]{0:E(4)}").allocated_bytes() == 4);  // packed: ceil(28 / 8)
  CHECK(layout_of("s4[7]{0}").allocated_bytes() == 4);
  CHECK(layout_of("s8[7]{0:E(32)}").allocated_bytes() == 28);
  PhysicalLayout aligned = layout_of("f32[5]{0:L(4)}");
  CHECK(aligned.allocated_elements() == 8);
  CHECK(element_at(aligned, 5) == std::nullopt);
  CHECK(element_at(aligned, 4) == std::vector<std::int64_t>{4});
  CHECK(layout_of("f32[<=6,2]{1,0}").logical_elements() == 12);
  CHECK(layout_of("f32[4]{0:S(1)}").memory_space() == 1);
}

TEST_CASE("layout: layouts that cannot be laid out", "[layout]") {
  CHECK_THROWS_AS(layout_of("f32[2,3]{1,1}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[2,3]{0}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[2,3]{1,0:T(2,0)}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[2,3]{1,0:T(2,*)}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[?,3]{1,0}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[5]{0:L(0)}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[4]{0:D(C)}"), LayoutError);
  CHECK_THROWS_AS(layout_of("f32[4611686018427387904,4]{1,0}"), LayoutError);
  CHECK_NOTHROW(layout_of("f32[2,3]{1,0:T(2,-1,3)}"));  // a leading unit dimension, combined
}

}  // namespace test_layout_physical_cases

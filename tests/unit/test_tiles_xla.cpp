// XLA's tests of symbolic tiles (xla/codegen/tiling/symbolic_tile_test.cc and
// symbolic_tile_analysis_test.cc, the vectors collected in
// /work/research/xla_tile_tests.md): the same tiles and constraints where
// XLA is exact. The input maps are XLA's (as its indexing analysis gives
// them, unsimplified), so the derivation sees what XLA's sees. Stride maps
// of sums are XLA's IfNeqOne formula; where our expression printer orders
// the terms differently they are compared by value at every tile size.
// Where we differ from XLA on purpose a test says why.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "indexing/maps/map_parser.hpp"
#include "indexing/tiles/symbolic_tile.hpp"
#include "indexing/tiles/tiled_fusion.hpp"
#include "simplify/expr_print.hpp"

namespace hlo_index::tiles {
namespace {

TileDerivation derive(std::string_view text) { return derive_symbolic_tile(indexing::parse_map(text)); }

std::string printed(const TileDerivation& d) {
  INFO("no tile: " << d.reason);
  REQUIRE(d.tile.has_value());
  return print_symbolic_tile(*d.tile, "");
}

// Every tile size vector within the bounds, row-major.
std::vector<std::vector<std::int64_t>> all_sizes(const SymbolicTile& t) {
  std::vector<std::vector<std::int64_t>> out{{}};
  for (const Interval& b : t.bounds) {
    std::vector<std::vector<std::int64_t>> next;
    for (const auto& prefix : out) {
      for (std::int64_t v = b.lo; v <= b.hi; ++v) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out = std::move(next);
  }
  return out;
}

// XLA's size of `d mod c`: n - ((n - 1) floordiv c) * c. Our printer orders the sum's terms its own
// canonical way (`((d0 - 1) floordiv 6) * -6 + d0`), so these are compared by value.
std::int64_t xla_mod_size(std::int64_t n, std::int64_t c) {
  const std::int64_t q = n - 1 >= 0 ? (n - 1) / c : -((-(n - 1) + c - 1) / c);
  return n - q * c;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("XLA ST-01: dot output to lhs: the contracting dimension whole", "[tiles][xla]") {
  CHECK(printed(derive("(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 10], d1 in [0, 16], d2 in [0, 22], "
                       "s0 in [0, 18]")) ==
        "offset_map: (d0, d1, d2) -> (0, 0, 0)\n"
        "size_map: (d0, d1, d2) -> (d0, d1, 19)\n"
        "stride_map: (d0, d1, d2) -> (1, 1, 1)\n");
}

TEST_CASE("XLA ST-02: trivial reshape: the size product and XLA's constraints", "[tiles][xla]") {
  const TileDerivation d = derive(
      "(d0, d1, d2, d3) -> (d0 * 11 + d1, d2, d3), domain: d0 in [0, 0], d1 in [0, 10], d2 in [0, 16], d3 in [0, 18]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(4, d.tile->offsets) == "(d0, d1, d2, d3) -> (0, 0, 0)");
  CHECK(print_tile_map(4, d.tile->sizes) == "(d0, d1, d2, d3) -> (d0 * d1, d2, d3)");
  CHECK(d.tile->constraints.to_string() == "d0 in [1, 1] || d1 in [1, 1] || d1 in [11, 11]");
  // XLA's stride: the stride of the minormost summand whose size is not 1.
  for (const auto& s : all_sizes(*d.tile)) {
    const std::int64_t expected = s[1] != 1 ? 1 : (s[0] != 1 ? 11 : 0);
    CHECK(evaluate_strides(*d.tile, s)[0] == expected);
  }
}

TEST_CASE("XLA ST-03: merging reshape: floordiv and mod sizes, the divisibility constraint", "[tiles][xla]") {
  const TileDerivation d =
      derive("(d0, d1) -> (d0 floordiv 48, d0 floordiv 6, d0 mod 6, d1), domain: d0 in [0, 47], d1 in [0, 3]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(2, d.tile->offsets) == "(d0, d1) -> (0, 0, 0, 0)");
  CHECK(simplify::to_string(d.tile->sizes[0]) == "(d0 + 47) floordiv 48");
  CHECK(simplify::to_string(d.tile->sizes[1]) == "(d0 + 5) floordiv 6");
  CHECK(simplify::to_string(d.tile->sizes[3]) == "d1");
  CHECK(print_tile_map(2, d.tile->strides) == "(d0, d1) -> (1, 1, 1, 1)");
  CHECK(d.tile->constraints.to_string() == "6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]");
  for (const auto& s : all_sizes(*d.tile)) CHECK(evaluate_sizes(*d.tile, s)[2] == xla_mod_size(s[0], 6));
}

TEST_CASE("XLA ST-04: splitting reshape: six conjunctions and XLA's stride values", "[tiles][xla]") {
  const TileDerivation d = derive(
      "(d0, d1, d2, d3) -> (d0 * 48 + d1 * 6 + d2, d3), domain: d0 in [0, 3], d1 in [0, 7], d2 in [0, 5], "
      "d3 in [0, 3]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(4, d.tile->sizes) == "(d0, d1, d2, d3) -> ((d0 * d1) * d2, d3)");
  CHECK(d.tile->constraints.to_string() ==
        "d0 in [1, 1] && d1 in [1, 1] || d0 in [1, 1] && d2 in [1, 1] || d0 in [1, 1] && d2 in [6, 6] || "
        "d1 in [1, 1] && d2 in [1, 1] || d1 in [8, 8] && d2 in [1, 1] || d1 in [8, 8] && d2 in [6, 6]");
  const std::vector<std::pair<std::vector<std::int64_t>, std::int64_t>> strides = {
      {{4, 8, 6, 4}, 1},  {{1, 1, 6, 4}, 1}, {{1, 8, 1, 4}, 6},
      {{2, 1, 1, 4}, 48}, {{2, 8, 1, 4}, 6}, {{1, 1, 1, 4}, 0}};
  for (const auto& [sizes, stride] : strides) {
    CHECK(evaluate_strides(*d.tile, sizes) == std::vector<std::int64_t>{stride, 1});
  }
}

TEST_CASE("XLA ST-05: a reshape that mixes dimensions has no symbolic tile", "[tiles][xla]") {
  const TileDerivation d = derive(
      "(d0, d1, d2) -> (d0 * 3 + d1 floordiv 4, d1 mod 4, d2), domain: d0 in [0, 3], "
      "d1 in [0, 11], d2 in [0, 18]");
  CHECK_FALSE(d.tile.has_value());
  CHECK(d.reason.find("neither a tile size nor a constant") != std::string::npos);
}

TEST_CASE("XLA ST-06..ST-11: elementwise, broadcast, reduce, reverse, slice, transpose", "[tiles][xla]") {
  CHECK(printed(derive("(d0) -> (d0), domain: d0 in [0, 149]")) ==
        "offset_map: (d0) -> (0)\nsize_map: (d0) -> (d0)\nstride_map: (d0) -> (1)\n");
  CHECK(printed(derive("(d0, d1) -> (d1), domain: d0 in [0, 156], d1 in [0, 149]")) ==
        "offset_map: (d0, d1) -> (0)\nsize_map: (d0, d1) -> (d1)\nstride_map: (d0, d1) -> (1)\n");
  CHECK(printed(derive("(d0)[s0] -> (s0, d0), domain: d0 in [0, 149], s0 in [0, 124]")) ==
        "offset_map: (d0) -> (0, 0)\nsize_map: (d0) -> (125, d0)\nstride_map: (d0) -> (1, 1)\n");
  CHECK(printed(derive("(d0) -> (-d0 + 178), domain: d0 in [0, 178]")) ==
        "offset_map: (d0) -> (178)\nsize_map: (d0) -> (d0)\nstride_map: (d0) -> (-1)\n");
  CHECK(printed(derive("(d0, d1) -> (d0 * 2 + 40, d1 * 4 + 20), domain: d0 in [0, 9], d1 in [0, 20]")) ==
        "offset_map: (d0, d1) -> (40, 20)\nsize_map: (d0, d1) -> (d0, d1)\nstride_map: (d0, d1) -> (2, 4)\n");
  CHECK(printed(derive("(d0, d1) -> (d1, d0), domain: d0 in [0, 9], d1 in [0, 20]")) ==
        "offset_map: (d0, d1) -> (0, 0)\nsize_map: (d0, d1) -> (d1, d0)\nstride_map: (d0, d1) -> (1, 1)\n");
}

TEST_CASE("XLA ST-12, ST-13: concatenate and pad operands: negative offsets", "[tiles][xla]") {
  CHECK(printed(derive("(d0, d1, d2) -> (d0, d1 - 5, d2), domain: d0 in [0, 1], d1 in [5, 15], d2 in [0, 6]")) ==
        "offset_map: (d0, d1, d2) -> (0, -5, 0)\nsize_map: (d0, d1, d2) -> (d0, d1, d2)\n"
        "stride_map: (d0, d1, d2) -> (1, 1, 1)\n");
  CHECK(printed(derive("(d0, d1, d2) -> (d0, d1 - 16, d2), domain: d0 in [0, 1], d1 in [16, 32], d2 in [0, 6]")) ==
        "offset_map: (d0, d1, d2) -> (0, -16, 0)\nsize_map: (d0, d1, d2) -> (d0, d1, d2)\n"
        "stride_map: (d0, d1, d2) -> (1, 1, 1)\n");
  CHECK(printed(derive("(d0, d1) -> (d0 - 2, d1 - 1), domain: d0 in [2, 5], d1 in [1, 4]")) ==
        "offset_map: (d0, d1) -> (-2, -1)\nsize_map: (d0, d1) -> (d0, d1)\nstride_map: (d0, d1) -> (1, 1)\n");
}

TEST_CASE("XLA ST-14..ST-16: runtime offsets stay in the offset map as symbols", "[tiles][xla]") {
  CHECK(printed(derive("(d0, d1, d2){rt0, rt1, rt2} -> (d0 + rt0, d1 + rt1, d2 + rt2), domain: d0 in [0, 0], "
                       "d1 in [0, 1], d2 in [0, 31], rt0 in [0, 1], rt1 in [0, 0], rt2 in [0, 226]")) ==
        "offset_map: (d0, d1, d2)[s0, s1, s2] -> (s0, s1, s2)\n"
        "size_map: (d0, d1, d2) -> (d0, d1, d2)\n"
        "stride_map: (d0, d1, d2) -> (1, 1, 1)\n"
        "rt_vars: s0 in [0, 1], s1 in [0, 0], s2 in [0, 226]\n");
  CHECK(printed(derive("(d0, d1, d2) -> (), domain: d0 in [0, 0], d1 in [0, 1], d2 in [0, 31]")) ==
        "offset_map: (d0, d1, d2) -> ()\nsize_map: (d0, d1, d2) -> ()\nstride_map: (d0, d1, d2) -> ()\n");
  CHECK(printed(derive("(d0, d1){rt0, rt1} -> (d0 - rt0, d1 - rt1), domain: d0 in [0, 19], d1 in [0, 29], "
                       "rt0 in [0, 15], rt1 in [0, 20]")) ==
        "offset_map: (d0, d1)[s0, s1] -> (-s0, -s1)\nsize_map: (d0, d1) -> (d0, d1)\n"
        "stride_map: (d0, d1) -> (1, 1)\nrt_vars: s0 in [0, 15], s1 in [0, 20]\n");
  CHECK(printed(derive("(d0, d1, d2, d3){rt0, rt1} -> (d1 + rt0, d2 + rt1, d3), domain: d0 in [0, 1805], "
                       "d1 in [0, 6], d2 in [0, 7], d3 in [0, 3], rt0 in [0, 26], rt1 in [0, 68]")) ==
        "offset_map: (d0, d1, d2, d3)[s0, s1] -> (s0, s1, 0)\n"
        "size_map: (d0, d1, d2, d3) -> (d1, d2, d3)\n"
        "stride_map: (d0, d1, d2, d3) -> (1, 1, 1)\n"
        "rt_vars: s0 in [0, 26], s1 in [0, 68]\n");
  CHECK(printed(derive("(d0, d1, d2, d3)[s0] -> (d0, s0), domain: d0 in [0, 1805], d1 in [0, 6], d2 in [0, 7], "
                       "d3 in [0, 3], s0 in [0, 1]")) ==
        "offset_map: (d0, d1, d2, d3) -> (0, 0)\nsize_map: (d0, d1, d2, d3) -> (d0, 2)\n"
        "stride_map: (d0, d1, d2, d3) -> (1, 1)\n");
}

TEST_CASE("XLA ST-17: reversed merging reshape: we keep the constraint XLA drops", "[tiles][xla]") {
  // XLA's Mul rule (`(d0 mod 6) * -1`) drops the constraints of its operand, so XLA prints this tile
  // without constraints; but for d0 = 4 the tile at offset 4 reads rows 4, 5, 0, 1 of the reversed
  // dimension's mod, which is no box of 4. We keep `6 mod d0 || d0 mod 6`, as for the unreversed reshape.
  const TileDerivation d = derive(
      "(d0, d1) -> (0, -(d0 floordiv 6) + 7, -(d0 mod 6) + 5, d1), domain: "
      "d0 in [0, 47], d1 in [0, 3]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(2, d.tile->offsets) == "(d0, d1) -> (0, 7, 5, 0)");
  CHECK(simplify::to_string(d.tile->sizes[1]) == "(d0 + 5) floordiv 6");
  for (const auto& s : all_sizes(*d.tile)) CHECK(evaluate_sizes(*d.tile, s)[2] == xla_mod_size(s[0], 6));
  CHECK(print_tile_map(2, d.tile->strides) == "(d0, d1) -> (0, -1, -1, 1)");
  CHECK(d.tile->constraints.to_string() == "6 mod d0 in [0, 0] || d0 mod 6 in [0, 0]");
  // The exact check agrees: with root tile (4, 4) the tiles of the reversed reshape are not boxes.
  TiledFusion f;
  f.root_dims = {48, 4};
  TiledEntry e;
  e.dims = {1, 8, 6, 4};
  e.map = indexing::parse_map(
      "(d0, d1) -> (0, -(d0 floordiv 6) + 7, -(d0 mod 6) + 5, d1), domain: d0 in [0, 47], "
      "d1 in [0, 3]");
  e.derivation = derive_symbolic_tile(e.map);
  f.entries.push_back(e);
  f.constraints = e.derivation.tile->constraints;
  const std::vector<std::int64_t> bad{4, 4}, good{12, 4};
  const ConcreteTiling t = concrete_tiling(f, bad);
  CHECK_FALSE(t.constraints_hold);
  CHECK_FALSE(t.entries[0].exact);
  const ConcreteTiling u = concrete_tiling(f, good);
  CHECK(u.constraints_hold);
  CHECK(u.entries[0].exact);
}

TEST_CASE("XLA ST-18: reversed splitting reshape: XLA's constraints", "[tiles][xla]") {
  const TileDerivation d = derive(
      "(d0, d1, d2, d3) -> (d0 * 24 - d1 * 6 - d2 + 23, d3), domain: d0 in [0, 1], "
      "d1 in [0, 3], d2 in [0, 5], d3 in [0, 3]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(4, d.tile->offsets) == "(d0, d1, d2, d3) -> (23, 0)");
  CHECK(print_tile_map(4, d.tile->sizes) == "(d0, d1, d2, d3) -> ((d0 * d1) * d2, d3)");
  CHECK(d.tile->constraints.to_string() ==
        "d0 in [1, 1] && d1 in [1, 1] || d0 in [1, 1] && d2 in [1, 1] || d0 in [1, 1] && d2 in [6, 6] || "
        "d1 in [1, 1] && d2 in [1, 1] || d1 in [4, 4] && d2 in [1, 1] || d1 in [4, 4] && d2 in [6, 6]");
  for (const auto& s : all_sizes(*d.tile)) {
    const std::int64_t expected = s[2] != 1 ? -1 : (s[1] != 1 ? -6 : (s[0] != 1 ? 24 : 0));
    CHECK(evaluate_strides(*d.tile, s)[0] == expected);
  }
}

TEST_CASE("XLA ST-19, ST-20: sums of symbols", "[tiles][xla]") {
  CHECK(printed(derive("()[s0, s1] -> (s1 * 2 + s0), domain: s0 in [0, 1], s1 in [0, 8]")) ==
        "offset_map: () -> (0)\nsize_map: () -> (18)\nstride_map: () -> (1)\n");
}

TEST_CASE("XLA ST-21: mod of a floordiv", "[tiles][xla]") {
  const TileDerivation d = derive("(d0) -> (d0 floordiv 35, (d0 floordiv 7) mod 5, d0 mod 7), domain: d0 in [0, 104]");
  REQUIRE(d.tile);
  CHECK(simplify::to_string(d.tile->sizes[0]) == "(d0 + 34) floordiv 35");
  CHECK(print_tile_map(1, d.tile->strides) == "(d0) -> (1, 1, 1)");
  for (const auto& s : all_sizes(*d.tile)) {
    CHECK(evaluate_sizes(*d.tile, s)[1] == xla_mod_size(ceil_div(s[0], 7), 5));
    CHECK(evaluate_sizes(*d.tile, s)[2] == xla_mod_size(s[0], 7));
  }
  CHECK(d.tile->constraints.to_string() ==
        "((d0 + 6) floordiv 7) mod 5 in [0, 0] && 7 mod d0 in [0, 0] || "
        "((d0 + 6) floordiv 7) mod 5 in [0, 0] && d0 mod 7 in [0, 0] || "
        "5 mod ((d0 + 6) floordiv 7) in [0, 0] && 7 mod d0 in [0, 0] || "
        "5 mod ((d0 + 6) floordiv 7) in [0, 0] && d0 mod 7 in [0, 0]");
}

TEST_CASE("XLA ST-22, ST-26: no tile: a floordiv of a sum, a symbol not starting at 0", "[tiles][xla]") {
  CHECK_FALSE(derive("(d0, d1) -> (0, (d0 * 5 + 18) floordiv 6, (d0 * 5 + 18) mod 6, d1 * 2), domain: "
                     "d0 in [0, 4], d1 in [0, 1]")
                  .tile.has_value());
  CHECK_FALSE(derive("(d0)[s0] -> (s0 - 10, d0), domain: d0 in [0, 7], s0 in [10, 29]").tile.has_value());
}

TEST_CASE("XLA ST-27: compatible constraints combine", "[tiles][xla]") {
  const TileDerivation d = derive(
      "(d0, d1) -> (d0 floordiv 48, d0 floordiv 6, d0 mod 6, d1 floordiv 8, d1 mod 8), "
      "domain: d0 in [0, 47], d1 in [0, 31]");
  REQUIRE(d.tile);
  CHECK(d.tile->constraints.to_string() ==
        "6 mod d0 in [0, 0] && 8 mod d1 in [0, 0] || 6 mod d0 in [0, 0] && d1 mod 8 in [0, 0] || "
        "8 mod d1 in [0, 0] && d0 mod 6 in [0, 0] || d0 mod 6 in [0, 0] && d1 mod 8 in [0, 0]");
}

TEST_CASE("XLA ST-28..ST-31: constraints already on the map", "[tiles][xla]") {
  // Right padding (a result in [0, hi]) is ignored.
  const TileDerivation d = derive(
      "(d0, d1, d2)[s0] -> (d0 * 2048 + d1, s0), domain: d0 in [0, 3], d1 in [0, 2047], "
      "d2 in [0, 50303], s0 in [0, 50303], d0 * 2048 + d1 in [0, 4096]");
  REQUIRE(d.tile);
  CHECK(print_tile_map(3, d.tile->sizes) == "(d0, d1, d2) -> (d0 * d1, 50304)");
  CHECK(d.tile->constraints.to_string() == "d0 in [1, 1] || d1 in [1, 1] || d1 in [2048, 2048]");
  // Left padding, or a constraint on what is not a result: no tile.
  CHECK_FALSE(derive("(d0, d1, d2)[s0] -> (d0 * 2048 + d1, s0), domain: d0 in [0, 3], d1 in [0, 2047], "
                     "d2 in [0, 50303], s0 in [0, 50303], d0 * 2048 + d1 in [1, 8191]")
                  .tile.has_value());
  CHECK_FALSE(derive("(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9], d1 mod 5 in [0, 0]").tile.has_value());
}

TEST_CASE("XLA SA-24..SA-27: the candidate sizes of one dimension", "[tiles][xla]") {
  CHECK(candidate_sizes(1) == std::vector<std::int64_t>{1});
  CHECK(candidate_sizes(8) == std::vector<std::int64_t>{1, 2, 4, 8});
  CHECK(candidate_sizes(10) == std::vector<std::int64_t>{1, 2, 4, 8, 10});
}

TEST_CASE("XLA constraint expressions: conjunction, disjunction, simplification", "[tiles][xla]") {
  const TileConstraint a{Expr::dim(0), std::nullopt, Interval::point(1)};
  const TileConstraint b{Expr::dim(0), std::nullopt, {0, 4}};
  const TileConstraint c{Expr::dim(1), std::nullopt, Interval::point(8)};
  // Intervals on one expression intersect; an empty one drops the pair.
  CHECK((TileConstraints::of(a) && TileConstraints::of(b)).to_string() == "d0 in [1, 1]");
  CHECK_FALSE((TileConstraints::of(a) && TileConstraints::of({Expr::dim(0), std::nullopt, {2, 3}})).satisfiable());
  CHECK((TileConstraints::of(c) || TileConstraints::of(a)).to_string() == "d0 in [1, 1] || d1 in [8, 8]");
  CHECK((TileConstraints::always() || TileConstraints::of(a)).always_satisfied());
  CHECK((TileConstraints::never() && TileConstraints::of(a)).to_string() == "unsatisfiable");
  // Constants fold: a conjunction that holds makes the whole always satisfied.
  TileConstraints k =
      TileConstraints::of({Expr::constant(128), std::nullopt, Interval::point(128)}) || TileConstraints::of(a);
  k.simplify();
  CHECK(k.always_satisfied());
  const std::vector<std::int64_t> s{1, 8}, t{2, 8}, u{2, 7};
  const TileConstraints either = TileConstraints::of(a) || TileConstraints::of(c);
  CHECK(either.holds(s));
  CHECK(either.holds(t));
  CHECK_FALSE(either.holds(u));
}

TEST_CASE("beyond XLA: a reshape that mixes dimensions, decided per tiling", "[tiles][xla]") {
  // ST-05's reshape f32[12,4] -> f32[4,12] (rank 2 here): XLA has no tile. The exact check decides each
  // tiling: a root tile (1, 4) reads one row of 4 elements (row 3 * k0 + k1), a root tile (2, 4) rows
  // 6 * k0 + k1 and 6 * k0 + k1 + 3: a box of stride 3. Both are exactly what the tiles read.
  TiledFusion f;
  f.root_dims = {4, 12};
  TiledEntry e;
  e.dims = {12, 4};
  e.map = indexing::parse_map("(d0, d1) -> (d0 * 3 + d1 floordiv 4, d1 mod 4), domain: d0 in [0, 3], d1 in [0, 11]");
  e.derivation = derive_symbolic_tile(e.map);
  REQUIRE_FALSE(e.derivation.tile.has_value());
  f.entries.push_back(e);
  const std::vector<std::int64_t> one_row{1, 4}, two_rows{2, 4}, wide{1, 8};
  const ConcreteTiling t = concrete_tiling(f, one_row);
  CHECK(t.tiles == 12);
  CHECK(t.entries[0].exact);
  CHECK(t.entries[0].sizes == std::vector<std::int64_t>{1, 4});
  CHECK(t.entries[0].reads == 48);
  CHECK(t.entries[0].rereads() == 0);
  const ConcreteTiling u = concrete_tiling(f, two_rows);
  CHECK(u.entries[0].exact);
  CHECK(u.entries[0].sizes == std::vector<std::int64_t>{2, 4});
  CHECK(u.entries[0].strides == std::vector<std::int64_t>{3, 1});
  // (1, 8): tile (k0, 0) reads rows 3 * k0 and 3 * k0 + 1 whole (a box); tile (k0, 1), cut to 4 columns by
  // the root's edge, reads row 3 * k0 + 2 only, while its box has two rows: covered, not exact.
  const ConcreteTiling w = concrete_tiling(f, wide);
  CHECK(w.entries[0].covers);
  CHECK_FALSE(w.entries[0].exact);
  CHECK(w.entries[0].reads == 48);
}

}  // namespace hlo_index::tiles

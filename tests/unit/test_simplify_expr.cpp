// The expression IR: folding at construction, canonical order, evaluation
// with floor semantics, and XLA's print conventions.
#include <catch2/catch.hpp>

#include "simplify/expr.hpp"
#include "simplify/expr_print.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_simplify_expr_cases {

using namespace hlo_index::simplify;

namespace {
Expr d(std::uint32_t i) { return Expr::dim(i); }
Expr s(std::uint32_t i) { return Expr::range(i); }
}  // namespace

TEST_CASE("construction folds identities that hold for all integers", "[simplify][expr]") {
  CHECK(to_string(d(0) + d(0)) == "d0 * 2");
  CHECK(to_string(d(0) - d(0)) == "0");
  CHECK(to_string((d(0) + 3) * 2 - 6) == "d0 * 2");
  CHECK(to_string(floor_div(d(0) * 8, 8)) == "d0");
  CHECK(to_string(floor_div(d(0) * 16 + d(1), 8)) == "d0 * 2 + d1 floordiv 8");
  CHECK(to_string(floor_div(s(0) * 6 + 9, 18)) == "(s0 * 2 + 3) floordiv 6");
  CHECK(to_string(floor_div(floor_div(d(0), 2), 3)) == "d0 floordiv 6");
  CHECK(to_string(floor_div(d(0), -2)) == "(-d0) floordiv 2");
  CHECK(to_string(mod(d(0) * 16 + d(1) * 4 + d(2), 8)) == "(d1 * 4 + d2) mod 8");
  CHECK(to_string(mod(s(0) * 128, 715)) == "(s0 * 128) mod 715");
  CHECK(to_string(mod(d(0) * 6, 4)) == "((d0 * 3) mod 2) * 2");
  CHECK(to_string(mod(mod(d(0), 8), 4)) == "d0 mod 4");
  CHECK(to_string(mod(d(0), 1)) == "0");
  CHECK(to_string(ceil_div(d(0), 4)) == "(d0 + 3) floordiv 4");
  // Constants below the divisor stay where XLA prints them.
  CHECK(to_string(floor_div(d(1) - 3, 7)) == "(d1 - 3) floordiv 7");
  CHECK(to_string(mod(d(1) - 3, 7)) == "(d1 - 3) mod 7");
  CHECK(to_string(floor_div(d(0) + 20, 8)) == "(d0 + 4) floordiv 8 + 2");
  // Beyond the quasi-affine fragment: a non-affine node, operands in order.
  CHECK((d(1) * d(0)).kind() == Expr::Kind::kNonAffine);
  CHECK(d(1) * d(0) == d(0) * d(1));
  CHECK(to_string(floor_div(d(0), d(1) + 1)) == "d0 floordiv (d1 + 1)");
  CHECK(to_string(mod(d(0) * 2, d(1)) * 3) == "((d0 * 2) mod d1) * 3");
  CHECK_THROWS_AS(floor_div(d(0), 0), NotQuasiAffine);
  CHECK_THROWS_AS(Expr::constant(INT64_MAX) + 1, ArithmeticOverflow);
}

TEST_CASE("equal expressions built differently are equal trees", "[simplify][expr]") {
  Expr a = d(1) * 3 + d(0) + 5;
  Expr b = Expr::constant(5) + d(0) + d(1) + d(1) * 2;
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  CHECK(std::is_eq(a <=> b));
  CHECK_FALSE(a == b + 1);
}

TEST_CASE("evaluation uses floor semantics", "[simplify][expr]") {
  std::vector<std::int64_t> dims{-7, 3};
  VarValues v{dims, {}, {}};
  CHECK(evaluate(floor_div(d(0), 2), v) == -4);
  CHECK(evaluate(mod(d(0), 3), v) == 2);
  CHECK(evaluate(mod(d(0), -3), v) == -1);
  CHECK(evaluate(floor_div(d(0), -2), v) == 3);
  CHECK(evaluate(ceil_div(d(0), 2), v) == -3);
  CHECK(evaluate(d(0) * 2 + d(1) - 4, v) == -15);
}

TEST_CASE("printing follows XLA's conventions", "[simplify][expr]") {
  CHECK(to_string(d(0) * 4 + s(0) + s(1) - 42) == "d0 * 4 + s0 + s1 - 42");
  CHECK(to_string(s(0) * 2 + d(1)) == "d1 + s0 * 2");  // dims before symbol-only terms
  CHECK(to_string(mod(s(0), 3) + d(0)) == "d0 + s0 mod 3");
  CHECK(to_string(-d(1) + 16) == "-d1 + 16");
  // XLA orders products before plain variables: d0 - d1 * 3 prints so.
  CHECK(to_string(d(0) - d(1) * 3) == "d1 * -3 + d0");
  CHECK(to_string(d(0) * 2 - d(1) * 3) == "d0 * 2 - d1 * 3");
  CHECK(to_string(mod(d(1), 4) * 8) == "(d1 mod 4) * 8");
  CHECK(to_string(mod(-d(0), 2)) == "(-d0) mod 2");
  CHECK(to_string(floor_div(d(0) - 2, 3)) == "(d0 - 2) floordiv 3");
  CHECK(to_string(-floor_div(d(0), 2)) == "-(d0 floordiv 2)");
  CHECK(to_string(d(0) * -3) == "d0 * -3");
  CHECK(to_string(floor_div(mod(s(0) * 64, 715), 1) * 715 + mod(s(0) * 128, 715)) ==
        "((s0 * 64) mod 715) * 715 + (s0 * 128) mod 715");
  CHECK(to_string(Expr::runtime(0) + d(0)) == "d0 + rt0");
}

}  // namespace test_simplify_expr_cases

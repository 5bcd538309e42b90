// Every simplifier rule: one case where it fires, one where it must not.
#include <catch2/catch.hpp>

#include <map>

#include "simplify/constraint_rules.hpp"
#include "simplify/expr_print.hpp"
#include "simplify/expr_rules.hpp"
#include "simplify/simplifier.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_simplify_rules_cases {

using namespace hlo_index::simplify;

namespace {

// Dims d0..d(n-1) with the given intervals, no symbols.
Domain dims(std::initializer_list<Interval> intervals) {
  std::vector<Variable> vars;
  for (Interval i : intervals) vars.push_back({i, ""});
  return Domain(vars, {}, {});
}

Expr d(std::uint32_t i) { return Expr::dim(i); }
Expr s(std::uint32_t i) { return Expr::range(i); }

std::string fired(std::optional<Expr> e) { return e ? to_string(*e) : "(not fired)"; }

}  // namespace

TEST_CASE("mod_within_one_period", "[simplify][rules]") {
  Domain dom = dims({{0, 14}, {-5, -1}, {-4, 0}, {20, 27}});
  RangeEvaluator r(dom, false);
  CHECK(fired(mod_within_one_period(mod(d(0), 16), r)) == "d0");
  CHECK(fired(mod_within_one_period(mod(d(1), 5), r)) == "d1 + 5");
  CHECK(fired(mod_within_one_period(mod(d(3), 10), r)) == "d3 - 20");
  // Ranges that wrap around a multiple must stay.
  CHECK(fired(mod_within_one_period(mod(d(2), 5), r)) == "(not fired)");
  CHECK(fired(mod_within_one_period(mod(d(0), 8), r)) == "(not fired)");
}

TEST_CASE("floordiv_within_one_period", "[simplify][rules]") {
  Domain dom = dims({{0, 14}, {16, 31}});
  RangeEvaluator r(dom, false);
  CHECK(fired(floordiv_within_one_period(floor_div(d(0), 16), r)) == "0");
  CHECK(fired(floordiv_within_one_period(floor_div(d(1), 16), r)) == "1");
  CHECK(fired(floordiv_within_one_period(floor_div(d(0), 8), r)) == "(not fired)");
}

TEST_CASE("floordiv_drop_bounded_remainder", "[simplify][rules]") {
  Domain dom = dims({{0, 9}, {0, 9}, {0, 9}});
  RangeEvaluator r(dom, false);
  // (construction already pulls out multiples of the divisor, so these are
  // the shapes that reach the rule)
  CHECK(fired(floordiv_drop_bounded_remainder(floor_div(d(1) * 10 + d(2), 100), r)) == "d1 floordiv 10");
  CHECK(fired(floordiv_drop_bounded_remainder(floor_div(d(1) * 10 + d(2), 20), r)) == "d1 floordiv 2");
  // (x*6 + y) floordiv 9 with y in [0, 2]: gcd(6, 9) = 3, y < 3.
  Domain small = dims({{0, 100}, {0, 2}});
  RangeEvaluator rs(small, false);
  CHECK(fired(floordiv_drop_bounded_remainder(floor_div(d(0) * 6 + d(1), 9), rs)) == "(d0 * 2) floordiv 3");
  // d2 reaches 9 > 3: it can carry.
  CHECK(fired(floordiv_drop_bounded_remainder(floor_div(d(1) * 4 + d(2), 8), r)) == "(not fired)");
}

TEST_CASE("mod_split_bounded_remainder", "[simplify][rules]") {
  Domain dom = dims({{0, 100}, {0, 3}});
  RangeEvaluator r(dom, false);
  CHECK(fired(mod_split_bounded_remainder(mod(d(0) * 4 + d(1), 20), r)) == "(d0 mod 5) * 4 + d1");
  Domain wide = dims({{0, 100}, {0, 4}});
  RangeEvaluator rw(wide, false);
  CHECK(fired(mod_split_bounded_remainder(mod(d(0) * 4 + d(1), 20), rw)) == "(not fired)");
}

TEST_CASE("floordiv_of_mod", "[simplify][rules]") {
  Domain dom = dims({{0, 999}});
  RangeEvaluator r(dom, false);
  CHECK(fired(floordiv_of_mod(floor_div(mod(d(0), 100), 10), r)) == "(d0 floordiv 10) mod 10");
  // 100 is not a multiple of 7.
  CHECK(fired(floordiv_of_mod(floor_div(mod(d(0), 100), 7), r)) == "(not fired)");
}

TEST_CASE("floordiv_absorb_inner_floordiv", "[simplify][rules]") {
  std::vector<Variable> syms{{{0, 10}, ""}, {{0, 200}, ""}};
  Domain dom({}, syms, {});
  RangeEvaluator r(dom, false);
  CHECK(fired(floordiv_absorb_inner_floordiv(floor_div(s(0) * 2 + floor_div(s(1), 64), 3), r)) ==
        "(s0 * 128 + s1) floordiv 192");
  // Two inner divisions: left alone.
  CHECK(fired(floordiv_absorb_inner_floordiv(floor_div(floor_div(s(0), 2) + floor_div(s(1), 3), 5), r)) ==
        "(not fired)");
}

TEST_CASE("sum_recombine_div_mod", "[simplify][rules]") {
  Domain dom = dims({{0, 99}, {0, 127}});
  RangeEvaluator r(dom, false);
  CHECK(fired(sum_recombine_div_mod(mod(d(0), 8) * 128 + d(1) + floor_div(d(0), 8) * 1024, r)) == "d0 * 128 + d1");
  // Coefficients do not match (1024 != 8 * 100).
  CHECK(fired(sum_recombine_div_mod(mod(d(0), 8) * 100 + floor_div(d(0), 8) * 1024, r)) == "(not fired)");
}

TEST_CASE("sum_merge_mod_digits", "[simplify][rules]") {
  Domain dom = dims({{0, 15}, {0, 127}});
  RangeEvaluator r(dom, false);
  // The bf16 (2,1) sub-tile read back: two digits of d0 are d0 mod 8.
  CHECK(fired(sum_merge_mod_digits(mod(floor_div(d(0), 2), 4) * 2 + mod(d(0), 2), r)) == "d0 mod 8");
  CHECK(fired(sum_merge_mod_digits(mod(floor_div(d(0), 2), 4) * 6 + mod(d(0), 2) * 3 + d(1), r)) ==
        "(d0 mod 8) * 3 + d1");
  // Not adjacent digits: the high one divides by 4, the low one keeps d0 mod 2.
  CHECK(fired(sum_merge_mod_digits(mod(floor_div(d(0), 4), 3) * 2 + mod(d(0), 2), r)) == "(not fired)");
  // Adjacent digits with the wrong weight (3 != 2 * 1).
  CHECK(fired(sum_merge_mod_digits(mod(floor_div(d(0), 2), 4) * 3 + mod(d(0), 2), r)) == "(not fired)");
  // Digits of different expressions do not merge.
  CHECK(fired(sum_merge_mod_digits(mod(floor_div(d(1), 2), 4) * 2 + mod(d(0), 2), r)) == "(not fired)");
}

TEST_CASE("sum_fold_into_mod", "[simplify][rules]") {
  std::vector<Variable> syms{{{0, 100}, ""}};
  Domain dom(std::vector<Variable>{{{0, 9}, ""}}, syms, {});
  RangeEvaluator r(dom, false);
  CHECK(fired(sum_fold_into_mod(d(0) - floor_div(s(0), 3) * 3 + s(0), r)) == "d0 + s0 mod 3");
  CHECK(fired(sum_fold_into_mod(Expr::constant(1) + d(0) - floor_div(s(0) + 1, 3) * 3 + s(0), r)) ==
        "d0 + (s0 + 1) mod 3");
  // Without the matching `+ s0` the rewrite would grow the expression.
  CHECK(fired(sum_fold_into_mod(d(0) - floor_div(s(0), 3) * 3, r)) == "(not fired)");
}

TEST_CASE("floordiv_of_negative_sum and mod_of_negative_sum", "[simplify][rules]") {
  Domain dom = dims({{0, 49}});
  RangeEvaluator r(dom, false);
  CHECK(fired(floordiv_of_negative_sum(floor_div(-d(0) - 1, 5), r)) == "-(d0 floordiv 5) - 1");
  CHECK(fired(floordiv_of_negative_sum(floor_div(-d(0), 5), r)) == "(not fired)");
  CHECK(fired(mod_of_negative_sum(mod(d(0) * 9 + 9, 10), r)) == "-(d0 mod 10) + 9");
  // XLA keeps (-d0) mod 2: no negative constant, nothing gained.
  CHECK(fired(mod_of_negative_sum(mod(-d(0), 2), r)) == "(not fired)");
}

TEST_CASE("replace_point_range", "[simplify][rules]") {
  Domain dom = dims({{5, 5}, {0, 3}});
  RangeEvaluator r(dom, false);
  CHECK(fired(replace_point_range(d(0), r)) == "5");
  CHECK(fired(replace_point_range(floor_div(d(1), 4), r)) == "0");
  CHECK(fired(replace_point_range(d(1), r)) == "(not fired)");
}

namespace {
std::string rewrite(ConstraintRule rule, const Constraint& c, const Domain& dom) {
  RangeEvaluator r(dom, false);
  auto out = rule(c, r);
  if (!out) return "(not fired)";
  switch (out->action) {
    case ConstraintRewrite::Action::kDrop: return "drop";
    case ConstraintRewrite::Action::kInfeasible: return "infeasible";
    case ConstraintRewrite::Action::kReplace: break;
  }
  return to_string(out->replacement.expr) + " in " + to_string(out->replacement.interval);
}
}  // namespace

TEST_CASE("constraint rules fire and hold back", "[simplify][rules]") {
  Domain dom = dims({{0, 5}, {1, 3}, {0, 999}, {0, 7}});
  CHECK(rewrite(constraint_fold_constant, {Expr::constant(3), {0, 5}}, dom) == "drop");
  CHECK(rewrite(constraint_fold_constant, {Expr::constant(0), {10, 15}}, dom) == "infeasible");
  CHECK(rewrite(constraint_fold_constant, {d(0), {10, 15}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_always_true, {d(0) + d(1), {0, 20}}, dom) == "drop");
  CHECK(rewrite(constraint_always_true, {d(0) + d(1), {0, 7}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_never_true, {mod(d(3), 8) + 5, {50, 54}}, dom) == "infeasible");
  CHECK(rewrite(constraint_never_true, {mod(d(3), 8) + 5, {6, 10}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_clip_to_range, {d(0) + d(1), {-5, 7}}, dom) == "d0 + d1 in [1, 7]");
  CHECK(rewrite(constraint_clip_to_range, {d(0) + d(1), {2, 7}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_move_constant, {mod(d(3), 8) + 5, {6, 10}}, dom) == "d3 mod 8 in [1, 5]");
  CHECK(rewrite(constraint_move_constant, {mod(d(3), 8), {6, 10}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_divide_common_factor, {d(2) * 8, {14, 33}}, dom) == "d2 in [2, 4]");
  CHECK(rewrite(constraint_divide_common_factor, {d(2) * 3, {-11, -5}}, dom) == "d2 in [-3, -2]");
  CHECK(rewrite(constraint_divide_common_factor, {d(2) * -3, {-11, -5}}, dom) == "-d2 in [-3, -2]");
  CHECK(rewrite(constraint_divide_common_factor, {d(2) * 3 + d(0), {0, 5}}, dom) == "(not fired)");

  CHECK(rewrite(constraint_unfold_floordiv, {floor_div(d(2), 8), {5, 11}}, dom) == "d2 in [40, 95]");
  CHECK(rewrite(constraint_unfold_floordiv, {mod(d(2), 8), {5, 7}}, dom) == "(not fired)");

  // d1 * 2 + d2 is in [0, 3]: it cannot move the bounds on d0 (XLA needs two
  // steps for this; taking the largest factor first does it in one).
  Domain bits = dims({{0, 999}, {0, 1}, {0, 1}});
  CHECK(rewrite(constraint_drop_bounded_remainder, {d(0) * 4 + d(1) * 2 + d(2), {0, 399}}, bits) == "d0 in [0, 99]");
  // XLA's Sum_NotIndependentOfSymbol: (598 - [0, 2]) floordiv 3 is not one value.
  Domain s3 = dims({{0, 999}, {0, 1}, {0, 2}});
  CHECK(rewrite(constraint_drop_bounded_remainder, {d(0) * 6 + d(1) * 3 + d(2), {0, 598}}, s3) == "(not fired)");

  CHECK(rewrite(constraint_normalize_sign, {d(1) - d(0), {-2, 0}}, dom) == "-d1 + d0 in [0, 2]");
  CHECK(rewrite(constraint_normalize_sign, {d(0) - d(1), {0, 2}}, dom) == "(not fired)");
}

TEST_CASE("merge_mod_constraints merges residues and aligns bounds", "[simplify][rules]") {
  Domain dom({}, std::vector<Variable>{{{-10, 25}, ""}}, {});
  REQUIRE(dom.add_constraint(mod(s(0), 2), {1, 1}));
  REQUIRE(dom.add_constraint(mod(s(0), 3), {1, 1}));
  bool changed = false;
  REQUIRE(merge_mod_constraints(dom, changed));
  CHECK(changed);
  REQUIRE(dom.constraints().size() == 1);
  CHECK(to_string(dom.constraints()[0].expr) == "s0 mod 6");
  // Floor semantics: -5 mod 6 == 1, the first value >= -10 in the class.
  CHECK(dom.bounds({VarKind::kRange, 0}) == Interval{-5, 25});

  Domain single = dims({{0, 9}});
  REQUIRE(single.add_constraint(mod(d(0), 8), {0, 0}));
  changed = false;
  REQUIRE(merge_mod_constraints(single, changed));
  CHECK(single.bounds({VarKind::kDim, 0}) == Interval{0, 8});

  // Nothing to merge or align.
  Domain none = dims({{0, 16}});
  REQUIRE(none.add_constraint(mod(d(0), 8), {0, 0}));
  changed = false;
  REQUIRE(merge_mod_constraints(none, changed));
  CHECK_FALSE(changed);
  CHECK(none.bounds({VarKind::kDim, 0}) == Interval{0, 16});
}

TEST_CASE("the seed document's simplifier examples come out as documented", "[simplify]") {
  auto simplified = [](std::vector<Expr> results, Domain dom) {
    REQUIRE(simplify_map(results, dom) != SimplifyStatus::kEmpty);
    std::string out;
    for (const Expr& e : results) out += (out.empty() ? "" : ", ") + to_string(e);
    return out;
  };
  CHECK(simplified({d(0) + floor_div(d(1), 16), mod(d(1), 16)}, dims({{0, 6}, {0, 14}})) == "d0, d1");
  Expr lin = d(0) * 100 + d(1) * 10 + d(2);
  CHECK(simplified({floor_div(lin, 100), floor_div(mod(lin, 100), 10), mod(d(2), 10)},
                   dims({{0, 9}, {0, 9}, {0, 9}})) == "d0, d1, d2");
  Expr lin2 = d(0) * 16 + d(1) * 4 + d(2);
  CHECK(simplified({floor_div(lin2, 8), mod(lin2, 8)}, dims({{0, 9}, {0, 9}, {0, 9}})) ==
        "d0 * 2 + (d1 * 4 + d2) floordiv 8, (d1 * 4 + d2) mod 8");
  CHECK(simplified({-floor_div(d(0) * -11 - d(1) + 109, 11) + 9}, dims({{0, 9}, {0, 10}})) == "d0");
}

TEST_CASE("solve_range_equality replaces a range variable an equality fixes", "[simplify][rules]") {
  // d0 in [0, 9], s0 in [0, 15], s1 in [0, 3]; s0 + d0 in [15, 15] fixes s0 = 15 - d0.
  Domain dom({{{0, 9}, ""}}, {{{0, 15}, ""}, {{0, 3}, ""}}, {});
  REQUIRE(dom.add_constraint(s(0) + d(0), {15, 15}));
  REQUIRE(dom.add_constraint(s(0) + s(1), {0, 14}));
  std::vector<Expr> results{s(0) * 2 + s(1), d(0)};
  bool changed = false;
  REQUIRE(solve_range_equality(results, dom, changed));
  CHECK(changed);
  CHECK(to_string(results[0]) == "d0 * -2 + s1 + 30");
  CHECK(to_string(results[1]) == "d0");
  std::vector<std::string> constraints;
  for (const Constraint& c : dom.constraints()) constraints.push_back(to_string(c.expr));
  // The equality became "15 - d0 in s0's bounds"; the other constraint has s0 replaced.
  CHECK(constraints == std::vector<std::string>{"-d0 + 15", "-d0 + s1 + 15"});

  // Must not fire: a coefficient other than +-1, an interval of several values,
  // only dimensions, or the variable also under a division.
  for (const auto& [expr, interval] : std::vector<std::pair<Expr, Interval>>{
           {s(0) * 2 + d(0), {8, 8}},
           {s(0) + d(0), {4, 5}},
           {d(0) + d(1), {3, 3}},
           {s(0) + floor_div(s(0) + d(0), 2), {6, 6}},
       }) {
    Domain other({{{0, 9}, ""}, {{0, 9}, ""}}, {{{0, 15}, ""}}, {});
    REQUIRE(other.add_constraint(expr, interval));
    std::vector<Expr> kept{s(0)};
    bool other_changed = false;
    REQUIRE(solve_range_equality(kept, other, other_changed));
    CHECK_FALSE(other_changed);
    CHECK(to_string(kept[0]) == "s0");
  }
}

TEST_CASE("solve_range_equality keeps the relation and its number of points (enumeration)", "[simplify][rules]") {
  // Every (d0, d1) -> results pair and how many (d, s) points give it, before
  // and after, over equalities with each sign and offset.
  for (std::int64_t sign : {1, -1}) {
    for (std::int64_t offset = -2; offset <= 6; ++offset) {
      DYNAMIC_SECTION("sign " << sign << " offset " << offset) {
        Domain dom({{{0, 4}, ""}, {{0, 3}, ""}}, {{{0, 5}, ""}, {{0, 3}, ""}}, {});
        const Expr equality = s(0) * sign + d(0) - d(1) + s(1);
        if (!dom.add_constraint(equality, {offset, offset})) continue;
        const std::vector<Expr> before{s(0) + d(1), mod(s(0) + s(1), 3)};
        std::vector<Expr> after = before;
        Domain solved = dom;
        bool changed = false;
        const bool feasible = solve_range_equality(after, solved, changed);
        CHECK(changed);
        auto points = [](const std::vector<Expr>& results, const Domain& domain, bool skip_s0) {
          std::map<std::vector<std::int64_t>, int> out;
          for (std::int64_t a = 0; a <= 4; ++a)
            for (std::int64_t b = 0; b <= 3; ++b)
              for (std::int64_t x = 0; x <= 5; ++x)
                for (std::int64_t y = 0; y <= 3; ++y) {
                  if (skip_s0 && x != 0) continue;  // s0 is unused after solving
                  const std::int64_t dv[] = {a, b}, sv[] = {x, y};
                  const VarValues v{dv, sv, {}};
                  bool in = true;
                  for (Var var : domain.all_variables()) {
                    const bool unused = skip_s0 && var == Var{VarKind::kRange, 0};
                    in = in && (unused || domain.bounds(var).contains(v[var]));
                  }
                  for (const Constraint& c : domain.constraints()) in = in && c.interval.contains(evaluate(c.expr, v));
                  if (!in) continue;
                  std::vector<std::int64_t> key{a, b};
                  for (const Expr& r : results) key.push_back(evaluate(r, v));
                  ++out[key];
                }
          return out;
        };
        const auto expected = points(before, dom, false);
        if (!feasible) {
          CHECK(expected.empty());
        } else {
          CHECK(points(after, solved, true) == expected);
        }
      }
    }
  }
}

}  // namespace test_simplify_rules_cases

// IndexingMap operations: composition (XLA's symbol order and codomain
// constraints), symbol clean-ups, simplification, isl equality, inverse and
// the isl operation budget.
#include <catch2/catch.hpp>

#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_maps_cases {

using namespace hlo_index::indexing;

namespace {

std::string simplified(const std::string& text) {
  IndexingMap m = parse_map(text);
  MapSimplifyOptions options;
  options.verify = true;
  simplify(m, options);
  return print_map(m);
}

// Restores the thread's isl budget when a test lowers it.
class ScopedIslLimit {
public:
  explicit ScopedIslLimit(unsigned long limit) : m_saved(IslContext::get().operation_limit()) {
    IslContext::get().set_operation_limit(limit);
  }
  ~ScopedIslLimit() { IslContext::get().set_operation_limit(m_saved); }

private:
  unsigned long m_saved;
};

}  // namespace

TEST_CASE("compose renumbers symbols in XLA's order", "[indexing][compose]") {
  IndexingMap consumer = parse_map("(d0)[s0] -> (d0, s0), domain: d0 in [0, 9], s0 in [0, 7]");
  IndexingMap producer =
      parse_map("(d0, d1)[s0, s1] -> (d1, d0, s1, s0), domain: d0 in [0, 9], d1 in [0, 7], s0 in [0, 1], s1 in [0, 2]");
  CHECK(print_map(compose(consumer, producer)) ==
        "(d0)[s0, s1, s2] -> (s2, d0, s1, s0), domain: d0 in [0, 9], s0 in [0, 1], s1 in [0, 2], s2 in [0, 7]");
}

TEST_CASE("compose adds producer constraints and codomain constraints", "[indexing][compose]") {
  // The worked example of the reference notes (section 4.1).
  IndexingMap producer = parse_map(
      "(d0, d1)[s0] -> (d1, d0 * 4 + s0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 3], d0 mod 2 in [0, 0]");
  IndexingMap consumer =
      parse_map("(d0)[s0] -> (d0 floordiv 2, s0), domain: d0 in [0, 29], s0 in [0, 24], s0 mod 5 in [0, 0]");
  IndexingMap c = compose(consumer, producer);
  CHECK(print_map(c) ==
        "(d0)[s0, s1] -> (s1, (d0 floordiv 2) * 4 + s0), domain: d0 in [0, 29], s0 in [0, 3], s1 in [0, 19], "
        "(d0 floordiv 2) mod 2 in [0, 0], d0 floordiv 2 in [0, 9], s1 mod 5 in [0, 0]");
  MapSimplifyOptions verify;
  verify.verify = true;
  simplify(c, verify);
  // XLA stops at d0 in [0, 19]; the exact projection is [0, 17] because
  // d0 floordiv 2 must also be even.
  CHECK(print_map(c) ==
        "(d0)[s0, s1] -> (s1, (d0 floordiv 2) * 4 + s0), domain: d0 in [0, 17], s0 in [0, 3], s1 in [0, 15], "
        "(d0 floordiv 2) mod 2 in [0, 0], s1 mod 5 in [0, 0]");
}

TEST_CASE("compose of undefined or empty maps", "[indexing][compose]") {
  IndexingMap m = parse_map("(d0) -> (d0), domain: d0 in [0, 9]");
  CHECK(compose(m, IndexingMap::undefined()).is_undefined());
  CHECK(compose(IndexingMap::known_empty(m), m).is_known_empty());
  CHECK_THROWS_AS(compose(m, parse_map("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9]")), std::invalid_argument);
}

TEST_CASE("compose keeps runtime sources lined up with runtime variables", "[indexing][compose]") {
  IndexingMap outer = parse_map(
      "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 40]\n"
      "runtime variables:\n  rt0: parameter(2); (d0) -> (), domain: d0 in [0, 9]");
  IndexingMap inner = parse_map(
      "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 49], rt0 in [0, 50]\n"
      "runtime variables:\n  rt0: parameter(1); (d0) -> (), domain: d0 in [0, 49]");
  IndexingMap c = compose(outer, inner);
  simplify(c);
  REQUIRE(c.runtime_sources().size() == 2);
  // rt0 is the inner (producer) offset, rt1 the outer one.
  CHECK(c.runtime_sources()[0].source == "parameter(1)");
  CHECK(c.runtime_sources()[1].source == "parameter(2)");
  CHECK(print_map(c).rfind("(d0){rt0, rt1} -> (d0 + rt0 + rt1), domain: d0 in [0, 9], rt0 in [0, 50], rt1 in [0, 40]",
                           0) == 0);
}

TEST_CASE("the chained reshape 10x10x10 -> 50x20 -> 10x10x10 composes to the identity", "[indexing][simplify]") {
  IndexingMap second_reshape = parse_map(
      "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, (d0 * 100 + d1 * 10 + d2) mod 20), "
      "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]");
  IndexingMap first_reshape = parse_map(
      "(d0, d1) -> ((d0 * 20 + d1) floordiv 100, ((d0 * 20 + d1) mod 100) floordiv 10, (d0 * 20 + d1) mod 10), "
      "domain: d0 in [0, 49], d1 in [0, 19]");
  IndexingMap c = compose(second_reshape, first_reshape);
  MapSimplifyOptions verify;
  verify.verify = true;
  simplify(c, verify);
  CHECK(print_map(c) == "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]");
}

TEST_CASE("simplify handles constraints exactly", "[indexing][simplify]") {
  CHECK(simplified("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3], d0 + s0 in [0, 20]") ==
        "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 5], s0 in [1, 3]");
  CHECK(simplified("(d0) -> (d0), domain: d0 in [0, 99], d0 * 8 in [14, 33]") == "(d0) -> (d0), domain: d0 in [2, 4]");
  CHECK(simplified("(d0) -> (d0), domain: d0 in [0, 999], d0 floordiv 8 in [5, 11]") ==
        "(d0) -> (d0), domain: d0 in [40, 95]");
  CHECK(simplified("(d0) -> (d0), domain: d0 in [0, 99], d0 mod 8 + 5 in [50, 54]") == "KNOWN EMPTY");
  CHECK(simplified("(d0) -> (d0), domain: d0 in [0, 99], 0 in [10, 15]") == "KNOWN EMPTY");
  CHECK(simplified("(d0) -> (d0), domain: d0 in [10, 0]") == "KNOWN EMPTY");
  // Only isl sees this one: each constraint alone is satisfiable.
  CHECK(simplified("(d0, d1) -> (d0), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [15, 18], d0 - d1 in [8, 9]") ==
        "KNOWN EMPTY");
  // Exact bounds from isl: d0 + d1 >= 15 forces d0 >= 6.
  CHECK(simplified("(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [15, 18]") ==
        "(d0, d1) -> (d0, d1), domain: d0 in [6, 9], d1 in [6, 9], d0 + d1 in [15, 18]");
  // A point-range dimension becomes its value (XLA's kReplace).
  CHECK(simplified("(d0, d1) -> (d0 + d1), domain: d0 in [5, 5], d1 in [0, 3]") ==
        "(d0, d1) -> (d1 + 5), domain: d0 in [5, 5], d1 in [0, 3]");
}

TEST_CASE("simplify keeps point dimensions when asked (XLA's kPreserve)", "[indexing][simplify]") {
  IndexingMap m = parse_map("(d0, d1) -> (d0 + d1), domain: d0 in [5, 5], d1 in [0, 3]");
  MapSimplifyOptions preserve;
  preserve.replace_points = false;
  simplify(m, preserve);
  CHECK(print_map(m) == "(d0, d1) -> (d0 + d1), domain: d0 in [5, 5], d1 in [0, 3]");
}

TEST_CASE("remove_unused_symbols", "[indexing]") {
  IndexingMap m = parse_map(
      "(d0)[s0, s1, s2, s3, s4] -> (d0 * 4 + s1 + s3 - 42), domain: d0 in [0, 31], s0 in [0, 0], s1 in [0, 1], "
      "s2 in [0, 0], s3 in [0, 3], s4 in [0, 5], d0 * 4 + s1 + s3 in [24, 459], s0 + s2 in [0, 1]");
  CHECK(remove_unused_symbols(m));
  CHECK(print_map(m) ==
        "(d0)[s0, s1] -> (d0 * 4 + s0 + s1 - 42), domain: d0 in [0, 31], s0 in [0, 1], s1 in [0, 3], "
        "d0 * 4 + s0 + s1 in [24, 459]");
  // Nothing unused: nothing happens.
  CHECK_FALSE(remove_unused_symbols(m));
  // A constraint on unused symbols that cannot hold empties the map.
  IndexingMap e = parse_map(
      "(d0)[s0, s1] -> (d0), domain: d0 in [0, 3], s0 in [0, 3], s1 in [0, 3], s0 + s1 in [7, 7], s0 - s1 in [1, 1]");
  CHECK(remove_unused_symbols(e));
  CHECK(e.is_known_empty());
}

TEST_CASE("eliminate_determined_symbols", "[indexing]") {
  IndexingMap m =
      parse_map("(d0)[s0, s1] -> (s0, s1), domain: d0 in [0, 6], s0 in [0, 9], s1 in [0, 2], s0 - d0 in [0, 0]");
  CHECK(eliminate_determined_symbols(m));
  CHECK(print_map(m) == "(d0)[s0] -> (d0, s0), domain: d0 in [0, 6], s0 in [0, 2]");
  IndexingMap n = parse_map("(d0)[s0] -> (s0), domain: d0 in [0, 6], s0 in [0, 9], s0 * 2 - d0 in [0, 0]");
  CHECK_FALSE(eliminate_determined_symbols(n));
}

TEST_CASE("are_equal compares relations, not text", "[indexing][equal]") {
  IndexingMap a = parse_map("(d0)[s0] -> (s0), domain: d0 in [0, 9], s0 in [0, 9]");
  IndexingMap b = parse_map("(d0)[s0] -> (-s0 + 9), domain: d0 in [0, 9], s0 in [0, 9]");
  IndexingMap c = parse_map("(d0)[s0] -> (s0), domain: d0 in [0, 9], s0 in [0, 8]");
  CHECK(are_equal(a, b) == std::optional<bool>(true));
  CHECK(are_equal(a, c) == std::optional<bool>(false));
  CHECK(are_equal(IndexingMap::undefined(), IndexingMap::undefined()) == std::optional<bool>(true));
  CHECK(are_equal(a, IndexingMap::undefined()) == std::optional<bool>(false));
  IndexingMap empty1 = parse_map("(d0) -> (d0), domain: d0 in [0, 9], d0 mod 2 in [0, 0], d0 mod 4 in [1, 1]");
  CHECK(are_equal(empty1, IndexingMap::known_empty(empty1)) == std::optional<bool>(true));
}

TEST_CASE("are_equal compares replica ids as part of the relation", "[indexing][equal]") {
  const std::string map = "(d0) -> (d0 mod 4), domain: d0 in [0, 7]";
  IndexingMap halves = parse_map(map + "\nreplica id:\n  (d0) -> (d0 floordiv 4), domain: d0 in [0, 7]");
  IndexingMap same = parse_map(map + "\nreplica id:\n  (d0) -> ((d0 floordiv 2) floordiv 2), domain: d0 in [0, 7]");
  IndexingMap pairs = parse_map(map + "\nreplica id:\n  (d0) -> (d0 floordiv 2), domain: d0 in [0, 7]");
  CHECK(are_equal(halves, same) == std::optional<bool>(true));
  CHECK(are_equal(halves, pairs) == std::optional<bool>(false));
  CHECK(are_equal(halves, parse_map(map)) == std::optional<bool>(false));
}

TEST_CASE("inverse of a bijection, a projection and a strided map", "[indexing][inverse]") {
  auto inverse_text = [](const std::string& text) {
    std::string out;
    for (const IndexingMap& m : inverse(parse_map(text))) out += (out.empty() ? "" : " | ") + print_map(m);
    return out;
  };
  CHECK(inverse_text("(d0) -> (d0 floordiv 8, d0 mod 8), domain: d0 in [0, 31]") ==
        "(d0, d1) -> (d0 * 8 + d1), domain: d0 in [0, 3], d1 in [0, 7]");
  CHECK(inverse_text("(d0, d1) -> (d0), domain: d0 in [0, 6], d1 in [0, 2]") ==
        "(d0)[s0] -> (d0, s0), domain: d0 in [0, 6], s0 in [0, 2]");
  CHECK(inverse_text("(d0) -> (d0 * 2 + 1), domain: d0 in [0, 9]") ==
        "(d0) -> ((d0 + 1) floordiv 2 - 1), domain: d0 in [1, 19], d0 mod 2 in [1, 1]");
  CHECK(
      inverse_text("(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, (d0 * 100 + d1 * 10 + d2) mod 20), "
                   "domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]") ==
      "(d0, d1) -> (d0 floordiv 5, (d0 mod 5) * 2 + d1 floordiv 10, d1 mod 10), domain: d0 in [0, 49], d1 in [0, 19]");
  CHECK(inverse(IndexingMap::undefined()).front().is_undefined());
}

TEST_CASE("the isl budget gives sound, marked over-approximations", "[indexing][budget]") {
  IndexingMap m = parse_map("(d0, d1) -> (d0 * 3 + d1 floordiv 2, d1 mod 2), domain: d0 in [0, 99], d1 in [0, 5]");
  ScopedIslLimit tiny(1);
  std::vector<IndexingMap> inv = inverse(m);
  REQUIRE(inv.size() == 1);
  CHECK(inv[0].approximate());
  CHECK(print_map(inv[0]) ==
        "(d0, d1)[s0, s1] -> (s0, s1), domain: d0 in [0, 299], d1 in [0, 1], s0 in [0, 99], s1 in [0, 5] (approximate: "
        "the exact inverse is past the isl operation budget)");
  // Equality cannot be decided: no answer rather than a wrong one.
  // (The two maps agree at the corners of their boxes, so only isl could tell them apart.)
  IndexingMap n = parse_map(
      "(d0, d1) -> (d0 * 3 + d1 floordiv 2, d1 mod 2), domain: d0 in [0, 99], d1 in [0, 5], "
      "d0 - d1 in [-5, 98]");
  CHECK_FALSE(are_equal(m, n).has_value());
  // A difference at a corner is found without isl.
  IndexingMap o = parse_map("(d0, d1) -> (d0 * 3 + d1 floordiv 2, d1 mod 2), domain: d0 in [0, 99], d1 in [0, 4]");
  CHECK(are_equal(m, o) == std::optional<bool>(false));
  // Simplification stays exact: the isl steps are skipped, the rules still run.
  IndexingMap s = parse_map("(d0) -> (d0 mod 16), domain: d0 in [0, 14], d0 + 1 in [0, 100]");
  simplify(s);
  CHECK(print_map(s) == "(d0) -> (d0), domain: d0 in [0, 14]");
}

}  // namespace test_indexing_maps_cases

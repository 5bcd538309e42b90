// Exact counting: closed forms, decomposition into independent groups, the
// residue-class method for one constrained variable, isl for the rest.
#include <catch2/catch.hpp>

#include "indexing/maps/count.hpp"
#include "indexing/maps/map_parser.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_count_cases {

using namespace hlo_index::indexing;

namespace {
struct Counts {
  std::int64_t domain, image, relation;
  bool operator==(const Counts&) const = default;
};
Counts counts(const std::string& text) {
  IndexingMap m = parse_map(text);
  Count d = count_domain(m), i = count_image(m), r = count_relation(m);
  CHECK(d.exact);
  CHECK(i.exact);
  CHECK(r.exact);
  return {d.value, i.value, r.value};
}
}  // namespace

TEST_CASE("boxes and strided boxes count in closed form", "[indexing][count]") {
  CHECK(counts("(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]") == Counts{1000000, 1000000, 1000000});
  // A reduce: every output element reads 8 x 6 input elements.
  CHECK(counts("(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 4], s0 in [0, 7], s1 in [0, 5]") ==
        Counts{240, 240, 240});
  // A broadcast read: 21 outputs read 7 elements.
  CHECK(counts("(d0, d1) -> (d0), domain: d0 in [0, 6], d1 in [0, 2]") == Counts{21, 7, 21});
  // A window: 10 outputs, 3 reads each, 12 distinct elements, 30 pairs.
  CHECK(counts("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 9], s0 in [0, 2]") == Counts{30, 12, 30});
  // A strided slice reads every other element.
  CHECK(counts("(d0) -> (d0 * 2 + 1), domain: d0 in [0, 9]") == Counts{10, 10, 10});
  CHECK(counts("KNOWN EMPTY") == Counts{0, 0, 0});
}

TEST_CASE("a 1024^3 box with a mod constraint counts without enumeration", "[indexing][count]") {
  CHECK(counts("(d0, d1, d2) -> (d0, d2), domain: d0 in [0, 1023], d1 in [0, 1023], d2 in [0, 1023], "
               "d0 mod 3 in [0, 0]") == Counts{358612992, 350208, 358612992});
  // One variable over a huge interval: the residue-class closed form.
  CHECK(
      counts(
          "(d0) -> (d0 floordiv 7), domain: d0 in [0, 999999999], d0 mod 3 in [1, 1], (d0 floordiv 5) mod 2 in [0, 0]")
          .domain == 166666667);
}

TEST_CASE("constraints linking variables", "[indexing][count]") {
  // Triangle: d0 + d1 <= 9 over [0, 9]^2.
  CHECK(counts("(d0, d1) -> (d0 + d1), domain: d0 in [0, 9], d1 in [0, 9], d0 + d1 in [0, 9]") == Counts{55, 10, 55});
  // Padding-like: only odd positions are read.
  CHECK(counts("(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 19], (d0 - 1) mod 2 in [0, 0]") == Counts{10, 10, 10});
  // An image isl has to project: (d0 + 2 * d1) over a box.
  CHECK(counts("(d0, d1) -> (d0 + d1 * 2), domain: d0 in [0, 1], d1 in [0, 4]").image == 10);
  CHECK(counts("(d0, d1) -> (d0 + d1 * 3), domain: d0 in [0, 4], d1 in [0, 4]").image == 17);
}

TEST_CASE("undefined maps have no exact count", "[indexing][count]") {
  CHECK_FALSE(count_domain(IndexingMap::undefined()).exact);
  CHECK_FALSE(count_image(IndexingMap::undefined()).exact);
}

TEST_CASE("count_points: a recalled count is the count, under each enumeration budget", "[indexing][count]") {
  // Pieces a dynamic-update-slice leaves: the box minus a 4 x 5 block, minus another.
  const IndexingMap m = parse_map(
      "(d0, d1) -> (d0, d1), domain: d0 in [0, 15], d1 in [0, 31], d0 * 32 + d1 in [0, 300], d0 + d1 in [3, 40]");
  std::int64_t brute = 0;
  for (std::int64_t d0 = 0; d0 <= 15; ++d0)
    for (std::int64_t d1 = 0; d1 <= 31; ++d1) brute += (d0 * 32 + d1 <= 300 && d0 + d1 >= 3 && d0 + d1 <= 40) ? 1 : 0;
  for (int round = 0; round < 2; ++round) {  // counted, then recalled
    const Count enumerated = count_points(m.domain());
    CHECK(enumerated.exact);
    CHECK(enumerated.value == brute);
    // A budget of one evaluation hands the count to isl: a key of its own, the same number.
    const ScopedCountEvaluations isl_only(1);
    const Count by_isl = count_points(m.domain());
    CHECK(by_isl.exact);
    CHECK(by_isl.value == brute);
  }
}

}  // namespace test_indexing_count_cases

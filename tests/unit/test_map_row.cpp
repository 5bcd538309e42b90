// MapRow (indexing/compose/map_row.hpp): the sparse row of an instruction's maps
// reads like the dense row it replaced, and stores only the sets put in.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "indexing/compose/map_row.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_map_row_cases {

using namespace hlo_index;
using indexing::MapRow;
using indexing::MapSet;

namespace {

MapSet one_map(const char* text) { return {indexing::parse_map(text)}; }

}  // namespace

TEST_CASE("map row: a dense row keeps its width and its non-empty sets only") {
  std::vector<MapSet> dense(5);
  dense[1] = one_map("(d0) -> (d0), domain: d0 in [0, 3]");
  dense[3] = one_map("(d0) -> (d0 + 1), domain: d0 in [0, 3]");
  const MapRow row(std::move(dense));
  CHECK(row.size() == 5);
  CHECK(row.stored().size() == 2);
  CHECK(row[0].empty());
  CHECK(indexing::print_map(row[1][0]) == "(d0) -> (d0), domain: d0 in [0, 3]");
  CHECK(row[2].empty());
  CHECK(indexing::print_map(row[3][0]) == "(d0) -> (d0 + 1), domain: d0 in [0, 3]");
  CHECK(row[4].empty());
  CHECK(row[7].empty());  // past the width: nothing read, as operator[] of a sparse row
  CHECK_THROWS_AS(row.at(5), std::out_of_range);
  std::size_t visited = 0, non_empty = 0;
  for (const MapSet& set : row) {
    ++visited;
    non_empty += set.empty() ? 0 : 1;
  }
  CHECK(visited == 5);
  CHECK(non_empty == 2);
}

TEST_CASE("map row: set, take and resize keep the sets in operand order") {
  MapRow row(4);
  CHECK(row.stored().empty());
  row.set(2, one_map("(d0) -> (2), domain: d0 in [0, 0]"));
  row.set(0, one_map("(d0) -> (0), domain: d0 in [0, 0]"));
  REQUIRE(row.stored().size() == 2);
  CHECK(row.stored()[0].first == 0);
  CHECK(row.stored()[1].first == 2);
  CHECK(row[2].size() == 1);
  // An empty set removes the operand's entry.
  row.set(2, {});
  CHECK(row.stored().size() == 1);
  CHECK(row[2].empty());
  const MapSet taken = row.take(0);
  CHECK(taken.size() == 1);
  CHECK(row[0].empty());
  CHECK(row.take(0).empty());
  row.set(3, one_map("(d0) -> (3), domain: d0 in [0, 0]"));
  row.resize(3);
  CHECK(row.size() == 3);
  CHECK(row.stored().empty());
  CHECK(row[3].empty());
}

TEST_CASE("map row: rows compare by width and sets") {
  std::vector<MapSet> dense(3);
  dense[1] = one_map("(d0) -> (d0), domain: d0 in [0, 3]");
  const MapRow a(dense), b(dense);
  CHECK(a == b);
  MapRow wider(dense);
  wider.resize(4);
  CHECK_FALSE(a == wider);
  MapRow other(dense);
  other.set(1, one_map("(d0) -> (d0 + 1), domain: d0 in [0, 3]"));
  CHECK_FALSE(a == other);
}

}  // namespace test_map_row_cases

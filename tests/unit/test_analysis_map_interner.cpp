// MapInterner: one id per map, equal for equal maps in every field.
#include <catch2/catch.hpp>

#include "indexing/analysis/map_interner.hpp"
#include "indexing/maps/map_parser.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_map_interner_cases {

using namespace hlo_index;
using analysis::MapInterner;
using indexing::IndexingMap;
using indexing::parse_map;

TEST_CASE("MapInterner gives equal maps one id and different maps different ids", "[analysis][interner]") {
  MapInterner interner;
  const IndexingMap a = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]");
  const IndexingMap a_again = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7]");
  const IndexingMap other_bounds = parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 8]");
  const IndexingMap other_results = parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 7]");
  const IndexingMap constrained =
      parse_map("(d0, d1) -> (d1, d0), domain: d0 in [0, 3], d1 in [0, 7], d0 + d1 in [0, 5]");
  const MapInterner::Id id = interner.intern(a);
  CHECK(interner.intern(a_again) == id);
  CHECK(interner.intern(other_bounds) != id);
  CHECK(interner.intern(other_results) != id);
  CHECK(interner.intern(constrained) != id);
  CHECK(interner.intern(other_bounds) == interner.intern(other_bounds));
  CHECK(interner.size() == 4);
  CHECK(interner.map(id) == a);
  // Ids are dense, in order of first appearance.
  CHECK(id == 0);
  CHECK(interner.intern(other_results) == 2);
}

TEST_CASE("MapInterner tells apart what printing may hide", "[analysis][interner]") {
  MapInterner interner;
  IndexingMap exact = parse_map("(d0) -> (d0), domain: d0 in [0, 9]");
  IndexingMap approximate = exact;
  approximate.mark_approximate();
  CHECK(interner.intern(exact) != interner.intern(approximate));
  // Two reasons print differently, so they are two maps.
  IndexingMap because_a = exact, because_b = exact;
  because_a.mark_approximate("a");
  because_b.mark_approximate("b");
  CHECK(interner.intern(because_a) != interner.intern(because_b));
  CHECK(interner.intern(because_a) != interner.intern(approximate));
  CHECK(interner.intern(IndexingMap::undefined("a")) != interner.intern(IndexingMap::undefined("b")));
  CHECK(interner.intern(IndexingMap::undefined("a")) == interner.intern(IndexingMap::undefined("a")));
  IndexingMap with_runtime = parse_map("(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 9], rt0 in [0, 5]");
  with_runtime.runtime_sources().push_back({"parameter(1)", nullptr, 1, -1, {0, 5}});
  IndexingMap other_source = with_runtime;
  other_source.runtime_sources()[0].source = "parameter(2)";
  IndexingMap other_feasible = with_runtime;
  other_feasible.runtime_sources()[0].feasible = {0, 7};
  const MapInterner::Id id = interner.intern(with_runtime);
  CHECK(interner.intern(other_source) != id);
  CHECK(interner.intern(other_feasible) != id);
  CHECK(interner.intern(IndexingMap(with_runtime)) == id);
}

}  // namespace test_analysis_map_interner_cases

// The split and merge matching of `hlo-index diff` (verdicts/fusion_matching.hpp):
// a fusion's computing ops spread over several new fusions, or the reverse.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "indexing/verdicts/fusion_matching.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_verdicts_fusion_matching_cases {

using hlo_index::analysis::match_regroupings;
using Ops = std::vector<std::vector<std::string>>;

TEST_CASE("fusion matching: a fusion split in two, and two merged into one") {
  const Ops old_ops = {{"add", "exponential", "multiply"}, {"reduce"}, {"divide", "subtract"}};
  const Ops new_ops = {{"exponential"}, {"reduce"}, {"add", "multiply"}, {"divide", "subtract"}};
  // Old 0 against new 0 and 2; old 1 and 2, new 1 and 3 left free as if matched one to one.
  auto groups = match_regroupings(old_ops, new_ops, {0}, {0, 2});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].split());
  CHECK(groups[0].old_entries == std::vector<std::size_t>{0});
  CHECK(groups[0].new_entries == std::vector<std::size_t>{0, 2});
  // The reverse direction is a merge.
  groups = match_regroupings(new_ops, old_ops, {0, 2}, {0});
  REQUIRE(groups.size() == 1);
  CHECK_FALSE(groups[0].split());
  CHECK(groups[0].old_entries == std::vector<std::size_t>{0, 2});
  CHECK(groups[0].new_entries == std::vector<std::size_t>{0});
}

TEST_CASE("fusion matching: parts must add up exactly, each entry used once") {
  const Ops old_ops = {{"add", "exponential"}, {"add", "exponential"}};
  const Ops parts = {{"add"}, {"exponential"}, {"add"}};
  // Only one whole can be made of these parts (one exponential).
  auto groups = match_regroupings(old_ops, parts, {0, 1}, {0, 1, 2});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].old_entries == std::vector<std::size_t>{0});
  CHECK(groups[0].new_entries == std::vector<std::size_t>{0, 1});
  // Parts that do not add up: nothing.
  CHECK(match_regroupings({{"add", "exponential"}}, {{"add"}, {"tanh"}}, {0}, {0, 1}).empty());
  // More than the whole: nothing.
  CHECK(match_regroupings({{"add", "exponential"}}, {{"add"}, {"exponential", "tanh"}}, {0}, {0, 1}).empty());
  // One op is never split; an empty multiset never matches.
  CHECK(match_regroupings({{"add"}}, {{"add"}, {}}, {0}, {0, 1}).empty());
}

TEST_CASE("fusion matching: the fewest parts win, op_names keep look-alikes apart") {
  const Ops old_ops = {{"add@a", "add@b", "exponential@c"}};
  const Ops new_ops = {{"add@a"}, {"add@b"}, {"add@b", "exponential@c"}, {"exponential@c"}, {"add@x"}};
  auto groups = match_regroupings(old_ops, new_ops, {0}, {0, 1, 2, 3, 4});
  REQUIRE(groups.size() == 1);
  CHECK(groups[0].new_entries == std::vector<std::size_t>{0, 2});
}

}  // namespace test_verdicts_fusion_matching_cases

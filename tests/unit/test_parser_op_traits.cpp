// The op table (parser/op_traits.hpp): the facts other files rely on hold
// for every op.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "parser/op_traits.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_op_traits_cases {

using namespace hlo_index;
using hlo::MapFamily;
using hlo::Opcode;
using hlo::ShapeRule;

namespace {

template <typename Body>
void for_each_opcode(const Body& body) {
  for (int k = 0; k <= static_cast<int>(Opcode::kUnknown); ++k) body(static_cast<Opcode>(k));
}

bool keys_memo_on(Opcode op, std::string_view attribute) {
  const auto names = hlo::op_traits(op).memo_attributes;
  return std::find(names.begin(), names.end(), attribute) != names.end();
}

}  // namespace

TEST_CASE("one elementwise list: an elementwise result-shape rule means identity maps", "[op-traits]") {
  for_each_opcode([](Opcode op) {
    INFO(std::string(hlo::opcode_name(op)));
    if (hlo::op_traits(op).result == ShapeRule::kElementwise) CHECK(hlo::is_elementwise(op));
  });
  CHECK(hlo::is_elementwise(Opcode::kAcos));
  CHECK(hlo::op_traits(Opcode::kAcos).result == ShapeRule::kElementwise);
  // Identity maps, but no shape rule: map's type comes from to_apply, all-reduce is variadic.
  CHECK(hlo::is_elementwise(Opcode::kMap));
  CHECK(hlo::op_traits(Opcode::kMap).result == ShapeRule::kNone);
}

TEST_CASE("every op with maps of its own has a result-shape rule", "[op-traits]") {
  for_each_opcode([](Opcode op) {
    INFO(std::string(hlo::opcode_name(op)));
    // Families whose result shapes are given, not inferred: variadic, tuple-shaped with contexts and
    // tokens, or set by a called computation or a custom-call target.
    static constexpr MapFamily k_given[] = {
        MapFamily::kNone,          MapFamily::kNoOperands, MapFamily::kElementwise,   MapFamily::kCall,
        MapFamily::kTupleElements, MapFamily::kCollective, MapFamily::kNothingRead,   MapFamily::kWholeOperands,
        MapFamily::kSort,          MapFamily::kBatchNorm,  MapFamily::kCustomCall,    MapFamily::kScatter,
        MapFamily::kConditional,   MapFamily::kAllToAll,   MapFamily::kReduceScatter, MapFamily::kAllGather,
        MapFamily::kWhile,         MapFamily::kScan,       MapFamily::kAsyncStart};
    const MapFamily maps = hlo::op_traits(op).maps;
    if (std::find(std::begin(k_given), std::end(k_given), maps) == std::end(k_given))
      CHECK(hlo::op_traits(op).result != ShapeRule::kNone);
  });
}

TEST_CASE("the memo keys on the attributes the maps read, runtime offsets are not memoised", "[op-traits]") {
  CHECK(keys_memo_on(Opcode::kBroadcast, "dimensions"));
  CHECK(keys_memo_on(Opcode::kConvolution, "dim_labels"));
  CHECK(keys_memo_on(Opcode::kConvolution, "feature_group_count"));
  CHECK_FALSE(keys_memo_on(Opcode::kAdd, "metadata"));
  // The ops whose reads depend on values: offsets, indices, a branch index, group sizes.
  std::vector<std::string> runtime_offset_ops;
  for_each_opcode([&](Opcode op) {
    if (hlo::op_traits(op).runtime_offsets) runtime_offset_ops.emplace_back(hlo::opcode_name(op));
  });
  std::sort(runtime_offset_ops.begin(), runtime_offset_ops.end());
  CHECK(runtime_offset_ops == std::vector<std::string>{"conditional", "dynamic-slice", "dynamic-update-slice", "gather",
                                                       "ragged-dot", "scatter"});
}

TEST_CASE("an opcode hlo-index does not know has no maps, checks or result-shape rule", "[op-traits]") {
  CHECK(hlo::op_traits(Opcode::kUnknown).maps == MapFamily::kNone);
  CHECK(hlo::op_traits(Opcode::kUnknown).result == ShapeRule::kNone);
  CHECK(hlo::op_traits(Opcode::kUnknown).check == hlo::CheckRule::kNone);
}

TEST_CASE("every opcode hlo-index knows has a map family (issue #15: every HLO op gets a map)", "[op-traits]") {
  for_each_opcode([](Opcode op) {
    INFO(std::string(hlo::opcode_name(op)));
    if (op != Opcode::kUnknown) CHECK(hlo::op_traits(op).maps != MapFamily::kNone);
  });
}

TEST_CASE("opcode_from_string finds every opcode by its spelling, and nothing else", "[op-traits]") {
  for (int k = 0; k < static_cast<int>(Opcode::kUnknown); ++k) {
    const auto op = static_cast<Opcode>(k);
    const std::string name(hlo::opcode_name(op));
    INFO(name);
    CHECK(hlo::opcode_from_string(name) == op);
    // Near misses: a letter more, a letter less, another last letter, upper case.
    CHECK(hlo::opcode_from_string(name + "s") == Opcode::kUnknown);
    CHECK(hlo::opcode_from_string(name.substr(0, name.size() - 1)) != op);
    CHECK(hlo::opcode_from_string(name.substr(0, name.size() - 1) + "#") == Opcode::kUnknown);
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); });
    CHECK(hlo::opcode_from_string(upper) == Opcode::kUnknown);
  }
  CHECK(hlo::opcode_from_string("") == Opcode::kUnknown);
  CHECK(hlo::opcode_from_string("unknown") == Opcode::kUnknown);
}

}  // namespace test_parser_op_traits_cases

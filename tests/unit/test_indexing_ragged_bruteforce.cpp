// Brute-force checks of ragged-dot (fixed seeds): random shapes and group
// sizes in its three modes (the ragged dimension a non-contracting row of
// lhs with a group dimension in rhs, a contracting dimension with a group
// dimension in front of the output, a batch dimension).
//
// The reference follows JAX's ragged_dot_general directly: the group of a
// ragged index is the first g whose running sum of sizes passes it; an
// output element reads its lhs row and rhs column as a dot does, rhs at its
// group (mode 1) or the contracting indices of its group only (mode 2), and
// the sizes of its group and those before it; an index past every group
// reads nothing. With constant sizes the maps must be exactly that relation,
// both directions, and not approximate; with sizes a parameter, a superset
// of the relation for every size vector drawn.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_ragged_bruteforce_cases {

using namespace hlo_index;
using indexing::MapSet;

namespace {

using test::all_points;
using test::Point;
using test::Relation;
using test::relation_of;

enum class Mode { kRow, kContracting, kBatch };

struct Case {
  Mode mode = Mode::kRow;
  std::int64_t m = 1, k = 1, n = 1, b = 1;
  std::vector<std::int64_t> sizes;  // one per group
};

// The group of ragged index `x`, or none past every group.
std::optional<std::int64_t> group_of(const std::vector<std::int64_t>& sizes, std::int64_t x) {
  std::int64_t end = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    end += sizes[g];
    if (x < end) return static_cast<std::int64_t>(g);
  }
  return std::nullopt;
}

std::int64_t group_start(const std::vector<std::int64_t>& sizes, std::int64_t g) {
  std::int64_t start = 0;
  for (std::int64_t h = 0; h < g; ++h) start += sizes[static_cast<std::size_t>(h)];
  return start;
}

std::vector<std::int64_t> out_dims(const Case& c) {
  switch (c.mode) {
    case Mode::kRow: return {c.m, c.n};
    case Mode::kContracting: return {static_cast<std::int64_t>(c.sizes.size()), c.m, c.n};
    case Mode::kBatch: return {c.b, c.m, c.n};
  }
  return {};
}

std::string module_text(const Case& c, bool constant_sizes) {
  const auto groups = static_cast<std::int64_t>(c.sizes.size());
  std::string lhs, rhs, dims;
  switch (c.mode) {
    case Mode::kRow:
      lhs = fmt::format("f32[{},{}]", c.m, c.k);
      rhs = fmt::format("f32[{},{},{}]", groups, c.k, c.n);
      dims = "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}";
      break;
    case Mode::kContracting:
      lhs = fmt::format("f32[{},{}]", c.m, c.k);
      rhs = fmt::format("f32[{},{}]", c.k, c.n);
      dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}";
      break;
    case Mode::kBatch:
      lhs = fmt::format("f32[{},{},{}]", c.b, c.m, c.k);
      rhs = fmt::format("f32[{},{},{}]", c.b, c.k, c.n);
      dims =
          "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}, "
          "lhs_ragged_dims={0}";
      break;
  }
  const std::string sizes = constant_sizes ? fmt::format("s32[{}] constant({{{}}})", groups, fmt::join(c.sizes, ", "))
                                           : fmt::format("s32[{}] parameter(2)", groups);
  return fmt::format(
      "HloModule ragged\n\nENTRY main {{\n  lhs = {0} parameter(0)\n  rhs = {1} parameter(1)\n  gs = {2}\n"
      "  ROOT r = f32[{3}] ragged-dot(lhs, rhs, gs), {4}\n}}\n",
      lhs, rhs, sizes, fmt::join(out_dims(c), ","), dims);
}

// Per operand, the relation output element -> operand element.
std::vector<Relation> reference(const Case& c) {
  std::vector<Relation> r(3);
  for (const Point& o : all_points(out_dims(c))) {
    auto read_sizes = [&](std::int64_t g) {
      for (std::int64_t h = 0; h <= g; ++h) r[2].insert({o, {h}});
    };
    switch (c.mode) {
      case Mode::kRow: {
        const auto g = group_of(c.sizes, o[0]);
        if (!g) break;
        for (std::int64_t kk = 0; kk < c.k; ++kk) {
          r[0].insert({o, {o[0], kk}});
          r[1].insert({o, {*g, kk, o[1]}});
        }
        read_sizes(*g);
        break;
      }
      case Mode::kContracting: {
        const std::int64_t g = o[0];
        const std::int64_t start = group_start(c.sizes, g);
        for (std::int64_t kk = start; kk < start + c.sizes[static_cast<std::size_t>(g)] && kk < c.k; ++kk) {
          r[0].insert({o, {o[1], kk}});
          r[1].insert({o, {kk, o[2]}});
        }
        if (start < c.k && c.sizes[static_cast<std::size_t>(g)] > 0) read_sizes(g);
        break;
      }
      case Mode::kBatch: {
        const auto g = group_of(c.sizes, o[0]);
        if (!g) break;
        for (std::int64_t kk = 0; kk < c.k; ++kk) {
          r[0].insert({o, {o[0], o[1], kk}});
          r[1].insert({o, {o[0], kk, o[2]}});
        }
        read_sizes(*g);
        break;
      }
    }
  }
  return r;
}

Case random_case(test::Rng& rng) {
  Case c;
  c.mode = static_cast<Mode>(rng.uniform(0, 2));
  c.m = rng.uniform(1, 4);
  c.k = rng.uniform(1, 5);
  c.n = rng.uniform(1, 3);
  c.b = rng.uniform(1, 4);
  const std::int64_t ragged = c.mode == Mode::kRow ? c.m : (c.mode == Mode::kContracting ? c.k : c.b);
  const std::int64_t groups = rng.uniform(1, 4);
  for (std::int64_t g = 0; g < groups; ++g) c.sizes.push_back(rng.uniform(0, ragged));
  return c;
}

indexing::InstructionIndexing analyse(const std::string& text, std::vector<hlo::Module>& keep) {
  keep = test::parse_ok(text);
  const hlo::Module& m = keep[0];
  indexing::IndexingAnalysis analysis(m, {});
  return analysis.analyze(m.entry, m.computations[m.entry].root, true, true);
}

}  // namespace

TEST_CASE("ragged-dot: constant group sizes give exactly its reads, both ways") {
  test::Rng rng(27112026);
  for (int trial = 0; trial < 120; ++trial) {
    const Case c = random_case(rng);
    const std::string text = module_text(c, true);
    INFO(text);
    std::vector<hlo::Module> modules;
    const auto maps = analyse(text, modules);
    const std::vector<Relation> expected = reference(c);
    for (std::size_t j = 0; j < 3; ++j) {
      INFO("operand " << j);
      const MapSet& o2i = maps.output_to_input.at(0).at(j);
      CHECK(relation_of(o2i, false) == expected[j]);
      CHECK(relation_of(o2i, true) == expected[j]);
      const auto& row = maps.input_to_output.at(0);  // empty when no operand feeds the output
      CHECK(relation_of(j < row.size() ? row[j] : MapSet{}, true) == test::inverse(expected[j]));
    }
  }
}

TEST_CASE("ragged-dot: group sizes known at run time give a superset of every size vector's reads") {
  test::Rng rng(2026112701);
  for (int trial = 0; trial < 40; ++trial) {
    Case c = random_case(rng);
    const std::string text = module_text(c, false);
    INFO(text);
    std::vector<hlo::Module> modules;
    const auto maps = analyse(text, modules);
    for (int draw = 0; draw < 5; ++draw) {
      const std::int64_t ragged = c.mode == Mode::kRow ? c.m : (c.mode == Mode::kContracting ? c.k : c.b);
      for (std::int64_t& s : c.sizes) s = rng.uniform(0, ragged);
      const std::vector<Relation> expected = reference(c);
      for (std::size_t j = 0; j < 3; ++j) {
        const MapSet& o2i = maps.output_to_input.at(0).at(j);
        const Relation all = relation_of(o2i, false);
        CHECK(std::includes(all.begin(), all.end(), expected[j].begin(), expected[j].end()));
        CHECK(relation_of(o2i, true).empty());  // nothing claimed exact
      }
    }
  }
}

}  // namespace test_indexing_ragged_bruteforce_cases

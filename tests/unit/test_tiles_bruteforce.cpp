// Brute force of tiles on small random kLoop fusions (op_reference.hpp):
// for every candidate tiling of the root (XLA's power-of-two sizes and the
// dimension itself, those XLA's constraints reject included) and every tile
// of it, the elements the printed tiles of each parameter cover (its box
// within bounds, tile by tile) must hold every element the reference
// evaluation of the ops says that root tile reads: never fewer; and exactly
// those where every tile of the parameter is declared exact. The counts
// (elements over all tiles, distinct) must be the reference's too.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cost_helpers.hpp"
#include "indexing/tiles/tiled_fusion.hpp"
#include "op_reference.hpp"

namespace hlo_index::tiles {
namespace {

using test::ops::Computation;
using test::ops::Env;
using test::ops::Tuple;
using test::ops::TupleSet;

struct Stats {
  int fusions = 0, tilings = 0, tiles = 0, exact_parameters = 0, xla_exact = 0, beyond_xla = 0, whole = 0;
};

// The elements of `box` within `dims`.
void box_elements(const TileBox& box, const std::vector<std::int64_t>& dims, std::set<Tuple>& out) {
  Tuple sizes(box.sizes.begin(), box.sizes.end());
  test::ops::for_each_index(sizes, [&](const Tuple& m) {
    Tuple e(m.size());
    for (std::size_t j = 0; j < m.size(); ++j) {
      e[j] = box.offsets[j] + m[j] * box.strides[j];
      if (e[j] < 0 || e[j] >= dims[j]) return;
    }
    out.insert(e);
  });
}

void check_fusion(std::uint64_t seed, Stats& stats) {
  std::string ops;
  const Computation c = test::ops::random_fusion(seed, false, ops);
  if (c.node(c.root).outputs.size() != 1) return;  // tiles of output 0 only; the reference composes all
  const std::string text = test::ops::module_text(c, true);
  INFO("seed " << seed << ", fusion of " << ops << ", HLO:\n" << text);
  auto m = test::cost_module(text, cost::default_device(analysis::Target::kGpu));
  const hlo::Module& module = m.module();
  const std::uint32_t entry = module.entry;
  const TiledFusion fusion = tile_instruction(*m.analysis, entry, module.computations[entry].root);
  if (!fusion.undefined_reason.empty()) return;
  ++stats.fusions;
  Env env;
  env.comp = &c;
  const auto relations = test::ops::FusionReference(c, env).relations();
  const std::size_t rank = fusion.root_dims.size();
  // Reference reads per root element: parameter -> root index -> its elements.
  std::map<std::int64_t, std::map<Tuple, std::vector<Tuple>>> reads;
  for (std::size_t p = 0; p < relations[0].size(); ++p) {
    for (const Tuple& t : relations[0][p])
      reads[static_cast<std::int64_t>(p)][Tuple(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(rank))].push_back(
          Tuple(t.begin() + static_cast<std::ptrdiff_t>(rank), t.end()));
  }
  std::vector<std::vector<std::int64_t>> tilings{{}};
  for (std::int64_t d : fusion.root_dims) {
    std::vector<std::vector<std::int64_t>> next;
    for (const auto& prefix : tilings)
      for (std::int64_t s : candidate_sizes(d)) {
        next.push_back(prefix);
        next.back().push_back(s);
      }
    tilings = std::move(next);
  }
  for (const std::vector<std::int64_t>& sizes : tilings) {
    INFO("tiling (" << test::ops::join(sizes) << ")");
    const ConcreteTiling t = concrete_tiling(fusion, sizes, true);
    ++stats.tilings;
    // Parameter -> its entries.
    std::map<std::int64_t, std::vector<std::size_t>> entries;
    for (std::size_t k = 0; k < fusion.entries.size(); ++k) {
      const TiledEntry& e = fusion.entries[k];
      if (!e.reads_memory) continue;
      entries[e.parameter].push_back(k);
      const ConcreteEntry& ce = t.entries[k];
      if (ce.exact && ce.symbolic) ++stats.xla_exact;
      if (ce.exact && !ce.symbolic) ++stats.beyond_xla;
      for (bool w : ce.whole) stats.whole += w ? 1 : 0;
    }
    test::ops::for_each_index(Tuple(t.tiles_per_dimension.begin(), t.tiles_per_dimension.end()), [&](const Tuple& k) {
      ++stats.tiles;
      for (const auto& by_parameter : entries) {
        const std::int64_t p = by_parameter.first;
        const std::vector<std::size_t>& list = by_parameter.second;
        const std::vector<std::int64_t>& dims = fusion.entries[list[0]].dims;
        std::set<Tuple> expected, covered;
        Tuple extent(rank);
        for (std::size_t i = 0; i < rank; ++i) extent[i] = std::min(sizes[i], fusion.root_dims[i] - k[i] * sizes[i]);
        test::ops::for_each_index(extent, [&](const Tuple& r) {
          Tuple root(rank);
          for (std::size_t i = 0; i < rank; ++i) root[i] = k[i] * sizes[i] + r[i];
          if (auto it = reads[p].find(root); it != reads[p].end())
            expected.insert(it->second.begin(), it->second.end());
        });
        bool exact = true;
        for (std::size_t e : list) {
          box_elements(tile_box(fusion, t, e, k), dims, covered);
          exact = exact && t.entries[e].exact && !fusion.entries[e].map.approximate();
        }
        INFO("parameter " << p << ", tile (" << test::ops::join(k) << ")");
        for (const Tuple& x : expected) {
          INFO("element (" << test::ops::join(x) << ")");
          CHECK(covered.count(x) == 1);
        }
        if (exact) {
          ++stats.exact_parameters;
          CHECK(covered.size() == expected.size());
        }
      }
    });
    // The counts: one entry of a parameter (one map) reads what the reference says, tile by tile.
    for (const auto& by_parameter : entries) {
      const std::int64_t p = by_parameter.first;
      const std::vector<std::size_t>& list = by_parameter.second;
      if (list.size() != 1 || !t.entries[list[0]].counts_exact || fusion.entries[list[0]].map.approximate()) continue;
      std::int64_t total = 0;
      std::set<Tuple> distinct;
      test::ops::for_each_index(Tuple(t.tiles_per_dimension.begin(), t.tiles_per_dimension.end()), [&](const Tuple& k) {
        std::set<Tuple> tile;
        Tuple extent(rank);
        for (std::size_t i = 0; i < rank; ++i) extent[i] = std::min(sizes[i], fusion.root_dims[i] - k[i] * sizes[i]);
        test::ops::for_each_index(extent, [&](const Tuple& r) {
          Tuple root(rank);
          for (std::size_t i = 0; i < rank; ++i) root[i] = k[i] * sizes[i] + r[i];
          if (auto it = reads[p].find(root); it != reads[p].end()) tile.insert(it->second.begin(), it->second.end());
        });
        total += static_cast<std::int64_t>(tile.size());
        distinct.insert(tile.begin(), tile.end());
      });
      INFO("parameter " << p << " counts");
      CHECK(t.entries[list[0]].reads == total);
      CHECK(t.entries[list[0]].distinct == static_cast<std::int64_t>(distinct.size()));
    }
  }
}

}  // namespace

TEST_CASE("tiles brute force: every tile of every tiling covers what the root tile reads, exactly where declared",
          "[tiles][bruteforce]") {
  Stats stats;
  for (std::uint64_t s = 0; s < 100; ++s) check_fusion(900000 + s, stats);
  WARN("tiles brute force: " << stats.fusions << " fusions, " << stats.tilings << " tilings, " << stats.tiles
                             << " tiles; exact: " << stats.exact_parameters << " parameter tiles, " << stats.xla_exact
                             << " entries by XLA's tile, " << stats.beyond_xla << " beyond XLA; " << stats.whole
                             << " dimensions whole");
  CHECK(stats.fusions > 50);
  CHECK(stats.xla_exact > 0);
  CHECK(stats.beyond_xla > 0);
  CHECK(stats.whole > 0);
}

}  // namespace hlo_index::tiles

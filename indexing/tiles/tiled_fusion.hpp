// A fusion's tiles: every fused instruction's maps from the root (every
// output with output 0's dimensions: one root tile tiles them all) with the
// symbolic tile each gives, and concrete tilings: for root tile
// sizes, each instruction's tile sizes, strides and offsets, whether the
// constraints hold, and, counted exactly from the maps (indexing/maps/count),
// the elements the tiles read, how many of them neighbouring tiles read
// again, and whether the printed tile covers the reads (never fewer) or is
// exactly them. Where XLA has no tile or its constraints fail, a dimension's
// tile is the whole dimension and the counts still say what is read.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "indexing/analysis/module_analysis.hpp"
#include "indexing/tiles/symbolic_tile.hpp"

namespace hlo_index::tiles {

/// One instruction of the fusion reached from the root through one map
/// (an instruction read in several ways has one entry per way).
struct TiledEntry {
  std::uint32_t instruction = 0;  // in the fused computation (or the instruction's own)
  std::string name, opcode;
  std::vector<std::int64_t> dims;  // of its result
  std::int64_t element_bits = 0;
  std::size_t minor = 0;          // its minor-most dimension in the layout (the last without one)
  std::int64_t memory_space = 0;  // S(n) of its layout: 0 is device memory, the only one priced as traffic
  bool reads_memory = false;      // a fusion parameter, or an operand of a plain instruction
  bool root = false;
  std::size_t output = 0;  // of a root entry: the fusion output it is (a tuple root: the element)
  /// False: an earlier entry is another element of the same instruction through the same map
  /// (a variadic reduce's outputs): computed there, so its work is priced once.
  bool computes = true;
  std::int64_t parameter = -1;  // fusion parameter number, or operand position of a plain instruction
  indexing::IndexingMap map;    // root index -> its index
  TileDerivation derivation;
  /// Elements of the map's contracted range variables together (a dot's K read by this entry); 1: none.
  std::int64_t contracted_elements = 1;
};

/// A fusion output the root tile tiles (written by every tile).
struct TiledOutput {
  std::size_t index = 0;  // among the fusion's outputs
  std::int64_t element_bits = 0;
  std::size_t minor = 0;          // its minor-most dimension in its layout
  std::int64_t memory_space = 0;  // S(n): 0 is device memory, the only one priced as traffic
};

struct TiledFusion {
  std::uint32_t computation = 0, instruction = 0;
  std::uint32_t body = 0;  // the fused computation (== computation for a plain instruction)
  std::string name;
  std::vector<std::int64_t> root_dims;
  /// Output 0 and every other output of the same dimensions. An instruction reached from
  /// several of them through the same map is one entry: one tile, computed and read once.
  std::vector<TiledOutput> outputs;
  /// The other outputs, not tiled: their bytes (packed) priced as written once, and what only
  /// they reach (fused ops, parameters) priced whole, once.
  std::vector<std::size_t> untiled_outputs;
  double untiled_output_bytes = 0;
  std::vector<TiledEntry> entries;  // the roots first, then users before their operands
  std::vector<std::string> notes;   // what the tiles leave out (outputs of other dimensions, contracting dims)
  std::string undefined_reason;     // non-empty: no maps; entries is empty
  TileConstraints constraints;      // of all entries together
  bool all_tiled = false;           // every entry has a satisfiable tile (XLA would tile the fusion)
  /// The largest contracted extent of an entry (a dot's or convolution's K): the K tile's range.
  /// 1: no contracted dimension, no K tile.
  std::int64_t k_extent = 1;
  /// Does some entry stand for fused instruction `fused`?
  bool reached(std::uint32_t fused) const;
};

/// The tiles of instruction `instruction` of `computation` (a fusion: its body; any other op: itself and its operands).
TiledFusion tile_instruction(analysis::ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction);

/// The root tile sizes XLA's search enumerates for one dimension: powers of two below it, then itself.
std::vector<std::int64_t> candidate_sizes(std::int64_t dimension);

/// One K step: the contracted dimensions (a dot's or convolution's range variables) in steps of
/// `k_tile` elements, as XLA tiles a dot's contracting dimension. Each tile of the root loops over
/// the steps; per step an entry reads the tile of its map with its contracted variables restricted
/// to one step (filled from the last variable: K = 16 x 128 in steps of 512 is 4 x 128).
struct KStepTiles {
  std::int64_t k_tile = 0;          // 0: the fusion has no contracted dimension
  std::vector<std::int64_t> steps;  // per entry: the steps it takes (1: no contracted dimension, or one step)
  std::vector<std::optional<SymbolicTile>> tiles;  // per entry taking steps: its step's tile (none: no tile)
};
/// The K steps of `fusion` in steps of `k_tile` (in [1, fusion.k_extent]).
KStepTiles k_step_tiles(const TiledFusion& fusion, std::int64_t k_tile);
/// The K tile sizes the search enumerates: candidate_sizes(k_extent), or {0} without contracted dimensions.
std::vector<std::int64_t> k_tile_candidates(const TiledFusion& fusion);

/// One entry under concrete tile sizes.
struct ConcreteEntry {
  std::vector<std::int64_t> offsets;  // of tile 0 (runtime variables at 0)
  std::vector<std::int64_t> sizes, strides;
  std::vector<bool> whole;        // dimensions taken whole (no symbolic tile, or it does not cover)
  bool symbolic = false;          // sizes from the symbolic tile, its constraints holding
  bool counted = false;           // the counts below were made
  bool covers = false;            // every tile's box holds every element the tile reads
  bool exact = false;             // ... and no other element within bounds
  bool counts_exact = true;       // false: a count is an upper bound (a bound hit, runtime offsets)
  std::int64_t reads = 0;         // sum over tiles of the distinct elements each reads
  std::int64_t distinct = 0;      // distinct elements over all tiles
  std::int64_t box_elements = 0;  // sum over tiles of the box's elements within bounds
  std::int64_t rereads() const { return reads - distinct; }
  std::string note;  // why a dimension is whole, what XLA says
  /// One K step's tile (the tile above covers every step): its sizes and strides, and the steps.
  std::vector<std::int64_t> step_sizes, step_strides;
  std::int64_t steps = 1;
};

struct ConcreteTiling {
  std::vector<std::int64_t> sizes;  // of the root tile
  std::vector<std::int64_t> tiles_per_dimension;
  std::int64_t tiles = 1;
  std::int64_t k_tile = 0;        // the K step (0: no contracted dimension)
  std::int64_t k_steps = 1;       // the most steps an entry takes
  bool constraints_hold = false;  // XLA's constraints of every entry (and of every K step's tile)
  bool k_steps_hold = true;       // every K step's tile exists and its constraints hold
  std::vector<ConcreteEntry> entries;
};

/// The tiling of `fusion` with root tile `sizes` (one per root dimension, each in [1, dimension])
/// and K steps `k` (none: contracted dimensions whole); `count`: make the exact counts (the
/// expensive part; they count every step of a tile together).
ConcreteTiling concrete_tiling(const TiledFusion& fusion, std::span<const std::int64_t> sizes, bool count = true,
                               const KStepTiles* k = nullptr);

/// The box tile `tile` (one index per root dimension, row-major over tiles_per_dimension) of
/// entry `entry` covers: per dimension, its offset, size and stride (a whole dimension: 0, its size, 1).
struct TileBox {
  std::vector<std::int64_t> offsets, sizes, strides;
};
TileBox tile_box(const TiledFusion& fusion, const ConcreteTiling& tiling, std::size_t entry,
                 std::span<const std::int64_t> tile);

}  // namespace hlo_index::tiles

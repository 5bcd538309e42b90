// The best tile sizes for a fusion: XLA's candidates (per root dimension the
// powers of two below it and the dimension itself), those whose constraints
// hold, priced with the cost model: the bytes every tile brings from memory
// (re-reads by neighbouring tiles included), the FLOPs of every fused
// instruction over its tiles (recomputation included), and the number of
// tiles against the device's cores (a last wave that leaves cores idle). A
// few candidates XLA rejects (constraints that fail, instructions without a
// tile) are decided exactly by counting: accepted when every tile of every
// instruction reads exactly the strided box printed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "indexing/cost/cost_model.hpp"
#include "indexing/tiles/tiled_fusion.hpp"

namespace hlo_index::tiles {

struct TilingEstimate {
  std::vector<std::int64_t> sizes;
  std::int64_t k_tile = 0, k_steps = 1;  // the K step (0: no contracted dimension) and the most steps
  std::int64_t tiles = 0, waves = 0;
  double occupancy = 0;  // tiles / (waves * cores)
  double bytes_read = 0, bytes_written = 0, flops = 0;
  // Rounds of the blocks the cores hold at once (device.resident_*), each at least one
  // memory latency: latency_seconds. 0 where the device does not model it.
  std::int64_t threads_per_block = 0, resident_blocks = 0, rounds = 0;
  double compute_seconds = 0, memory_seconds = 0, latency_seconds = 0, overhead_seconds = 0, seconds = 0;
  std::int64_t largest_tile = 0;  // elements of the largest instruction tile of one K step (padded to powers of two)
  bool xla_valid = false;         // XLA's constraints hold and every instruction has a tile
  bool exact_check = false;       // decided by exact counts instead (beyond XLA)
  std::string why;
};

struct TileSearch {
  std::vector<TilingEstimate> best;  // fastest first
  std::size_t candidates = 0;        // enumerated
  std::size_t xla_valid = 0;         // satisfying XLA's constraints and the block limit
  std::size_t checked_exactly = 0;   // candidates XLA rejects that were counted
  std::size_t accepted_exactly = 0;  // ... and found to read strided boxes
  double distinct_bytes_read = 0;    // what the fusion reads from memory untiled (the cost model's)
  std::string note;
};

/// Elements one block may hold (Triton's limit, which XLA's emitter constraints enforce).
inline constexpr std::int64_t k_max_tile_elements = std::int64_t{1} << 20;
/// K steps whose loads are in flight at once (Triton's software pipelining, XLA's num_stages up to 4):
/// a tile's K loop waits one memory latency per this many steps.
inline constexpr std::int64_t k_pipelined_steps = 4;

/// Searches the tilings of `fusion` (from tile_instruction) on the cost model's device;
/// keeps the `keep` fastest. Deterministic.
TileSearch search_tilings(const TiledFusion& fusion, cost::CostModel& costs, std::size_t keep = 5);

/// The estimate of one tiling (XLA-valid or not: instructions without a usable tile read whole).
TilingEstimate estimate_tiling(const TiledFusion& fusion, cost::CostModel& costs, const ConcreteTiling& tiling);

/// The best tiling of one instruction (`summary --tiles`): none with the search's note.
struct BestTiling {
  std::uint32_t computation = 0, instruction = 0;
  std::optional<TilingEstimate> best;
  bool xla_has_tiling = false;  // every instruction has an XLA tile (else the best is beyond XLA's)
  std::string note;             // the search's, when there is no best
  std::int64_t k_extent = 1;    // the largest contracted extent (1: no K step)
};

/// The best tiling of each (computation, instruction) of `module` on `device`, in order.
std::vector<BestTiling> best_tilings(const hlo::Module& module,
                                     const std::vector<std::pair<std::uint32_t, std::uint32_t>>& instructions,
                                     const cost::Device& device);

}  // namespace hlo_index::tiles

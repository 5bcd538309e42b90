// How well the reads of one operand use the memory transfers of a target,
// from the map between output and operand element offsets (`analyze
// --physical`), under the access model of the target and emitter
// (access_target.hpp):
//
// - GPU loop emitter and column reduction: thread t computes the output
//   element at offset t of the output buffer (threads on padding slots are
//   idle), warps of 32; a thread's read is its first iteration (range
//   variables at their first point), as XLA's coalescing analysis fixes every
//   loop variable it does not unroll.
// - GPU row reduction: the 32 threads of a warp read consecutive elements of
//   one reduced row (the range variables in the order of their strides),
//   several short rows per warp.
// - GPU tiled transpose: a warp reads one row of a 32-element tile of the
//   operand (consecutive operand offsets), output elements `step` apart.
// - TPU: the outputs of one output tile (1024 when untiled: an 8 x 128
//   vector register) with up to 128 iterations each (enough for a 128-lane
//   row of a reduced dimension); the unit is a whole tile of the operand's
//   layout (512 bytes when untiled). Few groups: each is costly.
// - CPU: 16 consecutive output elements with up to 128 iterations each; the
//   unit is a 64-byte cache line.
//
// Runtime offsets the same for every thread of a group (a dynamic-slice's)
// are fixed to their lowest feasible value, as XLA does; offsets that differ
// between threads (a gather's per-row indices) make the read irregular.
// Per group: the units transferred (128-byte transactions, tiles, lines) and
// the minimum for as many bytes (dense runs: the units they span, see
// minimum_units in coalescing.cpp); the read is coalesced when
// the minimum is more than 90% of the units transferred (XLA's threshold),
// summed over the sampled groups.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/analysis/access_target.hpp"
#include "indexing/ops/op_maps.hpp"

namespace hlo_index::analysis {

/// kCoalesced, kBroadcast: the transfers are within 10% of the minimum
/// (kBroadcast: every thread of a group reads one element). kStrided,
/// kUncoalesced: they are not (kStrided: most consecutive threads read
/// `stride` elements apart). kIrregular: not judged (offsets that differ
/// between threads, no maps).
enum class ReadPattern { kCoalesced, kBroadcast, kStrided, kUncoalesced, kIrregular };
std::string_view pattern_name(ReadPattern pattern);

struct Coalescing {
  AccessModel model = AccessModel::kGpuLoop;
  ReadPattern pattern = ReadPattern::kIrregular;
  std::int64_t stride = 0;      // the stride most consecutive active threads share
  double stride_share = 0;      // fraction of consecutive active pairs with that stride
  double transfers = 0;         // mean units transferred per group
  double min_transfers = 0;     // mean minimum per group
  double used_fraction = 0;     // bytes read / bytes transferred
  std::int64_t unit_bytes = 0;  // one transaction, tile or line
  std::int64_t groups_sampled = 0;
  std::string reason;  // kIrregular: why; else a note ("" when none)

  bool coalesced() const { return pattern == ReadPattern::kCoalesced || pattern == ReadPattern::kBroadcast; }
};

/// The model, the buffers and the transfer unit of one operand read.
struct AccessSetup {
  AccessModel model = AccessModel::kGpuLoop;
  std::int64_t output_slots = 0;  // allocated elements of the output buffer
  std::int64_t operand_bits = 32;
  std::int64_t unit_bits = 1024;    // 128-byte transactions; TPU: a whole tile; CPU: 512
  std::int64_t group_outputs = 32;  // threads of a warp; TPU: outputs of an output tile; CPU: 16
  /// kGpuTiledTranspose: the strides of the output's physical dimensions, tried
  /// as the step between the threads of a tile row.
  std::vector<std::int64_t> output_steps;
};

struct CoalescingOptions {
  std::int64_t max_groups = 64;       // groups evaluated: the first half, then evenly spread
  std::int64_t max_line_groups = 16;  // likewise for CPU groups (16 outputs each)
  std::int64_t max_tile_groups = 4;   // likewise for TPU groups (a whole output tile each)
  // Range-variable points tried for a thread's first read (its lowest offset)
  // and, on TPU and CPU, the iterations enumerated per output element.
  std::int64_t max_range_points = 64;
  std::int64_t max_iterations = 128;
};

/// The setup of `model` for an operand of `operand_bits` bits per element
/// whose layout has `tile_elements` per outermost tile, read for an output
/// with `output_tile_elements` per outermost tile (0: untiled; TPU only).
AccessSetup access_setup(AccessModel model, std::int64_t output_slots, std::int64_t operand_bits,
                         std::int64_t tile_elements = 0, std::int64_t output_tile_elements = 0);

/// The reads of one group (a warp, a TPU output tile, a CPU line's outputs)
/// as coalescing() samples them, for drawing: per thread (an output element
/// on TPU and CPU) in the model's order, the operand offsets it reads (one
/// on GPU: its first iteration; every iteration up to max_iterations on TPU
/// and CPU; none for an idle thread). Empty threads with `reason` set when
/// the read cannot be sampled (as coalescing() gives kIrregular).
struct GroupReads {
  std::int64_t group = 0, groups = 0;
  std::int64_t step = 1;  // outputs between a tile row's threads, or a row reduction's outputs per warp
  std::vector<std::vector<std::int64_t>> threads;
  std::string reason;
};
GroupReads group_reads(const indexing::MapSet& physical, const AccessSetup& setup, std::int64_t group,
                       const CoalescingOptions& options = {});

/// `physical` is an output offset -> operand offset map set (each map a
/// load of its own is the caller's choice: the maps of one set are read
/// together here).
Coalescing coalescing(const indexing::MapSet& physical, const AccessSetup& setup,
                      const CoalescingOptions& options = {});

}  // namespace hlo_index::analysis

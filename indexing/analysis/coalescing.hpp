// How the reads of one operand line up across GPU threads, from the map
// between output and operand element offsets (`analyze --physical`).
//
// Thread model: thread t computes the output element at offset t of the
// output buffer (consecutive threads, consecutive output elements in physical
// order; threads on padding slots are idle), in groups of 32. A thread's read
// of the operand is its lowest operand offset (the first iteration of its
// range variables). Per operand: the stride between the reads of consecutive
// active threads (idle ones skipped) that most pairs share, and the fraction of a group's reads
// that fall into one 128-byte segment.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "indexing/op_maps.hpp"

namespace hlo_index::analysis {

enum class ReadPattern { kCoalesced, kBroadcast, kStrided, kIrregular };
std::string_view pattern_name(ReadPattern pattern);

struct Coalescing {
  ReadPattern pattern = ReadPattern::kIrregular;
  std::int64_t stride = 0;      // elements between consecutive threads' reads (kStrided, kCoalesced: 1)
  double stride_share = 0;      // fraction of consecutive active pairs with that stride
  double segment_fraction = 0;  // mean over groups: largest share of a group's reads in one 128-byte segment
  std::int64_t groups_sampled = 0;
  std::string reason;  // kIrregular: why
};

struct CoalescingOptions {
  std::int64_t group_size = 32;
  std::int64_t segment_bytes = 128;
  std::int64_t max_groups = 64;  // groups evaluated: the first half, then evenly spread
  // Range-variable points tried per thread for its first read: a thread's
  // lowest offset is at its first point for every layout we know, and a dot
  // over 6144 elements would cost groups x threads x 6144 evaluations.
  std::int64_t max_range_points = 64;
};

/// `physical` is an output offset -> operand offset map set over an output
/// buffer of `output_slots` elements; the operand has `operand_bits` bits
/// per element.
Coalescing coalescing(const indexing::MapSet& physical, std::int64_t output_slots, std::int64_t operand_bits,
                      const CoalescingOptions& options = {});

}  // namespace hlo_index::analysis

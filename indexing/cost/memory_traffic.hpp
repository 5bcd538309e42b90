// The bytes an instruction really moves: for each operand, the transfer
// units of its buffer that hold an element some output element reads (32-byte
// sectors on a GPU, 64-byte cache lines on a CPU, the tiles of its tiled
// layout with their padding on a TPU); for each output, the units it writes.
// The elements read come from the exact output -> operand maps, their results
// restated in physical offsets through the array's layout; a unit read twice is moved
// once (re-reads hit a cache). Arrays are counted by memory space: device
// memory (HBM, S(0)), on-chip spaces (S(1): VMEM on a TPU; others), host
// memory (S(5)).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "indexing/analysis/module_analysis.hpp"
#include "indexing/cost/device.hpp"
#include "layout/physical_layout.hpp"

namespace hlo_index::cost {

/// Where an array lives, by the S(n) of its layout.
enum class MemoryKind { kDevice, kOnChip, kHost };
MemoryKind memory_kind(std::int64_t memory_space);
/// XLA's host memory space, S(5).
inline constexpr std::int64_t k_host_memory_space = 5;

/// The bytes one transfer moves for an array of layout `array` on `device`.
std::int64_t transfer_unit_bytes(const layout::PhysicalLayout& array, const Device& device);

/// The transfer units of one array an instruction reads or writes.
struct ArrayTraffic {
  std::int64_t units = 0;
  std::int64_t unit_bytes = 0;
  std::int64_t memory_space = 0;
  bool exact = true;  // false: an upper bound (runtime offsets, approximate maps, a count past its budget)
  std::int64_t bytes() const { return units * unit_bytes; }
};

/// Counts transfer units through the maps of one module, memoised by map
/// and layout (layers repeat).
class TrafficCounter {
public:
  TrafficCounter(analysis::ModuleAnalysis& analysis, const Device& device) : m_analysis(analysis), m_device(device) {}

  /// The units of array `array` (an operand, or an output leaf being
  /// written) that `maps` reach (`maps[k]`: those from output leaf k, or
  /// from an update). `distinct` is the number of elements they reach
  /// (utilisation's count), for the shortcuts: every element (the whole
  /// buffer) or none.
  ArrayTraffic units_reached(const hlo::Shape& array, const std::vector<indexing::MapSet>& maps, std::int64_t distinct,
                             bool distinct_exact);

  /// Every unit of `array` (a whole write or read).
  ArrayTraffic whole(const hlo::Shape& array);

  const Device& device() const { return m_device; }

private:
  analysis::ModuleAnalysis& m_analysis;
  const Device& m_device;
  std::map<std::vector<std::uint32_t>, ArrayTraffic> m_memo;
};

}  // namespace hlo_index::cost

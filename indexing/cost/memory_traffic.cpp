#include "indexing/cost/memory_traffic.hpp"

#include <algorithm>
#include <vector>

#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/count.hpp"

namespace hlo_index::cost {

MemoryKind memory_kind(std::int64_t memory_space) {
  if (memory_space == 0) return MemoryKind::kDevice;
  if (memory_space == k_host_memory_space) return MemoryKind::kHost;
  return MemoryKind::kOnChip;
}

namespace {

// The bits of one transfer: a TPU's is a tile of the first tiling level, with its padding (tiles
// of sub-byte elements need not end on a byte); 512 bytes for an untiled array.
std::int64_t transfer_unit_bits(const layout::PhysicalLayout& array, const Device& device) {
  if (device.transfer_bytes > 0) return device.transfer_bytes * 8;
  if (!array.has_tiles()) return device.untiled_transfer_bytes * 8;
  std::int64_t elements = 1;
  for (std::int64_t d : array.tiles().front().dims)
    if (d > 0) elements *= d;
  return std::max<std::int64_t>(1, elements * array.element_bits());
}

}  // namespace

std::int64_t transfer_unit_bytes(const layout::PhysicalLayout& array, const Device& device) {
  return (transfer_unit_bits(array, device) + 7) / 8;
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

constexpr std::uint32_t k_whole_key = 0xffffffff;

// The bit offsets, from an element's first bit, whose units together are every unit the element
// meets: its first bit, one bit per unit length further (each lands in the next unit), its last bit.
// Just the first when elements tile units exactly (a unit holds whole elements).
std::vector<std::int64_t> element_probes(std::int64_t element_bits, std::int64_t unit_bits) {
  std::vector<std::int64_t> probes{0};
  if (element_bits <= unit_bits && unit_bits % element_bits == 0) return probes;
  for (std::int64_t t = unit_bits; t < element_bits; t += unit_bits) probes.push_back(t);
  probes.push_back(element_bits - 1);
  return probes;
}

// The most units one element meets.
std::int64_t units_per_element(std::int64_t element_bits, std::int64_t unit_bits) {
  if (element_bits <= unit_bits && unit_bits % element_bits == 0) return 1;
  return element_bits / unit_bits + 2;
}

// The units each map's operand offsets (one result) fall in: one map per probe of an element.
// False when a map is not one defined offset.
bool append_units(const indexing::MapSet& physical, std::int64_t element_bits, std::int64_t unit_bits,
                  indexing::MapSet& units, bool& exact) {
  const std::vector<std::int64_t> probes = element_probes(element_bits, unit_bits);
  for (const indexing::IndexingMap& p : physical) {
    if (!p.is_defined() || p.results().size() != 1) return false;
    // One execution: runtime offsets at the low end of their ranges.
    const indexing::IndexingMap pinned = p.runtime_count() > 0 ? analysis::pinned_runtime(p) : p;
    if (p.runtime_count() > 0 || p.approximate()) exact = false;
    for (std::int64_t t : probes) {
      indexing::IndexingMap unit = pinned;
      unit.results().front() = floor_div(pinned.results().front() * element_bits + t, unit_bits);
      units.push_back(std::move(unit));
    }
  }
  return true;
}

}  // namespace

ArrayTraffic TrafficCounter::whole(const hlo::Shape& array) {
  ArrayTraffic out;
  const layout::PhysicalLayout* l = m_analysis.offsets().layout(array);
  if (l == nullptr) {
    // A tuple or an unbounded dimension: no buffer to lay out.
    out.exact = false;
    return out;
  }
  const std::int64_t unit_bits = transfer_unit_bits(*l, m_device), bits = l->element_bits();
  out.unit_bytes = transfer_unit_bytes(*l, m_device);
  out.memory_space = l->memory_space();
  if (!l->has_tiles()) {
    // Elements packed from offset 0: the units up to the last element's last bit (tail padding
    // beyond it holds nothing).
    out.units = ceil_div(l->logical_elements() * bits, unit_bits);
    return out;
  }
  // Tiled: the units that hold an element (a unit of tile padding only is not moved), counted over
  // the identity map in offsets. A TPU's unit is a tile, and every tile holds an element.
  // Memoised with units_reached's counts: its keys name an output leaf second, never this one.
  std::vector<std::uint32_t> key{m_analysis.offsets().shape_id(array), k_whole_key};
  if (auto it = m_memo.find(key); it != m_memo.end()) return it->second;
  const indexing::MapSet identity{indexing::IndexingMap::identity(l->logical_dims())};
  indexing::MapSet units;
  bool exact = true;
  if (append_units(m_analysis.offsets().to_offsets(identity, array), bits, unit_bits, units, exact) && !units.empty()) {
    const indexing::Count counted = indexing::count_union_image(units);
    out.units = counted.value;
    out.exact = exact && counted.exact;
  } else {
    out.units = ceil_div(l->allocated_bytes(), out.unit_bytes);  // every unit of the buffer, an upper bound
    out.exact = false;
  }
  m_memo.emplace(std::move(key), out);
  return out;
}

ArrayTraffic TrafficCounter::units_reached(const hlo::Shape& array, const std::vector<indexing::MapSet>& maps,
                                           std::int64_t distinct, bool distinct_exact) {
  ArrayTraffic out = whole(array);
  const layout::PhysicalLayout* l = m_analysis.offsets().layout(array);
  if (l == nullptr || out.unit_bytes == 0) return out;
  if (distinct == 0 && distinct_exact) {
    out.units = 0;
    return out;
  }
  if (distinct_exact && distinct >= l->logical_elements()) return out;  // every element: every unit holding one
  // Some elements: the units their physical offsets fall in, counted over the maps.
  const std::int64_t unit_bits = transfer_unit_bits(*l, m_device), bits = l->element_bits();
  const std::int64_t total = out.units;
  std::int64_t upper = total;
  if (distinct >= 0 && distinct <= total / units_per_element(bits, unit_bits))
    upper = distinct * units_per_element(bits, unit_bits);
  std::vector<std::uint32_t> key{m_analysis.offsets().shape_id(array)};
  for (std::size_t k = 0; k < maps.size(); ++k) {
    if (maps[k].empty()) continue;
    key.push_back(static_cast<std::uint32_t>(k));
    for (const indexing::IndexingMap& m : maps[k]) key.push_back(m_analysis.interned_maps().intern(m));
  }
  if (auto it = m_memo.find(key); it != m_memo.end()) return it->second;
  indexing::MapSet units;
  bool exact = distinct_exact;
  for (const indexing::MapSet& set : maps) {
    if (set.empty()) continue;
    if (!append_units(m_analysis.offsets().to_offsets(set, array), bits, unit_bits, units, exact)) {
      exact = false;
      units.clear();
      break;
    }
  }
  if (units.empty()) {
    out.units = upper;
    out.exact = false;
  } else {
    const indexing::Count counted = indexing::count_union_image(units);
    out.units = std::min(total, counted.value);
    out.exact = exact && counted.exact;
  }
  m_memo.emplace(std::move(key), out);
  return out;
}

}  // namespace hlo_index::cost

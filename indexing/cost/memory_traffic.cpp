#include "indexing/cost/memory_traffic.hpp"

#include <algorithm>

#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/count.hpp"

namespace hlo_index::cost {

MemoryKind memory_kind(std::int64_t memory_space) {
  if (memory_space == 0) return MemoryKind::kDevice;
  if (memory_space == k_host_memory_space) return MemoryKind::kHost;
  return MemoryKind::kOnChip;
}

std::int64_t transfer_unit_bytes(const layout::PhysicalLayout& array, const Device& device) {
  if (device.transfer_bytes > 0) return device.transfer_bytes;
  // TPU: a tile of the first tiling level, with its padding; 512 bytes for an untiled array.
  if (!array.has_tiles()) return device.untiled_transfer_bytes;
  std::int64_t elements = 1;
  for (std::int64_t d : array.tiles().front().dims)
    if (d > 0) elements *= d;
  return std::max<std::int64_t>(1, (elements * array.element_bits() + 7) / 8);
}

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

std::int64_t buffer_units(const layout::PhysicalLayout& array, std::int64_t unit_bytes) {
  return ceil_div(array.allocated_bytes(), unit_bytes);
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
  out.unit_bytes = transfer_unit_bytes(*l, m_device);
  out.units = buffer_units(*l, out.unit_bytes);
  out.memory_space = l->memory_space();
  return out;
}

ArrayTraffic TrafficCounter::units_reached(const hlo::Shape& array, const std::vector<const hlo::Shape*>& from_shapes,
                                           const std::vector<indexing::MapSet>& maps, std::int64_t distinct,
                                           bool distinct_exact) {
  ArrayTraffic out = whole(array);
  const layout::PhysicalLayout* l = m_analysis.offsets().layout(array);
  if (l == nullptr || out.unit_bytes == 0) return out;
  if (distinct == 0 && distinct_exact) {
    out.units = 0;
    return out;
  }
  if (distinct_exact && distinct >= l->logical_elements()) return out;  // every element: every unit
  // Some elements: the units their physical offsets fall in, counted over the maps.
  const std::int64_t total = out.units;
  const std::int64_t upper = std::min(total, std::max<std::int64_t>(distinct, 0));
  std::vector<std::uint32_t> key{m_analysis.offsets().shape_id(array)};
  for (std::size_t k = 0; k < maps.size() && k < from_shapes.size(); ++k) {
    if (maps[k].empty()) continue;
    const layout::PhysicalLayout* from = m_analysis.offsets().layout(*from_shapes[k]);
    if (from == nullptr) {
      out.units = upper;
      out.exact = false;
      return out;
    }
    key.push_back(static_cast<std::uint32_t>(k));
    key.push_back(m_analysis.offsets().shape_id(*from_shapes[k]));
    for (const indexing::IndexingMap& m : maps[k]) key.push_back(m_analysis.interned_maps().intern(m));
  }
  if (auto it = m_memo.find(key); it != m_memo.end()) return it->second;
  const std::int64_t unit_bits = out.unit_bytes * 8, bits = l->element_bits();
  indexing::MapSet units;
  bool exact = distinct_exact;
  for (std::size_t k = 0; k < maps.size() && k < from_shapes.size(); ++k) {
    if (maps[k].empty()) continue;
    const indexing::MapSet physical = m_analysis.offsets().convert(maps[k], *from_shapes[k], array);
    for (const indexing::IndexingMap& p : physical) {
      if (!p.is_defined() || p.results().size() != 1) {
        exact = false;
        units.clear();
        break;
      }
      // One execution: runtime offsets at the low end of their ranges.
      indexing::IndexingMap unit = p.runtime_count() > 0 ? analysis::pinned_runtime(p) : p;
      if (p.runtime_count() > 0 || p.approximate()) exact = false;
      unit.results().front() = floor_div(unit.results().front() * bits, unit_bits);
      units.push_back(std::move(unit));
    }
    if (units.empty() && !exact) break;
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

#include "indexing/analysis/physical_indexing.hpp"

#include "indexing/maps/layout_maps.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::InstructionIndexing;
using indexing::MapSet;

const PhysicalIndexing::LayoutOrReason& PhysicalIndexing::layout_of(const hlo::Shape& shape) {
  auto it = m_layouts.find(&shape);
  if (it != m_layouts.end()) return it->second;
  LayoutOrReason entry;
  if (shape.is_tuple) {
    entry.reason = "a tuple has no single buffer to take offsets in";
  } else {
    try {
      entry.layout = layout::PhysicalLayout::of(shape);
      const auto id = static_cast<std::uint32_t>(m_shape_ids.size());
      entry.shape_id = m_shape_ids.emplace(hlo::to_string(shape), id).first->second;
    } catch (const layout::LayoutError& e) {
      entry.reason = std::string("cannot lay out ").append(hlo::to_string(shape)).append(": ").append(e.what());
    }
  }
  return m_layouts.emplace(&shape, std::move(entry)).first->second;
}

const layout::PhysicalLayout* PhysicalIndexing::layout(const hlo::Shape& shape) {
  const LayoutOrReason& entry = layout_of(shape);
  return entry.layout ? &*entry.layout : nullptr;
}

MapSet PhysicalIndexing::convert(const MapSet& set, const hlo::Shape& from, const hlo::Shape& to) {
  // Nothing read: no layouts to look up (a wide tuple's outputs read one operand of thousands).
  if (set.empty()) return {};
  const LayoutOrReason& from_layout = layout_of(from);
  const LayoutOrReason& to_layout = layout_of(to);
  MapSet result;
  for (const IndexingMap& map : set) {
    if (!map.is_defined()) {
      result.push_back(map);
      continue;
    }
    if (!from_layout.layout || !to_layout.layout) {
      result.push_back(IndexingMap::undefined(from_layout.layout ? to_layout.reason : from_layout.reason));
      continue;
    }
    // Real modules repeat the same op on the same shapes many times.
    const auto key = std::make_tuple(m_maps.intern(map), from_layout.shape_id, to_layout.shape_id);
    auto it = m_converted.find(key);
    if (it == m_converted.end())
      it = m_converted
               .emplace(key, indexing::in_physical_offsets(map, *from_layout.layout, *to_layout.layout, m_simplify))
               .first;
    result.push_back(it->second);
  }
  return result;
}

MapSet PhysicalIndexing::to_offsets(const MapSet& set, const hlo::Shape& to) {
  if (set.empty()) return {};
  const LayoutOrReason& to_layout = layout_of(to);
  MapSet result;
  for (const IndexingMap& map : set) {
    if (!map.is_defined()) {
      result.push_back(map);
    } else if (!to_layout.layout) {
      result.push_back(IndexingMap::undefined(to_layout.reason));
    } else {
      const auto key = std::make_pair(m_maps.intern(map), to_layout.shape_id);
      auto it = m_results_converted.find(key);
      if (it == m_results_converted.end())
        it = m_results_converted.emplace(key, indexing::to_physical_offsets(map, *to_layout.layout, m_simplify)).first;
      result.push_back(it->second);
    }
  }
  return result;
}

InstructionIndexing PhysicalIndexing::apply(const hlo::Computation& computation, const hlo::Instruction& instruction,
                                            InstructionIndexing logical) {
  const hlo::Shape& shape = m_module.shape_of(instruction);
  // The leaves once: looking each up again is linear in the tuple's width.
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  auto output_shape = [&](std::size_t k) -> const hlo::Shape& { return k < leaves.size() ? *leaves[k] : shape; };
  const auto operands = computation.operands_of(instruction);
  auto operand_shape = [&](std::size_t j) -> const hlo::Shape& {
    return m_module.shape_of(computation.instructions[operands[j]]);
  };
  // A wide tuple's output reads one operand of thousands: the empty sets stay empty.
  for (std::size_t k = 0; k < logical.output_to_input.size(); ++k)
    logical.output_to_input[k].for_each_stored([&](std::size_t j, MapSet& maps) {
      if (j < operands.size() && !maps.empty()) maps = convert(maps, output_shape(k), operand_shape(j));
    });
  for (std::size_t k = 0; k < logical.input_to_output.size(); ++k)
    logical.input_to_output[k].for_each_stored([&](std::size_t j, MapSet& maps) {
      if (j < operands.size() && !maps.empty()) maps = convert(maps, operand_shape(j), output_shape(k));
    });
  return logical;
}

}  // namespace hlo_index::analysis

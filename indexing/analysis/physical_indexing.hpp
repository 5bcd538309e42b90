// An instruction's indexing restated in element offsets of the buffers
// (`hlo-index analyze --physical`): output offset -> operand offset, and
// operand offset -> output offset, through each array's layout (tiles
// included). The basis for coalescing questions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "indexing/analysis/map_interner.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "layout/physical_layout.hpp"

namespace hlo_index::analysis {

class PhysicalIndexing {
public:
  /// Memoises by ids of `maps`, which may be shared with other memos.
  PhysicalIndexing(const hlo::Module& module, MapInterner& maps, bool simplify = true)
      : m_module(module), m_simplify(simplify), m_maps(maps) {}
  /// With an interner of its own.
  explicit PhysicalIndexing(const hlo::Module& module, bool simplify = true)
      : m_module(module), m_simplify(simplify), m_own_maps(std::make_unique<MapInterner>()), m_maps(*m_own_maps) {}

  /// `logical` is the analysis of `instruction` (of `computation`); every
  /// map becomes a map between physical offsets. An operand or output that
  /// cannot be laid out (a tuple, an unbounded dimension) gets UNDEFINED
  /// maps with the reason.
  indexing::InstructionIndexing apply(const hlo::Computation& computation, const hlo::Instruction& instruction,
                                      indexing::InstructionIndexing logical);

  /// One set of maps from an array of shape `from` to one of shape `to`
  /// restated in offsets (memoised by map and layouts; UNDEFINED with the
  /// reason when a side cannot be laid out).
  indexing::MapSet convert(const indexing::MapSet& set, const hlo::Shape& from, const hlo::Shape& to);
  /// One set of maps to an array of shape `to` with their results restated as
  /// offsets in its buffer, domains unchanged (memoised; UNDEFINED with the
  /// reason when `to` cannot be laid out).
  indexing::MapSet to_offsets(const indexing::MapSet& set, const hlo::Shape& to);
  /// The layout of a shape of the module, or null (a tuple, an unbounded dimension).
  const layout::PhysicalLayout* layout(const hlo::Shape& shape);
  /// For a shape with a layout: an id equal for shapes that print the same.
  std::uint32_t shape_id(const hlo::Shape& shape) { return layout_of(shape).shape_id; }
  /// The interner the conversion memo is keyed by.
  MapInterner& maps() { return m_maps; }

private:
  // The layout of a shape, or the reason there is none.
  struct LayoutOrReason {
    std::optional<layout::PhysicalLayout> layout;
    std::uint32_t shape_id = 0;  // laid-out shapes only: by the shape's text
    std::string reason;
  };
  const LayoutOrReason& layout_of(const hlo::Shape& shape);

  const hlo::Module& m_module;
  bool m_simplify;
  // Shapes are interned by the module and never move during an analysis, so
  // their addresses identify them (printing shapes for keys cost more than the
  // conversions on wide tuples).
  std::map<const hlo::Shape*, LayoutOrReason> m_layouts;
  std::map<std::string, std::uint32_t> m_shape_ids;  // by text: equal shapes at different addresses
  std::unique_ptr<MapInterner> m_own_maps;
  MapInterner& m_maps;
  // By map id and the two shapes' ids.
  std::map<std::tuple<MapInterner::Id, std::uint32_t, std::uint32_t>, indexing::IndexingMap> m_converted;
  // By map id and the target shape's id.
  std::map<std::pair<MapInterner::Id, std::uint32_t>, indexing::IndexingMap> m_results_converted;
};

}  // namespace hlo_index::analysis

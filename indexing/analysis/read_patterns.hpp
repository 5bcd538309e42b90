// Read patterns (coalescing.hpp) of whole instructions: per output and
// operand, one pattern per map, from the maps restated in physical offsets,
// memoised since modules repeat the same layer many times.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/map_interner.hpp"
#include "indexing/analysis/physical_indexing.hpp"
#include "indexing/instruction_indexing.hpp"

namespace hlo_index::analysis {

/// The read pattern of output offset -> operand offset maps, by map id,
/// output slots and operand element width; sampled with the default
/// CoalescingOptions.
class ReadPatternMemo {
public:
  explicit ReadPatternMemo(MapInterner& maps) : m_maps(maps) {}
  const Coalescing& of(const indexing::IndexingMap& physical, std::int64_t output_slots, std::int64_t operand_bits);

private:
  MapInterner& m_maps;
  std::map<std::tuple<MapInterner::Id, std::int64_t, std::int64_t>, Coalescing> m_patterns;
};

/// Per output and operand: the read pattern of each map, each map being its
/// own load (empty: the output or operand cannot be laid out).
using ReadPatternTable = std::vector<std::vector<std::vector<Coalescing>>>;

/// The read patterns of every operand of every output of `instruction`,
/// from its logical output -> operand maps.
ReadPatternTable read_patterns(const hlo::Module& module, const hlo::Computation& computation,
                               const hlo::Instruction& instruction, const indexing::InstructionIndexing& logical,
                               PhysicalIndexing& offsets, ReadPatternMemo& memo);

}  // namespace hlo_index::analysis

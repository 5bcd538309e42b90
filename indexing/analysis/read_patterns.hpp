// Read patterns (coalescing.hpp) of whole instructions: per output and
// operand, one pattern per map, from the maps restated in physical offsets,
// under the access model of the target and emitter; memoised since modules
// repeat the same layer many times.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/map_interner.hpp"
#include "indexing/analysis/physical_indexing.hpp"
#include "indexing/compose/instruction_indexing.hpp"

namespace hlo_index::analysis {

/// The read pattern of output offset -> operand offset maps, by map and
/// access setup; sampled with the default CoalescingOptions. The patterns are
/// shared by every memo of the process (shared_memo.hpp): a file of many
/// modules (82 in one PyTorch/XLA dump, most alike) samples the same maps
/// again, and sampling is most of a summary's time there. Also holds the
/// target the module is judged for.
class ReadPatternMemo {
public:
  explicit ReadPatternMemo(MapInterner& maps) : m_maps(maps) {}
  /// Valid for the process's lifetime (patterns are never dropped).
  const Coalescing& of(const indexing::IndexingMap& physical, const AccessSetup& setup);

  /// The target given (`--target`), else the one detected from `module`.
  Target target(const hlo::Module& module);
  void set_target(std::optional<Target> target) { m_target = target; }

private:
  MapInterner& m_maps;
  std::optional<Target> m_target;
  using Key =
      std::tuple<MapInterner::Id, AccessModel, std::int64_t, std::int64_t, std::int64_t, std::vector<std::int64_t>>;
  std::map<Key, const Coalescing*> m_patterns;  // into the shared patterns
};

/// Per output and operand: the read pattern of each map, each map being its
/// own load (empty: the output or operand cannot be laid out). A row holds
/// the operands its output reads (a wide tuple's output: one of thousands).
using ReadPatternTable = std::vector<std::map<std::size_t, std::vector<Coalescing>>>;

/// The access model of `instruction` on `target`.
AccessModel access_model(Target target, const hlo::Module& module, const hlo::Computation& computation,
                         const hlo::Instruction& instruction);

/// The setup of reading `operand` for an output laid out as `output`.
AccessSetup operand_access(AccessModel model, const layout::PhysicalLayout& output, const hlo::Shape& operand);

/// The read patterns of every operand of every output of `instruction`,
/// from its logical output -> operand maps.
ReadPatternTable read_patterns(const hlo::Module& module, const hlo::Computation& computation,
                               const hlo::Instruction& instruction, const indexing::InstructionIndexing& logical,
                               PhysicalIndexing& offsets, ReadPatternMemo& memo);

}  // namespace hlo_index::analysis

// One thread group's reads of one operand under the target's access model
// (`hlo-index picture`'s access panel): the map with the worst read pattern,
// group 0 of it as coalescing() samples it (a GPU warp, a TPU output tile, a
// CPU cache line's outputs), and the transfer units (128-byte segments,
// tiles, lines) its reads touch, slot by slot. The verdict is the one
// summary and lint give; nothing here re-derives the model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/module_analysis.hpp"

namespace hlo_index::analysis {

/// A transfer unit the group touches: per element slot of the unit, how many
/// of the group's reads fall on it (0: fetched but unused).
struct UnitTouched {
  std::int64_t unit = 0;  // offset * element bits / unit bits
  std::vector<std::int64_t> slot_reads;
  /// Per slot, the lowest and highest thread (output, on TPU and CPU) of the
  /// group reading it; -1 when none does.
  std::vector<std::int64_t> first_thread, last_thread;
};

struct GroupAccess {
  Target target = Target::kGpu;
  AccessModel model = AccessModel::kGpuLoop;
  std::size_t output = 0;         // the output whose maps are drawn (tuples: the worst)
  std::size_t map = 0, maps = 0;  // the map drawn (the worst pattern), of the operand's maps for that output
  Coalescing verdict;             // of that map, as summary and lint judge it
  AccessSetup setup;
  GroupReads reads;                // group 0
  std::vector<UnitTouched> units;  // by unit, ascending
  std::int64_t distinct_elements = 0, reads_total = 0;
  std::string reason;  // non-empty: nothing to draw (no layout, no maps, data-dependent offsets)
};

/// The access of operand `operand` of instruction `instruction` of
/// `computation` on the target of analysis.patterns() (set it first for
/// --target).
GroupAccess group_access(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                         std::size_t operand);

}  // namespace hlo_index::analysis

// Which elements of one operand an instruction reads, and how often: the
// read multiplicity per element (`hlo-index picture`, `hlo-index report`),
// counted exactly from the output -> operand maps as utilisation.hpp counts
// them (a read is a pair of output element and operand element, per map; one
// execution, runtime offsets at the low end of their ranges).
//
// The operand is drawn as 2-D slices: its last two dimensions are the rows
// and columns of a slice (a vector is one row, a scalar one cell), and the
// leading dimensions either give one slice per index (a grid) or are summed
// over (a projection). A slice has at most max_rows x max_columns cells; a
// larger one is binned, each cell covering a block of elements and holding
// the reads of all of them, so a cell's mean is reads / elements covered.
//
// Counting: a map with few domain points is enumerated; a larger one is
// counted per block of cells with indexing/count (the block split in two
// until it reads nothing or is one cell), so the cost follows the cells read,
// not the reads; past a budget of counts the cells are made larger (and the
// heat map says so) rather than the picture slow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "indexing/analysis/map_interner.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/compose/instruction_indexing.hpp"

namespace hlo_index::analysis {

enum class SliceChoice {
  kAuto,     // a grid when the leading dimensions give at most max_slices slices, else a projection
  kGrid,     // the first max_slices slices
  kProject,  // one slice: reads summed over the leading dimensions
};

struct HeatmapOptions {
  std::int64_t max_rows = 128, max_columns = 128;  // cells of a slice; a vector gets max_columns
  std::int64_t max_slices = 16;
  SliceChoice slices = SliceChoice::kAuto;
  /// Maps whose domain box (with runtime offsets pinned) has at most this
  /// many points are enumerated; larger ones are counted per block of cells.
  std::int64_t max_enumerated_points = std::int64_t{1} << 20;
  /// Counts (of blocks of cells) one heat map may make; past it the cells
  /// get twice as large per side and the counting starts again (0: no bound).
  std::int64_t max_counts = 65536;
  double time_limit_seconds = 0;  // 0: none; past it the heat map is undefined with the reason
};

/// One axis of a slice: an operand dimension binned into cells of
/// `per_cell` consecutive indices (the last one may be shorter).
struct HeatAxis {
  std::optional<std::size_t> dim;  // none: a vector's rows or a scalar's axes (one cell)
  std::int64_t size = 1, per_cell = 1, cells = 1;
  std::int64_t first(std::int64_t cell) const { return cell * per_cell; }
  std::int64_t last(std::int64_t cell) const { return std::min(size, (cell + 1) * per_cell) - 1; }
};

struct HeatCell {
  std::int64_t reads = 0;     // over the elements the cell covers, one execution
  std::int64_t elements = 0;  // operand elements the cell covers (projection: over every leading index)
  /// Some value of the runtime offsets reads an element of the cell (the
  /// union over their feasible values); reads > 0 implies it.
  bool may_read = false;
  double mean() const { return elements == 0 ? 0.0 : static_cast<double>(reads) / static_cast<double>(elements); }
};

struct HeatSlice {
  std::vector<std::int64_t> index;  // per leading dimension; empty for a projection or rank <= 2
  std::vector<HeatCell> cells;      // rows x columns, row-major
};

struct ReadHeatmap {
  std::vector<std::int64_t> dims;  // the operand's
  HeatAxis rows, columns;
  std::int64_t leading_slices = 1;  // product of the leading dimensions
  bool projected = false;
  std::vector<HeatSlice> slices;  // those drawn: every slice, the first max_slices, or the projection
  std::size_t maps = 0;           // distinct maps counted
  std::int64_t total_reads = 0;   // over the whole operand (every slice, drawn or not)
  bool exact = true;              // false: some count is an upper bound (approximate maps, isl budget)
  bool runtime_offsets = false;   // some map has runtime offsets (pinned for reads, free for may_read)
  bool replicas_merged = false;   // an all-gather's reads of several replicas drawn on one element
  bool coarsened = false;         // binned more coarsely than asked, to bound the counting
  bool may_read_boxed = false;    // may_read of some map: its results' bounding box (too many variables to count)
  std::string undefined_reason;   // non-empty: no heat map (no maps, or the time limit)

  bool defined() const { return undefined_reason.empty(); }
  double max_mean() const;
};

/// The heat map of `maps` (output -> operand maps, all into an operand of
/// `dims`; those counted as distinct ways of reading).
ReadHeatmap read_heatmap(const indexing::MapSet& maps, const std::vector<std::int64_t>& dims,
                         const HeatmapOptions& options = {});

/// Heat maps by their maps (interned ids), the operand's dimensions and the
/// options: models repeat their layers, and a report draws the same read of
/// many of them.
class ReadHeatmapMemo {
public:
  explicit ReadHeatmapMemo(MapInterner& maps) : m_maps(maps) {}
  const ReadHeatmap& of(const indexing::MapSet& maps, const std::vector<std::int64_t>& dims,
                        const HeatmapOptions& options);

private:
  using Key = std::tuple<std::vector<MapInterner::Id>, std::vector<std::int64_t>, std::vector<std::int64_t>>;
  MapInterner& m_maps;
  std::map<Key, ReadHeatmap> m_heatmaps;
};

/// The maps through which instruction `instruction` of `computation` reads
/// operand `operand`, as utilisation counts its reads: a map shared by
/// several outputs once, and a multi-output fusion by its shared loop
/// (fused_reads.hpp). An UNDEFINED map when there are none.
indexing::MapSet operand_read_maps(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                                   std::size_t operand);

/// The operand a picture shows by default: an array of more than one element
/// before a scalar, then the most bits read (distinct elements x element
/// bits), then the most reads x element bits; ties: the lower operand. None
/// when no operand is read.
std::optional<std::size_t> heaviest_operand(ModuleAnalysis& analysis, std::uint32_t computation,
                                            std::uint32_t instruction);

}  // namespace hlo_index::analysis

#include "indexing/analysis/read_heatmap.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <tuple>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/count.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "simplify/compiled_expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::MapSet;
using simplify::Interval;
using simplify::Var;

namespace {

constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? k_max : r;
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? k_max : r;
}

HeatAxis axis(std::optional<std::size_t> dim, std::int64_t size, std::int64_t max_cells) {
  HeatAxis a;
  a.dim = dim;
  a.size = std::max<std::int64_t>(0, size);
  a.per_cell = std::max<std::int64_t>(1, (a.size + max_cells - 1) / std::max<std::int64_t>(1, max_cells));
  a.cells = (a.size + a.per_cell - 1) / a.per_cell;
  return a;
}

// Thrown between counts when the time limit has passed.
struct TimeUp {};
// Thrown when a heat map needs more counts than options.max_counts.
struct OverBudget {};

// What one count of a block of `map` takes from max_counts: isl's work grows with the square of
// the variables (a chain of 200 dynamic-slices reads through 400 runtime variables, and each
// count of its map took milliseconds: the whole budget, minutes). 1 up to 16 variables.
std::int64_t count_weight(const IndexingMap& map) {
  const auto n = static_cast<std::int64_t>(map.domain().variable_count()) / 16;
  return std::max<std::int64_t>(1, n * n);
}

// Maps of more variables than this are not counted per block of cells for where their runtime
// offsets may read: isl's emptiness test grows steeply with them (0.4 s a test at 202 variables,
// a chain of 100 dynamic-slices; a picture needs hundreds), so their bounding box stands in.
constexpr std::size_t k_max_counted_variables = 64;

// Constraint evaluations one count of a block may enumerate before isl counts it instead.
constexpr std::int64_t k_heatmap_count_evaluations = 1'000'000;

// Points of the map's domain box (its variables' intervals).
std::int64_t box_points(const IndexingMap& map) {
  std::int64_t n = 1;
  for (Var v : map.domain().all_variables()) n = saturating_mul(n, map.domain().bounds(v).size());
  return n;
}

// The heat map being filled: which slices are drawn and where an element goes.
class Painter {
public:
  Painter(ReadHeatmap& map, const HeatmapOptions& options)
      : m_map(map), m_options(options), m_start(std::chrono::steady_clock::now()) {}

  void add_map(const IndexingMap& map) {
    const IndexingMap pinned = pinned_runtime(map);
    const indexing::Count total = indexing::count_relation(pinned);
    m_map.total_reads = saturating_add(m_map.total_reads, total.value);
    m_map.exact = m_map.exact && total.exact;
    if (total.value == 0) return;
    if (box_points(pinned) <= m_options.max_enumerated_points) {
      enumerate(pinned, [this](std::size_t slice, std::size_t cell) { ++m_map.slices[slice].cells[cell].reads; });
    } else {
      m_determined = ranges_determined(pinned);
      for (std::size_t s = 0; s < m_map.slices.size(); ++s)
        count_block(pinned, s, {0, m_map.rows.cells - 1}, {0, m_map.columns.cells - 1}, false);
    }
    if (map.runtime_count() == 0) return;
    // Where other values of the runtime offsets read: the union over their feasible values.
    if (box_points(map) <= m_options.max_enumerated_points) {
      enumerate(map, [this](std::size_t slice, std::size_t cell) { m_map.slices[slice].cells[cell].may_read = true; });
    } else if (map.domain().variable_count() > k_max_counted_variables) {
      may_read_in_box(map);
    } else {
      for (std::size_t s = 0; s < m_map.slices.size(); ++s)
        count_block(map, s, {0, m_map.rows.cells - 1}, {0, m_map.columns.cells - 1}, true);
    }
  }

private:
  // Cells [lo, hi] along one axis.
  struct Span {
    std::int64_t lo, hi;
  };

  // Every cell of the box the results can reach (their intervals over the domain) may be read:
  // sound, and instant where counting per block would not be.
  void may_read_in_box(const IndexingMap& map) {
    m_map.may_read_boxed = true;
    simplify::RangeEvaluator ranges(map.domain(), true);
    std::vector<simplify::Interval> box;
    for (const simplify::Expr& r : map.results()) box.push_back(ranges(r));
    auto cells = [&](const HeatAxis& axis) -> std::optional<Span> {
      if (!axis.dim) return Span{0, axis.cells - 1};
      const simplify::Interval i = box[*axis.dim];
      const std::int64_t lo = std::max<std::int64_t>(0, i.lo), hi = std::min(axis.size - 1, i.hi);
      if (lo > hi) return std::nullopt;
      return Span{lo / axis.per_cell, hi / axis.per_cell};
    };
    const std::optional<Span> rows = cells(m_map.rows), columns = cells(m_map.columns);
    if (!rows || !columns) return;
    for (std::size_t s = 0; s < m_map.slices.size(); ++s)
      for (std::int64_t r = rows->lo; r <= rows->hi; ++r)
        for (std::int64_t c = columns->lo; c <= columns->hi; ++c)
          m_map.slices[s].cells[static_cast<std::size_t>(r * m_map.columns.cells + c)].may_read = true;
  }

  void check_time() const {
    if (m_options.time_limit_seconds <= 0) return;
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - m_start;
    if (spent.count() > m_options.time_limit_seconds) throw TimeUp{};
  }

  // Whether every range variable is determined by the output point and the
  // element read: some result is `c * s + f` with f free of range variables.
  // Then distinct (output, element) pairs are the domain's points, which
  // count in closed form where the pairs would need isl.
  static bool ranges_determined(const IndexingMap& map) {
    for (std::uint32_t k = 0; k < map.range_count(); ++k) {
      const Var s{simplify::VarKind::kRange, k};
      bool determined = false;
      for (const simplify::Expr& r : map.results()) {
        std::vector<simplify::Term> terms;
        std::int64_t constant = 0;
        simplify::decompose_linear(r, terms, constant);
        bool alone = false, others = false;
        for (const simplify::Term& t : terms) {
          if (t.atom.is_variable() && t.atom.variable() == s) {
            alone = t.coefficient != 0;
          } else if (simplify::uses_kind(t.atom, simplify::VarKind::kRange)) {
            others = true;
          }
        }
        determined = determined || (alone && !others);
      }
      if (!determined) return false;
    }
    return true;
  }

  // Slice and cell of an operand element; none when it is outside the slices drawn.
  std::optional<std::pair<std::size_t, std::size_t>> place(const std::vector<std::int64_t>& element) const {
    const std::size_t rank = m_map.dims.size();
    for (std::size_t k = 0; k < rank; ++k)
      if (element[k] < 0 || element[k] >= m_map.dims[k]) return std::nullopt;
    std::size_t slice = 0;
    if (!m_map.projected && rank > 2) {
      std::int64_t linear = 0;
      for (std::size_t k = 0; k + 2 < rank; ++k) linear = linear * m_map.dims[k] + element[k];
      if (linear >= static_cast<std::int64_t>(m_map.slices.size())) return std::nullopt;
      slice = static_cast<std::size_t>(linear);
    }
    const std::int64_t row = m_map.rows.dim ? element[*m_map.rows.dim] / m_map.rows.per_cell : 0;
    const std::int64_t column = m_map.columns.dim ? element[*m_map.columns.dim] / m_map.columns.per_cell : 0;
    return std::make_pair(slice, static_cast<std::size_t>(row * m_map.columns.cells + column));
  }

  // Every feasible point of the map's domain box, the dimensions outermost;
  // per output point (d, rt) its distinct operand elements go to `paint`
  // once each (a read is a pair of output and operand element).
  template <typename Paint>
  void enumerate(const IndexingMap& map, Paint paint) {
    const simplify::Domain& d = map.domain();
    const std::vector<Var> vars = d.all_variables();
    const std::size_t nd = map.dim_count(), nr = map.range_count();
    std::vector<std::int64_t> values(vars.size());
    for (std::size_t k = 0; k < vars.size(); ++k) values[k] = d.bounds(vars[k]).lo;
    std::vector<std::vector<std::int64_t>> group;  // elements read by the current output point
    auto flush = [&] {
      std::sort(group.begin(), group.end());
      group.erase(std::unique(group.begin(), group.end()), group.end());
      for (const auto& element : group)
        if (auto at = place(element)) paint(at->first, at->second);
      group.clear();
    };
    std::vector<std::int64_t> output(values.begin(), values.begin() + static_cast<long>(nd));
    // Compiled once: evaluated at up to max_enumerated_points points (evaluate()'s arithmetic).
    std::vector<std::pair<simplify::CompiledExpr, Interval>> constraints;
    for (const auto& c : d.constraints()) constraints.emplace_back(simplify::CompiledExpr(c.expr), c.interval);
    std::vector<simplify::CompiledExpr> results;
    for (const auto& e : map.results()) results.emplace_back(e);
    for (std::int64_t visited = 0;; ++visited) {
      if (visited % 65536 == 0) check_time();
      const std::span<const std::int64_t> all(values);
      const simplify::VarValues at{all.subspan(0, nd), all.subspan(nd, nr), all.subspan(nd + nr)};
      const bool feasible = std::all_of(constraints.begin(), constraints.end(),
                                        [&](const auto& c) { return c.second.contains(c.first(at)); });
      if (!std::equal(output.begin(), output.end(), values.begin())) {
        flush();
        output.assign(values.begin(), values.begin() + static_cast<long>(nd));
      }
      if (feasible) {
        std::vector<std::int64_t> element;
        element.reserve(results.size());
        for (const simplify::CompiledExpr& e : results) element.push_back(e(at));
        group.push_back(std::move(element));
      }
      std::size_t k = vars.size();
      for (; k-- > 0;) {
        if (values[k] < d.bounds(vars[k]).hi) {
          ++values[k];
          break;
        }
        values[k] = d.bounds(vars[k]).lo;
      }
      if (k == static_cast<std::size_t>(-1)) break;
    }
    flush();
  }

  // The map restricted to the elements of a block of cells of one slice.
  IndexingMap restricted(const IndexingMap& map, std::size_t slice, Span rows, Span columns) const {
    IndexingMap out = map;
    const HeatSlice& s = m_map.slices[slice];
    for (std::size_t k = 0; k < s.index.size() && out.is_defined(); ++k)
      out.add_constraint(out.results()[k], Interval::point(s.index[k]));
    if (m_map.rows.dim && out.is_defined())
      out.add_constraint(out.results()[*m_map.rows.dim], {m_map.rows.first(rows.lo), m_map.rows.last(rows.hi)});
    if (m_map.columns.dim && out.is_defined())
      out.add_constraint(out.results()[*m_map.columns.dim],
                         {m_map.columns.first(columns.lo), m_map.columns.last(columns.hi)});
    return out;
  }

  // Counts a block and splits it in two along its longer side until it reads
  // nothing or is one cell. `reached`: only whether anything is read (may_read).
  void count_block(const IndexingMap& map, std::size_t slice, Span rows, Span columns, bool reached) {
    check_time();
    m_counts = saturating_add(m_counts, count_weight(map));
    if (m_options.max_counts > 0 && m_counts > m_options.max_counts) throw OverBudget{};
    const IndexingMap part = restricted(map, slice, rows, columns);
    if (!part.is_defined()) return;  // known empty
    std::int64_t n = 0;
    if (reached) {
      const std::optional<bool> empty = indexing::is_empty(part);
      n = empty.value_or(false) ? 0 : 1;  // undecided: may read, the sound answer
    } else {
      const indexing::Count c = m_determined ? indexing::count_domain(part) : indexing::count_relation(part);
      n = c.value;
      m_map.exact = m_map.exact && c.exact;
    }
    if (n == 0) return;
    if (rows.lo == rows.hi && columns.lo == columns.hi) {
      HeatCell& cell = m_map.slices[slice].cells[static_cast<std::size_t>(rows.lo * m_map.columns.cells + columns.lo)];
      if (reached) {
        cell.may_read = true;
      } else {
        cell.reads = saturating_add(cell.reads, n);
      }
      return;
    }
    if (rows.hi - rows.lo >= columns.hi - columns.lo) {
      const std::int64_t mid = rows.lo + (rows.hi - rows.lo) / 2;
      count_block(map, slice, {rows.lo, mid}, columns, reached);
      count_block(map, slice, {mid + 1, rows.hi}, columns, reached);
    } else {
      const std::int64_t mid = columns.lo + (columns.hi - columns.lo) / 2;
      count_block(map, slice, rows, {columns.lo, mid}, reached);
      count_block(map, slice, rows, {mid + 1, columns.hi}, reached);
    }
  }

  ReadHeatmap& m_map;
  const HeatmapOptions& m_options;
  std::chrono::steady_clock::time_point m_start;
  std::int64_t m_counts = 0;
  bool m_determined = false;  // the map being counted: its pairs are its domain points
};

// The slices drawn, with the elements each cell covers.
void lay_out(ReadHeatmap& map, const HeatmapOptions& options) {
  const std::size_t rank = map.dims.size();
  if (rank == 0) {
    map.rows = axis(std::nullopt, 1, 1);
    map.columns = axis(std::nullopt, 1, 1);
  } else if (rank == 1) {
    map.rows = axis(std::nullopt, 1, 1);
    map.columns = axis(0, map.dims[0], options.max_columns);
  } else {
    map.rows = axis(rank - 2, map.dims[rank - 2], options.max_rows);
    map.columns = axis(rank - 1, map.dims[rank - 1], options.max_columns);
  }
  map.leading_slices = 1;
  for (std::size_t k = 0; k + 2 < rank; ++k) map.leading_slices = saturating_mul(map.leading_slices, map.dims[k]);
  const std::int64_t max_slices = std::max<std::int64_t>(1, options.max_slices);
  map.projected = rank > 2 && (options.slices == SliceChoice::kProject ||
                               (options.slices == SliceChoice::kAuto && map.leading_slices > max_slices));
  const std::int64_t drawn = rank <= 2 || map.projected ? 1 : std::min(map.leading_slices, max_slices);
  const std::int64_t depth = map.projected ? map.leading_slices : 1;
  for (std::int64_t s = 0; s < drawn; ++s) {
    HeatSlice slice;
    if (rank > 2 && !map.projected) {
      slice.index.assign(rank - 2, 0);
      std::int64_t rest = s;
      for (std::size_t k = rank - 2; k-- > 0;) {
        slice.index[k] = rest % map.dims[k];
        rest /= map.dims[k];
      }
    }
    slice.cells.resize(static_cast<std::size_t>(map.rows.cells * map.columns.cells));
    for (std::int64_t r = 0; r < map.rows.cells; ++r) {
      for (std::int64_t c = 0; c < map.columns.cells; ++c) {
        const std::int64_t n =
            (map.rows.last(r) - map.rows.first(r) + 1) * (map.columns.last(c) - map.columns.first(c) + 1);
        slice.cells[static_cast<std::size_t>(r * map.columns.cells + c)].elements = saturating_mul(n, depth);
      }
    }
    map.slices.push_back(std::move(slice));
  }
}

}  // namespace

double ReadHeatmap::max_mean() const {
  double most = 0;
  for (const HeatSlice& s : slices)
    for (const HeatCell& c : s.cells) most = std::max(most, c.mean());
  return most;
}

namespace {

// The heat map at the options' resolution; throws OverBudget past max_counts.
ReadHeatmap draw(const MapSet& maps, const std::vector<std::int64_t>& dims, const HeatmapOptions& options) {
  // Blocks of cells are many counts: large ones go to isl early (count.hpp).
  const indexing::ScopedCountEvaluations per_count(k_heatmap_count_evaluations);
  ReadHeatmap out;
  out.dims = dims;
  lay_out(out, options);
  Painter painter(out, options);
  try {
    for (const IndexingMap& m : maps) {
      if (!m.is_defined()) continue;
      ++out.maps;
      out.exact = out.exact && !m.approximate();
      out.runtime_offsets = out.runtime_offsets || m.runtime_count() > 0;
      out.replicas_merged = out.replicas_merged || m.has_replica_id();
      painter.add_map(m);
    }
  } catch (const TimeUp&) {
    out.slices.clear();
    out.undefined_reason = fmt::format("counting the reads took longer than {} s", options.time_limit_seconds);
    return out;
  }
  for (HeatSlice& s : out.slices)
    for (HeatCell& c : s.cells) c.may_read = c.may_read || c.reads > 0;
  return out;
}

}  // namespace

ReadHeatmap read_heatmap(const MapSet& maps, const std::vector<std::int64_t>& dims, const HeatmapOptions& options) {
  for (const IndexingMap& m : maps) {
    ReadHeatmap out;
    out.dims = dims;
    if (m.is_undefined()) {
      out.undefined_reason = m.undefined_reason().empty() ? "no indexing maps" : m.undefined_reason();
      return out;
    }
    if (m.is_defined() && m.results().size() != dims.size()) {
      out.undefined_reason =
          fmt::format("a map has {} results for an operand of rank {}", m.results().size(), dims.size());
      return out;
    }
  }
  // Maps that cost too many counts at the resolution asked are drawn with
  // cells twice as large per side until they fit: a coarser picture rather
  // than a slow one.
  HeatmapOptions o = options;
  // Counted per block, dense reads take about two counts per cell and map:
  // start at a resolution that fits the budget.
  const bool counted = std::any_of(maps.begin(), maps.end(), [&](const IndexingMap& m) {
    return m.is_defined() && box_points(pinned_runtime(m)) > options.max_enumerated_points;
  });
  // The maps' counts together, each by its weight.
  std::int64_t defined = 0;
  for (const IndexingMap& m : maps)
    if (m.is_defined()) defined = saturating_add(defined, count_weight(m));
  while (counted && o.max_counts > 0 && (o.max_rows > 1 || o.max_columns > 1)) {
    ReadHeatmap planned;
    planned.dims = dims;
    lay_out(planned, o);
    const std::int64_t cells =
        static_cast<std::int64_t>(planned.slices.size()) * planned.rows.cells * planned.columns.cells;
    if (saturating_mul(saturating_mul(cells, 2), defined) <= o.max_counts) break;
    o.max_rows = std::max<std::int64_t>(1, o.max_rows / 2);
    o.max_columns = std::max<std::int64_t>(1, o.max_columns / 2);
  }
  for (;;) {
    try {
      ReadHeatmap out = draw(maps, dims, o);
      out.coarsened = o.max_rows != options.max_rows || o.max_columns != options.max_columns;
      return out;
    } catch (const OverBudget&) {
      if (o.max_rows <= 1 && o.max_columns <= 1) {
        o.max_counts = 0;  // one cell per slice: no coarser picture; count it whatever it costs
        continue;
      }
      o.max_rows = std::max<std::int64_t>(1, o.max_rows / 2);
      o.max_columns = std::max<std::int64_t>(1, o.max_columns / 2);
    }
  }
}

const ReadHeatmap& ReadHeatmapMemo::of(const MapSet& maps, const std::vector<std::int64_t>& dims,
                                       const HeatmapOptions& options) {
  Key key;
  for (const IndexingMap& m : maps) std::get<0>(key).push_back(m_maps.intern(m));
  std::get<1>(key) = dims;
  std::get<2>(key) = {options.max_rows,
                      options.max_columns,
                      options.max_slices,
                      static_cast<std::int64_t>(options.slices),
                      options.max_enumerated_points,
                      options.max_counts};
  auto it = m_heatmaps.find(key);
  if (it == m_heatmaps.end()) it = m_heatmaps.emplace(std::move(key), read_heatmap(maps, dims, options)).first;
  return it->second;
}

MapSet operand_read_maps(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                         std::size_t operand) {
  const hlo::Module& module = analysis.module();
  const hlo::Instruction& instr = module.computations[computation].instructions[instruction];
  const indexing::InstructionIndexing indexing = analysis.indexing(computation, instruction, true, false);
  // A multi-output fusion reads over its shared loop (fused_reads.hpp), as utilisation counts it.
  if (instr.opcode == hlo::Opcode::kFusion && module.shape_of(instr).is_tuple) {
    const auto body = analysis.fused_body(computation, instruction);
    if (body->defined() && body->outputs > 1) return shared_loop_reads(*body, operand);
  }
  MapSet out;
  for (const auto& per_output : indexing.output_to_input) {
    if (operand >= per_output.size()) continue;
    for (const IndexingMap& m : per_output[operand]) {
      if (m.is_undefined()) return {m};
      if (m.is_known_empty() || std::find(out.begin(), out.end(), m) != out.end()) continue;
      out.push_back(m);
    }
  }
  return out;
}

std::optional<std::size_t> heaviest_operand(ModuleAnalysis& analysis, std::uint32_t computation,
                                            std::uint32_t instruction) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const indexing::InstructionIndexing indexing = analysis.indexing(computation, instruction, true, false);
  const InstructionUtilisation usage = utilisation(module, c, instr, indexing);
  // The operand whose picture says most: an array of more than one element before a scalar (a
  // runtime index read by every thread has the most reads and nothing to see), then the most
  // bits read (distinct elements), then the most reads.
  std::optional<std::size_t> best;
  std::tuple<bool, std::int64_t, std::int64_t> most{};
  for (const OperandUtilisation& u : usage.operands) {
    // A heatmap pictures one array: a tuple operand's leaves are arrays of their own.
    if (!u.defined() || u.tuple || u.total_reads.value == 0) continue;
    const std::int64_t bits = std::max<std::int64_t>(1, u.element_bits);
    const std::tuple<bool, std::int64_t, std::int64_t> weight{
        u.operand_elements > 1, saturating_mul(u.distinct_read.value, bits), saturating_mul(u.total_reads.value, bits)};
    if (!best || weight > most) {
      best = u.operand;
      most = weight;
    }
  }
  return best;
}

}  // namespace hlo_index::analysis

#include "indexing/analysis/coalescing.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "simplify/compiled_expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::MapSet;
using simplify::Constraint;
using simplify::Domain;
using simplify::Interval;
using simplify::VarKind;

std::string_view pattern_name(ReadPattern pattern) {
  switch (pattern) {
    case ReadPattern::kCoalesced: return "coalesced";
    case ReadPattern::kBroadcast: return "broadcast";
    case ReadPattern::kStrided: return "strided";
    case ReadPattern::kUncoalesced: return "uncoalesced";
    case ReadPattern::kIrregular: return "irregular";
  }
  return "irregular";
}

AccessSetup access_setup(AccessModel model, std::int64_t output_slots, std::int64_t operand_bits,
                         std::int64_t tile_elements, std::int64_t output_tile_elements) {
  AccessSetup s;
  s.model = model;
  s.output_slots = output_slots;
  s.operand_bits = std::max<std::int64_t>(1, operand_bits);
  if (model == AccessModel::kCpuLines) {
    s.unit_bits = 64 * 8;
    s.group_outputs = 16;
  } else if (model == AccessModel::kTpuTiles) {
    // An untiled operand on TPU is taken in 512-byte pieces.
    s.unit_bits = tile_elements > 0 ? tile_elements * s.operand_bits : 512 * 8;
    // A group is one tile of the output; one of more than 2^16 slots (a made-up layout such as
    // f32[]{:T(128,128,128,128)}: XLA's TPU tiles hold a few thousand) is taken by its first 2^16
    // slots, so that a group's work stays bounded (found by the structure-aware mutants: 17 s).
    constexpr std::int64_t k_max_group_outputs = std::int64_t{1} << 16;
    s.group_outputs = output_tile_elements > 0 ? std::min(output_tile_elements, k_max_group_outputs) : 1024;
  } else {
    s.unit_bits = 128 * 8;
  }
  return s;
}

namespace {

// A constraint of a map's domain, compiled: sampling evaluates it at every point tried.
struct SampledConstraint {
  SampledConstraint(const Constraint& c) : expr(c.expr), interval(c.interval), memo(expr.memo()) {}
  simplify::CompiledExpr expr;
  Interval interval;
  mutable simplify::CompiledExpr::Memo memo;  // for_each_read's current output position
};

// One map with its runtime variables fixed: the values every thread uses. Its result and
// constraints are compiled once (simplify/compiled_expr.hpp): sampling evaluates them at up to
// thousands of points per thread.
struct Sampled {
  explicit Sampled(const IndexingMap& m) : map(&m), offset(m.results()[0]), offset_memo(offset.memo()) {
    // Constraints without range variables hold or fail for every point of one output position:
    // checked once per position, not at each point (a chain of 200 dynamic-update-slices has
    // hundreds of them, on runtime offsets only).
    for (const Constraint& c : m.domain().constraints()) {
      SampledConstraint compiled(c);
      (compiled.expr.reads_ranges() ? constraints : fixed_constraints).push_back(std::move(compiled));
    }
    for (std::size_t k = 0; k < m.range_count(); ++k)
      range_bounds.push_back(m.domain().bounds({VarKind::kRange, static_cast<std::uint32_t>(k)}));
    lowest = simplify::RangeEvaluator(m.domain(), false)(m.results()[0]).lo;
  }
  const IndexingMap* map;
  std::vector<std::int64_t> runtimes;
  std::vector<std::size_t> order;                    // range variables, fastest first
  simplify::CompiledExpr offset;                     // the map's one result
  mutable simplify::CompiledExpr::Memo offset_memo;  // for_each_read's current output position
  std::vector<SampledConstraint> constraints;        // those that read range variables
  std::vector<SampledConstraint> fixed_constraints;  // those that do not
  std::vector<Interval> range_bounds;
  /// No offset of the map is below it (the result's bound over the domain's box): a search for the
  /// lowest read ends when it finds it (a scalar operand: its first read).
  std::int64_t lowest = 0;
};

// The domain's constraints hold at `values` (checked in their order, up to the first that fails).
bool feasible(const Sampled& s, const simplify::VarValues& values) {
  return std::all_of(s.constraints.begin(), s.constraints.end(),
                     [&](const SampledConstraint& c) { return c.interval.contains(c.expr(values, c.memo)); });
}

// Calls `f(offset)` for the feasible points of the range box of `s` at output
// offset t, in the order of s.order (fastest first), up to `budget` points
// tried; stops when f returns false.
template <typename F>
void for_each_read(const Sampled& s, std::int64_t t, std::int64_t budget, F&& f) {
  if (!s.map->domain().bounds({VarKind::kDim, 0}).contains(t)) return;
  const std::size_t n = s.range_bounds.size();
  std::vector<std::int64_t> ranges(n);
  for (std::size_t k = 0; k < n; ++k) ranges[k] = s.range_bounds[k].lo;
  const std::int64_t dims[] = {t};
  const simplify::VarValues values{dims, ranges, s.runtimes};
  // The memos hold the parts without range variables at output position t: worked out at the
  // first point, reused at the others.
  s.offset_memo.reset();
  for (const SampledConstraint& c : s.constraints) c.memo.reset();
  if (budget <= 0) return;
  // The constraints without range variables first, once: one that fails fails at every point,
  // before anything else is evaluated (a gather's thread whose row is not the one the runtime
  // offset stands for).
  for (const SampledConstraint& c : s.fixed_constraints) {
    c.memo.reset();
    if (!c.interval.contains(c.expr(values, c.memo))) return;
  }
  for (std::int64_t tried = 0; tried < budget; ++tried) {
    if (feasible(s, values) && !f(s.offset(values, s.offset_memo))) return;
    std::size_t i = 0;
    for (; i < n; ++i) {
      const std::size_t k = s.order[i];
      const Interval& b = s.range_bounds[k];
      if (ranges[k] < b.hi) {
        ++ranges[k];
        break;
      }
      ranges[k] = b.lo;
    }
    if (i == n) return;
  }
}

// A thread's read in one iteration: its lowest offset over the first points
// of its range variables (the first point for every layout we know).
std::optional<std::int64_t> first_read(const Sampled& s, std::int64_t t, std::int64_t budget) {
  std::optional<std::int64_t> best;
  for_each_read(s, t, budget, [&](std::int64_t o) {
    if (!best || o < *best) best = o;
    return *best > s.lowest;
  });
  return best;
}

// Range variables ordered by how far one step moves the offset at the first
// point, smallest nonzero first (a reduced row's minor variable first);
// XLA's row reduction has the threads of a warp walk the row in that order.
std::vector<std::size_t> stride_order(const IndexingMap& map, const std::vector<std::int64_t>& runtimes) {
  const Domain& d = map.domain();
  const std::size_t n = map.range_count();
  std::vector<std::int64_t> ranges(n);
  for (std::size_t k = 0; k < n; ++k) ranges[k] = d.bounds({VarKind::kRange, static_cast<std::uint32_t>(k)}).lo;
  const std::int64_t dims[] = {d.bounds({VarKind::kDim, 0}).lo};
  const std::int64_t base = simplify::evaluate(map.results()[0], {dims, ranges, runtimes});
  std::vector<std::pair<std::int64_t, std::size_t>> steps;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<std::int64_t> next = ranges;
    if (d.bounds({VarKind::kRange, static_cast<std::uint32_t>(k)}).hi > next[k]) ++next[k];
    const std::int64_t step = std::llabs(simplify::evaluate(map.results()[0], {dims, next, runtimes}) - base);
    steps.emplace_back(step == 0 ? std::numeric_limits<std::int64_t>::max() : step, n - 1 - k);
  }
  std::sort(steps.begin(), steps.end());
  std::vector<std::size_t> order;
  order.reserve(steps.size());
  for (const auto& [step, k] : steps) order.push_back(n - 1 - k);
  return order;
}

// Lexicographic order, the last variable fastest.
std::vector<std::size_t> lexicographic_order(std::size_t n) {
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = n - 1 - i;
  return order;
}

// Runtime variables whose value may differ between the threads of a group:
// their offset is read from an element that depends on the output position
// (a gather's index rows), or from an unknown place.
bool thread_dependent_runtime(const IndexingMap& map) {
  for (const indexing::RuntimeSource& s : map.runtime_sources()) {
    if (s.uniform) continue;
    if (!s.map || !s.map->is_defined()) return true;
    for (const simplify::Expr& e : s.map->results())
      if (simplify::uses_kind(e, VarKind::kDim)) return true;
  }
  return map.runtime_sources().size() < map.runtime_count();
}

std::vector<std::int64_t> sampled_groups(std::int64_t groups, std::int64_t max_groups) {
  std::vector<std::int64_t> out;
  if (groups <= max_groups) {
    for (std::int64_t g = 0; g < groups; ++g) out.push_back(g);
    return out;
  }
  const std::int64_t head = max_groups / 2, spread = max_groups - head;
  for (std::int64_t g = 0; g < head; ++g) out.push_back(g);
  for (std::int64_t i = 0; i < spread; ++i)
    out.push_back(head + i * (groups - head - 1) / std::max<std::int64_t>(1, spread - 1));
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Outputs per warp of a row reduction: 32 / the reads of one row (at least 1).
std::int64_t rows_per_warp(const std::vector<Sampled>& maps, const AccessSetup& setup, const CoalescingOptions& o) {
  for (std::int64_t t = 0; t < setup.output_slots; ++t) {
    std::int64_t reads = 0;
    for (const Sampled& s : maps)
      for_each_read(s, t, o.max_range_points * setup.group_outputs,
                    [&](std::int64_t) { return ++reads < setup.group_outputs; });
    if (reads > 0) return std::max<std::int64_t>(1, setup.group_outputs / reads);
  }
  return 1;
}

// The output offset step of a tile row: the stride of an output dimension
// along which the map reads consecutive operand offsets; 1 when none does.
std::int64_t tile_row_step(const std::vector<Sampled>& maps, const AccessSetup& setup, const CoalescingOptions& o) {
  for (const Sampled& s : maps) {
    const std::int64_t t = s.map->domain().bounds({VarKind::kDim, 0}).lo;
    const auto base = first_read(s, t, o.max_range_points);
    if (!base) continue;
    for (std::int64_t step : setup.output_steps) {
      const auto next = first_read(s, t + step, o.max_range_points);
      if (next && *next == *base + 1) return step;
    }
  }
  return 1;
}

// What the sampled groups add up to.
struct Totals {
  std::map<std::int64_t, std::int64_t> strides;  // stride -> pairs
  std::int64_t pairs = 0, groups = 0, transfers = 0, minimum = 0, bits_read = 0;
  bool one_element = true;  // every group read one element
};

// The fewest units the sorted offsets `reads` could take: XLA's lower bound
// ceil(bits / unit), except that alignment is the layout's doing, not the
// access pattern's: a dense run (90% of the offsets it spans read, so a slice
// dropping one element per row) needs the units it spans. Runs are split
// where the next read is a whole unit or more further on; runs of a unit or
// more count their units, shorter ones pool their bits, and no run can take
// fewer units than it spans.
std::int64_t minimum_units(const std::vector<std::int64_t>& reads, std::int64_t bits, std::int64_t unit) {
  std::int64_t pooled_bits = 0, spanned = 0, largest = 0;
  for (std::size_t begin = 0; begin < reads.size();) {
    std::size_t end = begin + 1;
    while (end < reads.size() && (reads[end] - reads[end - 1]) * bits < unit) ++end;
    const auto n = static_cast<std::int64_t>(end - begin);
    const std::int64_t span = reads[end - 1] - reads[begin] + 1;
    const std::int64_t units = (reads[end - 1] * bits) / unit - (reads[begin] * bits) / unit + 1;
    const bool dense = 10 * n >= 9 * span;
    if (dense) largest = std::max(largest, units);
    if (dense && span * bits >= unit) {
      spanned += units;
    } else {
      pooled_bits += n * bits;
    }
    begin = end;
  }
  return std::max(largest, spanned + (pooled_bits + unit - 1) / unit);
}

// The reads of one group in thread order (a thread reads one offset per
// iteration; idle threads read nothing).
void add_group(const std::vector<std::vector<std::int64_t>>& threads, const AccessSetup& setup, Totals& totals) {
  std::vector<std::int64_t> distinct;
  std::optional<std::int64_t> previous;
  for (const auto& reads : threads) {
    if (reads.empty()) continue;
    distinct.insert(distinct.end(), reads.begin(), reads.end());
    if (previous) {
      ++totals.strides[reads.front() - *previous];
      ++totals.pairs;
    }
    previous = reads.front();
  }
  if (distinct.empty()) return;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::int64_t bits = setup.operand_bits, unit = setup.unit_bits;
  std::int64_t units = 0;  // distinct units: the offsets are sorted
  for (std::size_t k = 0; k < distinct.size(); ++k)
    if (k == 0 || distinct[k] * bits / unit != distinct[k - 1] * bits / unit) ++units;
  const auto n = static_cast<std::int64_t>(distinct.size());
  const std::int64_t minimum = minimum_units(distinct, bits, unit);
  totals.transfers += units;
  totals.minimum += minimum;
  totals.bits_read += n * bits;
  totals.one_element = totals.one_element && n == 1;
  ++totals.groups;
}

// The threads of group g and their reads under the model.
std::vector<std::vector<std::int64_t>> thread_reads(const std::vector<Sampled>& maps, std::int64_t g, std::int64_t step,
                                                    const AccessSetup& setup, const CoalescingOptions& o) {
  const std::int64_t size = setup.group_outputs;
  std::vector<std::vector<std::int64_t>> threads;
  switch (setup.model) {
    case AccessModel::kGpuRowReduction: {
      // Warp g takes `step` outputs (rows shorter than a warp share it: XLA's
      // multi-row reduction) and reads each row in stride order, until full.
      std::int64_t filled = 0;
      for (std::int64_t t = g * step; t < std::min(setup.output_slots, (g + 1) * step) && filled < size; ++t) {
        for (const Sampled& s : maps) {
          for_each_read(s, t, o.max_range_points * size, [&](std::int64_t offset) {
            threads.push_back({offset});
            return ++filled < size;
          });
          if (filled >= size) break;
        }
      }
      return threads;
    }
    case AccessModel::kTpuTiles:
    case AccessModel::kCpuLines: {
      for (std::int64_t t = g * size; t < std::min(setup.output_slots, (g + 1) * size); ++t) {
        std::vector<std::int64_t> reads;
        for (const Sampled& s : maps)
          for_each_read(s, t, o.max_iterations, [&](std::int64_t offset) {
            reads.push_back(offset);
            return static_cast<std::int64_t>(reads.size()) < o.max_iterations * static_cast<std::int64_t>(maps.size());
          });
        threads.push_back(std::move(reads));
      }
      return threads;
    }
    default: {
      // Thread k of group g: output t0 + k * step (step 1: consecutive outputs).
      const std::int64_t t0 = (g % step) + (g / step) * size * step;
      for (std::int64_t k = 0; k < size && t0 + k * step < setup.output_slots; ++k) {
        std::optional<std::int64_t> first;
        for (const Sampled& s : maps) {
          auto r = first_read(s, t0 + k * step, o.max_range_points);
          if (r && (!first || *r < *first)) first = r;
        }
        threads.push_back(first ? std::vector<std::int64_t>{*first} : std::vector<std::int64_t>{});
      }
      return threads;
    }
  }
}

// Pattern from the transfers, refined by the stride most pairs share.
void classify(const Totals& totals, Coalescing& result) {
  if (totals.pairs > 0) {
    auto dominant = totals.strides.begin();
    for (auto it = totals.strides.begin(); it != totals.strides.end(); ++it)
      if (it->second > dominant->second ||
          (it->second == dominant->second && std::llabs(it->first) < std::llabs(dominant->first)))
        dominant = it;
    result.stride = dominant->first;
    result.stride_share = static_cast<double>(dominant->second) / static_cast<double>(totals.pairs);
  }
  // XLA: coalesced when the minimum is more than 90% of the transfers.
  const bool within = 10 * totals.minimum > 9 * totals.transfers;
  if (within) {
    result.pattern = totals.one_element ? ReadPattern::kBroadcast : ReadPattern::kCoalesced;
  } else {
    const bool strided = result.stride_share >= 0.5 && result.stride != 0 && std::llabs(result.stride) != 1;
    result.pattern = strided ? ReadPattern::kStrided : ReadPattern::kUncoalesced;
  }
}

// The maps of `physical` sampled for the model, the step between the
// threads of a group (tiled transpose: outputs between a tile row's threads;
// row reduction: outputs per warp) and the number of groups; or, in
// `result`, why nothing can be sampled.
struct Sampling {
  std::vector<Sampled> maps;
  std::int64_t step = 1, groups = 0;
};

std::optional<Sampling> sample(const MapSet& physical, const AccessSetup& setup, const CoalescingOptions& options,
                               Coalescing& result) {
  Sampling out;
  for (const IndexingMap& m : physical) {
    if (m.is_known_empty()) continue;
    if (m.is_undefined() || !m.is_defined()) {
      result.reason = "no indexing maps";
      return std::nullopt;
    }
    if (m.results().size() != 1 || m.dim_count() != 1) {
      result.reason = "not a map between offsets";
      return std::nullopt;
    }
    if (m.runtime_count() > 0 && thread_dependent_runtime(m)) {
      result.reason = "data-dependent: runtime offsets that differ between the threads of a group";
      return std::nullopt;
    }
    Sampled s(m);
    // A thread-uniform offset: one feasible value stands for all, as in XLA.
    for (std::size_t r = 0; r < m.runtime_count(); ++r)
      s.runtimes.push_back(m.domain().bounds({VarKind::kRuntime, static_cast<std::uint32_t>(r)}).lo);
    s.order = setup.model == AccessModel::kGpuRowReduction ? stride_order(m, s.runtimes)
                                                           : lexicographic_order(m.range_count());
    out.maps.push_back(std::move(s));
  }
  if (out.maps.empty()) {
    result.pattern = ReadPattern::kBroadcast;
    result.reason = "no thread reads the operand";
    return std::nullopt;
  }
  const std::int64_t size = std::max<std::int64_t>(1, setup.group_outputs);
  const bool rows = setup.model == AccessModel::kGpuRowReduction;
  out.step = setup.model == AccessModel::kGpuTiledTranspose ? tile_row_step(out.maps, setup, options)
             : rows                                         ? rows_per_warp(out.maps, setup, options)
                                                            : std::int64_t{1};
  out.groups = rows ? (setup.output_slots + out.step - 1) / out.step : (setup.output_slots + size - 1) / size;
  return out;
}

}  // namespace

GroupReads group_reads(const MapSet& physical, const AccessSetup& setup, std::int64_t group,
                       const CoalescingOptions& options) {
  GroupReads out;
  out.group = group;
  Coalescing why;
  std::optional<Sampling> sampling = sample(physical, setup, options, why);
  if (!sampling) {
    out.reason = why.reason;
    return out;
  }
  out.groups = sampling->groups;
  out.step = sampling->step;
  if (group >= 0 && group < sampling->groups)
    out.threads = thread_reads(sampling->maps, group, out.step, setup, options);
  return out;
}

Coalescing coalescing(const MapSet& physical, const AccessSetup& setup, const CoalescingOptions& options) {
  Coalescing result;
  result.model = setup.model;
  result.unit_bytes = std::max<std::int64_t>(1, setup.unit_bits / 8);
  std::optional<Sampling> sampling = sample(physical, setup, options, result);
  if (!sampling) return result;
  const bool rows = setup.model == AccessModel::kGpuRowReduction;
  const std::int64_t step = sampling->step;
  // TPU and CPU groups hold many outputs with their iterations: fewer of them.
  const std::int64_t max_groups = setup.model == AccessModel::kTpuTiles   ? options.max_tile_groups
                                  : setup.model == AccessModel::kCpuLines ? options.max_line_groups
                                                                          : options.max_groups;
  Totals totals;
  for (std::int64_t g : sampled_groups(sampling->groups, max_groups))
    add_group(thread_reads(sampling->maps, g, step, setup, options), setup, totals);
  result.groups_sampled = totals.groups;
  if (totals.groups == 0) {
    result.pattern = ReadPattern::kBroadcast;
    result.reason = "no thread reads the operand";
    return result;
  }
  result.transfers = static_cast<double>(totals.transfers) / static_cast<double>(totals.groups);
  result.min_transfers = static_cast<double>(totals.minimum) / static_cast<double>(totals.groups);
  result.used_fraction =
      static_cast<double>(totals.bits_read) / static_cast<double>(totals.transfers * setup.unit_bits);
  if (step != 1 && !rows) result.reason = "tile rows " + std::to_string(step) + " output elements apart";
  if (step != 1 && rows) result.reason = std::to_string(step) + " rows per warp";
  classify(totals, result);
  return result;
}

}  // namespace hlo_index::analysis

#include "indexing/analysis/coalescing.hpp"

#include <algorithm>
#include <map>
#include <optional>

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
    case ReadPattern::kIrregular: return "irregular";
  }
  return "irregular";
}

namespace {

// The lowest operand offset `map` reads for output offset `t`, trying range
// variables in lexicographic order up to a budget; nullopt if t reads none.
std::optional<std::int64_t> first_read(const IndexingMap& map, std::int64_t t, std::int64_t budget) {
  const Domain& d = map.domain();
  if (map.results().size() != 1 || map.dim_count() != 1) return std::nullopt;
  if (!d.bounds({VarKind::kDim, 0}).contains(t)) return std::nullopt;
  const std::size_t n = map.range_count();
  std::vector<std::int64_t> ranges(n);
  for (std::size_t k = 0; k < n; ++k) ranges[k] = d.bounds({VarKind::kRange, static_cast<std::uint32_t>(k)}).lo;
  const std::int64_t dims[] = {t};
  std::optional<std::int64_t> best;
  for (std::int64_t tried = 0; tried < budget; ++tried) {
    simplify::VarValues values{dims, ranges, {}};
    bool feasible = true;
    for (const Constraint& c : d.constraints())
      if (!c.interval.contains(simplify::evaluate(c.expr, values))) {
        feasible = false;
        break;
      }
    if (feasible) {
      std::int64_t offset = simplify::evaluate(map.results()[0], values);
      if (!best || offset < *best) best = offset;
    }
    // Next point of the range box, the last variable fastest.
    std::size_t k = n;
    while (k > 0) {
      --k;
      const Interval b = d.bounds({VarKind::kRange, static_cast<std::uint32_t>(k)});
      if (ranges[k] < b.hi) {
        ++ranges[k];
        break;
      }
      ranges[k] = b.lo;
      if (k == 0) return best;
    }
    if (n == 0) return best;
  }
  return best;
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

// Why the maps cannot be sampled, or "" when they can.
std::string unsampled_reason(const MapSet& physical) {
  for (const IndexingMap& m : physical) {
    if (m.is_undefined()) return "no indexing maps";
    if (m.runtime_count() > 0) return "data-dependent: runtime offsets";
  }
  return {};
}

// Each thread's first read of group `g` (none: the thread is idle).
std::vector<std::optional<std::int64_t>> group_reads(const MapSet& physical, std::int64_t g, std::int64_t output_slots,
                                                     const CoalescingOptions& options) {
  std::vector<std::optional<std::int64_t>> reads;
  for (std::int64_t t = g * options.group_size; t < std::min(output_slots, (g + 1) * options.group_size); ++t) {
    std::optional<std::int64_t> first;
    for (const IndexingMap& m : physical) {
      if (!m.is_defined()) continue;
      auto r = first_read(m, t, options.max_range_points);
      if (r && (!first || *r < *first)) first = r;
    }
    reads.push_back(first);
  }
  return reads;
}

// What the sampled groups add up to.
struct Samples {
  std::map<std::int64_t, std::int64_t> strides;  // stride -> pairs
  std::int64_t pairs = 0;
  double fraction_sum = 0;
  std::int64_t groups = 0;
};

// Idle threads (output padding, or none of the maps reads) are skipped:
// strides are between consecutive active threads.
void add_group(const std::vector<std::optional<std::int64_t>>& reads, std::int64_t operand_bits,
               const CoalescingOptions& options, Samples& samples) {
  std::map<std::int64_t, std::int64_t> segments;
  std::int64_t active = 0;
  std::optional<std::int64_t> previous;
  for (const auto& read : reads) {
    if (!read) continue;
    ++active;
    ++segments[*read * operand_bits / 8 / options.segment_bytes];
    if (previous) {
      ++samples.strides[*read - *previous];
      ++samples.pairs;
    }
    previous = read;
  }
  if (active == 0) return;
  std::int64_t largest = 0;
  for (const auto& [segment, count] : segments) largest = std::max(largest, count);
  samples.fraction_sum += static_cast<double>(largest) / static_cast<double>(active);
  ++samples.groups;
}

// The pattern of the stride most pairs share; ties go to the smaller magnitude.
void classify(const Samples& samples, Coalescing& result) {
  auto dominant = samples.strides.begin();
  for (auto it = samples.strides.begin(); it != samples.strides.end(); ++it)
    if (it->second > dominant->second ||
        (it->second == dominant->second && std::llabs(it->first) < std::llabs(dominant->first)))
      dominant = it;
  result.stride = dominant->first;
  result.stride_share = static_cast<double>(dominant->second) / static_cast<double>(samples.pairs);
  if (result.stride_share < 0.5) {
    result.reason = "no stride is shared by half of the consecutive threads";
    return;
  }
  result.pattern = result.stride == 0   ? ReadPattern::kBroadcast
                   : result.stride == 1 ? ReadPattern::kCoalesced
                                        : ReadPattern::kStrided;
}

}  // namespace

Coalescing coalescing(const MapSet& physical, std::int64_t output_slots, std::int64_t operand_bits,
                      const CoalescingOptions& options) {
  Coalescing result;
  result.reason = unsampled_reason(physical);
  if (!result.reason.empty()) return result;
  Samples samples;
  const std::int64_t groups = (output_slots + options.group_size - 1) / options.group_size;
  for (std::int64_t g : sampled_groups(groups, options.max_groups))
    add_group(group_reads(physical, g, output_slots, options), operand_bits, options, samples);
  result.groups_sampled = samples.groups;
  if (result.groups_sampled == 0) {
    result.pattern = ReadPattern::kBroadcast;
    result.reason = "no thread reads the operand";
    return result;
  }
  result.segment_fraction = samples.fraction_sum / static_cast<double>(result.groups_sampled);
  if (samples.pairs == 0) {  // groups of one active thread: one read, nothing to line up
    result.pattern = ReadPattern::kCoalesced;
    result.stride = 1;
    result.reason = "one thread per group";
    return result;
  }
  classify(samples, result);
  return result;
}

}  // namespace hlo_index::analysis

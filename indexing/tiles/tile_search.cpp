#include "indexing/tiles/tile_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/cost/memory_traffic.hpp"
#include "indexing/cost/units.hpp"

namespace hlo_index::tiles {

namespace {

std::int64_t padded(std::int64_t n) {
  std::int64_t p = 1;
  while (p < n) p *= 2;
  return p;
}

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t n = 1;
  for (std::int64_t x : v) n *= std::max<std::int64_t>(x, 1);
  return n;
}

// What pricing needs once per fusion: each instruction's work per evaluation of one element.
struct Pricing {
  struct PerElement {
    std::vector<cost::Work> work;   // flops per evaluation
    std::vector<cost::Work> whole;  // flops over the fusion's run
  };
  std::map<std::uint32_t, PerElement> by_instruction;
  double distinct_bytes_read = 0;
  std::vector<double> operand_device_bytes;  // per operand, untiled (the cost model's)
  bool fusion = false;
};

Pricing pricing(const TiledFusion& fusion, cost::CostModel& costs) {
  Pricing p;
  const cost::InstructionCost& whole = costs.cost(fusion.computation, fusion.instruction);
  p.distinct_bytes_read = static_cast<double>(whole.device_bytes_read);
  for (const cost::ArrayTraffic& a : whole.operand_reads)
    p.operand_device_bytes.push_back(
        cost::memory_kind(a.memory_space) == cost::MemoryKind::kDevice ? static_cast<double>(a.bytes()) : 0.0);
  const hlo::Module& module = costs.analysis().module();
  const hlo::Instruction& instr = module.computations[fusion.computation].instructions[fusion.instruction];
  if (instr.opcode == hlo::Opcode::kFusion) {
    p.fusion = true;
    const auto body_memo = costs.analysis().fused_body(fusion.computation, fusion.instruction);
    const analysis::FusedBody& body = *body_memo;
    if (!body.defined()) return p;
    cost::InstructionCost totals;
    for (const cost::FusedOpCost& op : costs.fused_op_costs(fusion.computation, fusion.instruction, body, totals)) {
      if (op.evaluations <= 0) continue;
      Pricing::PerElement& e = p.by_instruction[op.instruction];
      e.whole = op.work;
      for (cost::Work w : op.work) {
        w.flops /= static_cast<double>(op.evaluations);
        e.work.push_back(w);
      }
    }
  } else {
    const double elements = static_cast<double>(product(fusion.root_dims));
    Pricing::PerElement& e = p.by_instruction[fusion.instruction];
    for (cost::Work w : whole.work) {
      w.flops /= elements;
      e.work.push_back(w);
    }
  }
  return p;
}

// Bytes one tile of `sizes` (strides `strides`) moves in transfer units: per row of its minor dimension
// (in the layout), the span of that row rounded up to the unit.
double tile_bytes(const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& strides, std::size_t minor,
                  std::int64_t bits, std::int64_t unit) {
  double rows = 1, span = 1;
  for (std::size_t j = 0; j < sizes.size(); ++j) {
    const std::int64_t n = std::max<std::int64_t>(sizes[j], 1);
    if (j == minor) {
      const std::int64_t stride = j < strides.size() ? std::max<std::int64_t>(std::abs(strides[j]), 1) : 1;
      span = static_cast<double>((n - 1) * stride + 1);
    } else {
      rows *= static_cast<double>(n);
    }
  }
  const double row_bytes = std::ceil(span * static_cast<double>(bits) / 8);
  const double u = static_cast<double>(std::max<std::int64_t>(unit, 1));
  return rows * std::ceil(row_bytes / u) * u;
}

// Threads of a block whose largest tile has `elements` (padded), as XLA's tiled model gives
// them warps: up to 256 elements 1 warp, 1,024 2, 4,096 4, more 8.
std::int64_t threads_per_block(std::int64_t elements) {
  constexpr std::int64_t k_warp = 32;
  if (elements <= 256) return k_warp;
  if (elements <= 1024) return 2 * k_warp;
  if (elements <= 4096) return 4 * k_warp;
  return 8 * k_warp;
}

// The latency floor: the cores hold a limited number of blocks at once, and each round of
// them waits at least one load from memory, so many small tiles cannot keep enough bytes in
// flight to reach the bandwidth.
void add_latency(const cost::Device& device, TilingEstimate& e) {
  const std::int64_t waits = (e.k_steps + k_pipelined_steps - 1) / k_pipelined_steps;
  if (device.resident_blocks_per_core <= 0 || device.memory_latency <= 0) return;
  e.threads_per_block = threads_per_block(e.largest_tile);
  std::int64_t per_core = device.resident_blocks_per_core;
  if (device.resident_threads_per_core > 0)
    per_core = std::min(per_core, std::max<std::int64_t>(device.resident_threads_per_core / e.threads_per_block, 1));
  e.resident_blocks = std::max<std::int64_t>(device.cores, 1) * per_core;
  e.rounds = (e.tiles + e.resident_blocks - 1) / e.resident_blocks;
  e.latency_seconds = static_cast<double>(e.rounds * waits) * device.memory_latency;
}

TilingEstimate estimate(const TiledFusion& fusion, cost::CostModel& costs, const Pricing& p, const ConcreteTiling& t) {
  TilingEstimate out;
  out.sizes = t.sizes;
  out.k_tile = t.k_tile;
  out.k_steps = t.k_steps;
  out.tiles = t.tiles;
  const std::int64_t cores = std::max<std::int64_t>(costs.device().cores, 1);
  out.waves = (t.tiles + cores - 1) / cores;
  out.occupancy = static_cast<double>(t.tiles) / static_cast<double>(out.waves * cores);
  cost::InstructionCost c;
  std::map<std::pair<cost::PeakClass, cost::ComputeUnit>, double> work;
  const double tiles = static_cast<double>(t.tiles);
  const std::int64_t unit = costs.device().transfer_bytes;  // 0 on a TPU: bytes
  for (std::size_t k = 0; k < fusion.entries.size(); ++k) {
    const TiledEntry& e = fusion.entries[k];
    const ConcreteEntry& ce = t.entries[k];
    std::int64_t elements = 1, padded_elements = 1;
    for (std::size_t j = 0; j < ce.sizes.size(); ++j) elements *= std::max<std::int64_t>(ce.sizes[j], 1);
    for (const std::int64_t n : ce.step_sizes) padded_elements *= padded(std::max<std::int64_t>(n, 1));
    out.largest_tile = std::max(out.largest_tile, padded_elements);
    // Whole tiles (each K step's) times their number, each row along the layout's minor dimension in
    // transfer units. On-chip and host arrays (S(n)) move no device-memory bytes, as the cost model counts them.
    if (e.reads_memory && cost::memory_kind(e.memory_space) == cost::MemoryKind::kDevice)
      out.bytes_read += tiles * static_cast<double>(ce.steps) *
                        tile_bytes(ce.step_sizes, ce.step_strides, e.minor, e.element_bits, unit);
    if (auto it = p.by_instruction.find(e.instruction);
        it != p.by_instruction.end() && (p.fusion || e.root) && e.computes) {
      for (const cost::Work& w : it->second.work)
        work[{w.type, w.unit}] += w.flops * tiles * static_cast<double>(elements);
    }
  }
  if (!fusion.untiled_outputs.empty()) {
    // What only an untiled output reaches: its whole work and reads, once.
    for (const auto& [instruction, per] : p.by_instruction) {
      if (!p.fusion || fusion.reached(instruction)) continue;
      for (const cost::Work& w : per.whole) work[{w.type, w.unit}] += w.flops;
    }
    for (std::size_t q = 0; q < p.operand_device_bytes.size(); ++q) {
      const bool tiled = std::any_of(fusion.entries.begin(), fusion.entries.end(), [q](const TiledEntry& e) {
        return e.reads_memory && e.parameter == static_cast<std::int64_t>(q);
      });
      if (!tiled) out.bytes_read += p.operand_device_bytes[q];
    }
  }
  const std::vector<std::int64_t> ones(t.sizes.size(), 1);
  out.bytes_written = fusion.untiled_output_bytes;
  for (const TiledOutput& o : fusion.outputs) {
    if (cost::memory_kind(o.memory_space) == cost::MemoryKind::kDevice)
      out.bytes_written += tiles * tile_bytes(t.sizes, ones, o.minor, o.element_bits, unit);
  }
  for (const auto& [key, flops] : work) {
    c.work.push_back({key.first, key.second, flops});
    out.flops += flops;
  }
  c.device_bytes_read = static_cast<std::int64_t>(out.bytes_read);
  c.device_bytes_written = static_cast<std::int64_t>(out.bytes_written);
  costs.estimate_time(c, true);
  out.compute_seconds = c.compute_seconds / out.occupancy;
  out.memory_seconds = c.memory_seconds / out.occupancy;
  out.overhead_seconds = c.overhead_seconds;
  add_latency(costs.device(), out);
  out.seconds = std::max({out.compute_seconds, out.memory_seconds, out.latency_seconds}) + out.overhead_seconds;
  return out;
}

std::string why(const TilingEstimate& e, std::int64_t cores, double distinct) {
  std::string bound = e.compute_seconds >= e.memory_seconds ? "compute" : "memory";
  if (e.latency_seconds > std::max(e.compute_seconds, e.memory_seconds)) bound = "latency";
  if (e.overhead_seconds > std::max({e.compute_seconds, e.memory_seconds, e.latency_seconds})) bound = "overhead";
  std::string text = fmt::format("{} tile{} in {} wave{} of {} cores ({:.0f}% busy)", e.tiles, e.tiles == 1 ? "" : "s",
                                 e.waves, e.waves == 1 ? "" : "s", cores, 100 * e.occupancy);
  if (e.rounds > 0)
    text += fmt::format(" and {} round{} of {} resident blocks of {} threads ({} memory latency)", e.rounds,
                        e.rounds == 1 ? "" : "s", e.resident_blocks, e.threads_per_block,
                        cost::human_seconds(e.latency_seconds));
  if (e.k_tile > 0) text += fmt::format(", {} K step{} per tile", e.k_steps, e.k_steps == 1 ? "" : "s");
  text += fmt::format(", {} read", cost::human_bytes(e.bytes_read));
  if (distinct > 0) text += fmt::format(" ({:.2f}x the untiled reads)", e.bytes_read / distinct);
  text += fmt::format(", {} FLOP; {}-bound", cost::human_count(e.flops), bound);
  return text;
}

bool faster(const TilingEstimate& a, const TilingEstimate& b) {
  if (a.seconds != b.seconds) return a.seconds < b.seconds;
  if (a.bytes_read != b.bytes_read) return a.bytes_read < b.bytes_read;
  if (a.tiles != b.tiles) return a.tiles < b.tiles;
  if (a.k_steps != b.k_steps) return a.k_steps < b.k_steps;
  if (a.sizes != b.sizes) return a.sizes < b.sizes;
  return a.k_tile > b.k_tile;
}

}  // namespace

TilingEstimate estimate_tiling(const TiledFusion& fusion, cost::CostModel& costs, const ConcreteTiling& tiling) {
  const Pricing p = pricing(fusion, costs);
  TilingEstimate e = estimate(fusion, costs, p, tiling);
  e.xla_valid = fusion.all_tiled && tiling.constraints_hold;
  e.why = why(e, costs.device().cores, p.distinct_bytes_read);
  return e;
}

TileSearch search_tilings(const TiledFusion& fusion, cost::CostModel& costs, std::size_t keep) {
  TileSearch out;
  if (!fusion.undefined_reason.empty()) {
    out.note = "no maps: " + fusion.undefined_reason;
    return out;
  }
  const Pricing p = pricing(fusion, costs);
  out.distinct_bytes_read = p.distinct_bytes_read;
  const std::size_t rank = fusion.root_dims.size();
  std::vector<std::vector<std::int64_t>> choices;
  for (std::int64_t d : fusion.root_dims) choices.push_back(candidate_sizes(d));
  std::vector<KStepTiles> k_steps;
  for (const std::int64_t k : k_tile_candidates(fusion)) k_steps.push_back(k_step_tiles(fusion, k));
  std::vector<std::pair<TilingEstimate, std::size_t>> rejected;  // with its K step
  std::vector<TilingEstimate> valid;
  std::vector<std::size_t> at(rank, 0);
  std::vector<std::int64_t> sizes(rank);
  while (true) {
    std::int64_t root_elements = 1;
    for (std::size_t i = 0; i < rank; ++i) {
      sizes[i] = choices[i][at[i]];
      root_elements *= padded(sizes[i]);
    }
    for (std::size_t q = 0; q < k_steps.size(); ++q) {
      ++out.candidates;
      if (root_elements > k_max_tile_elements) continue;
      const ConcreteTiling t = concrete_tiling(fusion, sizes, false, &k_steps[q]);
      TilingEstimate e = estimate(fusion, costs, p, t);
      if (e.largest_tile > k_max_tile_elements) continue;
      e.xla_valid = fusion.all_tiled && t.constraints_hold;
      if (e.xla_valid) {
        valid.push_back(std::move(e));
      } else {
        rejected.emplace_back(std::move(e), q);
      }
    }
    bool advanced = false;
    for (std::size_t i = rank; i-- > 0;) {
      if (++at[i] < choices[i].size()) {
        advanced = true;
        break;
      }
      at[i] = 0;
    }
    if (!advanced) break;
  }
  out.xla_valid = valid.size();
  // A few that XLA rejects, the fastest as priced with whole reads where XLA has no tile, decided exactly.
  std::sort(rejected.begin(), rejected.end(), [](const auto& a, const auto& b) { return faster(a.first, b.first); });
  // The checks go to different root tiles: the K steps of one would otherwise take them all.
  std::set<std::vector<std::int64_t>> checked_sizes;
  std::erase_if(rejected, [&](const auto& r) { return !checked_sizes.insert(r.first.sizes).second; });
  constexpr std::size_t k_exact_checks = 4;
  for (std::size_t k = 0; k < rejected.size() && k < k_exact_checks; ++k) {
    ++out.checked_exactly;
    const ConcreteTiling t = concrete_tiling(fusion, rejected[k].first.sizes, true, &k_steps[rejected[k].second]);
    const bool boxes =
        t.k_steps_hold && std::all_of(t.entries.begin(), t.entries.end(), [](const ConcreteEntry& c) {
          return c.exact && c.counts_exact && std::none_of(c.whole.begin(), c.whole.end(), [](bool w) { return w; });
        });
    if (!boxes) continue;
    ++out.accepted_exactly;
    TilingEstimate e = estimate(fusion, costs, p, t);
    e.exact_check = true;
    valid.push_back(std::move(e));
  }
  std::sort(valid.begin(), valid.end(), faster);
  // One K step per root tile: the fastest (equal times: the fewest steps); the others say nothing more.
  std::set<std::vector<std::int64_t>> seen;
  std::erase_if(valid, [&](const TilingEstimate& e) { return !seen.insert(e.sizes).second; });
  if (valid.size() > keep) valid.resize(keep);
  for (TilingEstimate& e : valid) {
    e.why = why(e, costs.device().cores, p.distinct_bytes_read);
    if (e.exact_check)
      e.why += "; beyond XLA: its constraints reject these sizes, the exact counts show every tile reads a strided box";
  }
  out.best = std::move(valid);
  if (out.best.empty())
    out.note =
        fusion.all_tiled
            ? "no candidate satisfies the constraints within the block limit"
            : "XLA has no tiling (an instruction without a tile) and no candidate checked exactly reads strided boxes";
  return out;
}

std::vector<BestTiling> best_tilings(const hlo::Module& module,
                                     const std::vector<std::pair<std::uint32_t, std::uint32_t>>& instructions,
                                     const cost::Device& device) {
  analysis::ModuleAnalysis analysis(module, indexing::AnalysisOptions{});
  cost::CostModel costs(analysis, device);
  std::vector<BestTiling> out;
  for (const auto& [ci, ii] : instructions) {
    BestTiling b{ci, ii, std::nullopt, false, {}, 1};
    const TiledFusion f = tile_instruction(analysis, ci, ii);
    TileSearch search = search_tilings(f, costs, 1);
    b.xla_has_tiling = f.all_tiled;
    b.k_extent = f.k_extent;
    if (search.best.empty()) {
      b.note = std::move(search.note);
    } else {
      b.best = std::move(search.best.front());
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace hlo_index::tiles

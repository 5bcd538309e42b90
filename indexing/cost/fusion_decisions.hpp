// Fusion decisions judged in time, on the cost model (cost_model.hpp):
//
// - A fusion that recomputes a fused producer (it evaluates the producer's
//   elements more often than there are elements, by the maps): its time as
//   it is against the producer materialised in a kernel of its own (computed
//   once per element, written and read back once).
// - A producer -> consumer edge between instructions of one computation that
//   XLA's fusion rules would let it fuse (the producer fused into every
//   consumer, as XLA's priority fusion does): the time of the kernels as they
//   are against the consumers with the producer fused in (its intermediate
//   neither written nor read, its arithmetic repeated as often as each
//   consumer reads it).
//
// Both are estimates under the same roofline as the costs; what XLA's rules
// would refuse (docs/cost-model.md lists the rules modelled) is not proposed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "indexing/cost/cost_model.hpp"

namespace hlo_index::cost {

/// Materialising a recomputed producer of a fusion.
struct RecomputeDecision {
  std::uint32_t producer = 0;  // in the fused computation
  std::uint32_t consumer = 0;  // the fused instruction that re-reads it (the producer itself when none is found)
  double evaluations_per_element = 0;
  double fused_seconds = 0;         // the fusion as it is, one run
  double materialised_seconds = 0;  // the producer's kernel and the fusion reading its result
  double saved_seconds() const { return fused_seconds - materialised_seconds; }
  std::int64_t recomputed_flops = 0;    // executed beyond once per element
  std::int64_t intermediate_bytes = 0;  // the producer's result, written and read once materialised
};

/// The producer of fusion `instruction` whose materialisation saves the
/// most time, if any recomputed producer saves time.
std::optional<RecomputeDecision> best_recompute_decision(CostModel& costs, std::uint32_t computation,
                                                         std::uint32_t instruction);

/// Fusing a producer into all its consumers.
struct FusionEdgeDecision {
  std::uint32_t producer = 0;
  std::vector<std::uint32_t> consumers;  // through bitcasts
  double unfused_seconds = 0;            // the producer's kernel and the consumers', one run
  double fused_seconds = 0;              // the consumers with the producer fused in
  double saved_seconds() const { return unfused_seconds - fused_seconds; }
  std::int64_t intermediate_bytes = 0;  // written once and read by the consumers, saved by fusing
  std::int64_t recomputed_flops = 0;    // the producer's arithmetic the consumers repeat
};

/// The producer -> consumers edges of `computation` that XLA's fusion rules
/// allow and that save time, in program order of the producers.
std::vector<FusionEdgeDecision> fusion_edge_decisions(CostModel& costs, std::uint32_t computation);

/// Whether XLA's fusion passes could fuse `producer` into `consumer` (both of
/// `computation`); the reason when not. The rules modelled: the producer is an
/// elementwise, data-movement or loop-fusion instruction (no dot, convolution,
/// custom-call, collective, sort, scatter, control flow, reduction fusion);
/// the consumer is a loop or reduction fusion or a fusible op; not both with
/// a reduction of 16 or more elements; at most 96 operands and outputs.
std::optional<std::string> fusion_refused(const hlo::Module& module, const hlo::Computation& computation,
                                          std::uint32_t producer, std::uint32_t consumer);

}  // namespace hlo_index::cost

// The arithmetic of one op: FLOPs and transcendentals, by the conventions of
// XLA's HloCostAnalysis (xla/service/hlo_cost_analysis.cc), and the exact
// count where the two differ. One row per opcode (op_costs.cpp) names the
// rule that prices it; a unit test checks that every opcode has one.
//
// Conventions kept from XLA: one operation per output element of an
// elementwise op whatever its arity, 22 opcodes counted as transcendentals
// instead, 2 FLOPs per multiply-accumulate of a dot or convolution, a reducer
// applied (reduced elements - kept elements) times, sort as n ceil(log2 n).
// Where the maps make an exact count possible and XLA's differs, the exact
// one is `flops` and XLA's `xla_flops`:
// - reduce-window: XLA charges every window position (padding included)
//   size-1 reducer applications per output (a reduce-then-broadcast window,
//   N - 1 + outputs / N); the exact count applies the reducer once per real
//   element read beyond the first of each window (none for a window over
//   padding only).
// - custom-calls without published semantics: XLA reports -1 ("unknown");
//   here `known` is false with the reason, and both counts are 0.
// A fusion's FLOPs are its fused instructions' (fusion_cost.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "indexing/cost/device.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::cost {

/// How the cost model prices an op.
enum class CostRule : std::uint8_t {
  kBookkeeping,     // no kernel, no memory traffic: parameter, constant, tuple, get-tuple-element, bitcast, ...
  kDataMovement,    // reads and writes, no arithmetic: copy, transpose, slice, pad, concatenate, gather, ...
  kElementwise,     // one FLOP per output element
  kTranscendental,  // one transcendental per output element
  kDot,
  kConvolution,
  kReduce,
  kReduceWindow,
  kSelectAndScatter,
  kScatter,
  kSort,
  kFft,
  kTriangularSolve,
  kCholesky,
  kRandom,       // rng, rng-bit-generator: one transcendental per output element
  kMap,          // to_apply's FLOPs per output element
  kAllReduce,    // one FLOP per output element (XLA assumes two replicas), plus interconnect time
  kCollective,   // all-gather, all-to-all, collective-permute, ...: interconnect time, no FLOPs
  kFusion,       // its fused computation's (fusion_cost.hpp)
  kControlFlow,  // call, while, conditional, async-start: costed where their computations run
  kCustomCall,   // by target: GEMMs and convolutions; others unknown
  kUnknown,      // no row: unknown
  kCount,
};

std::string_view cost_rule_name(CostRule rule);

/// The row of `opcode`.
CostRule cost_rule(hlo::Opcode opcode);

/// The FLOPs of one instruction, as the rule of its opcode counts them.
struct OpFlops {
  std::int64_t flops = 0;  // exact count
  std::int64_t transcendentals = 0;
  std::int64_t xla_flops = 0;  // XLA's HloCostAnalysis convention
  std::int64_t xla_transcendentals = 0;
  ComputeUnit unit = ComputeUnit::kVector;  // the unit that runs them
  PeakClass type = PeakClass::kF32;         // the data type their peak is for
  bool known = true;                        // false: no semantics to count (unknown custom-call, op)
  std::string unknown_reason;
};

/// The FLOPs of instruction `instruction` of `computation`, outside any
/// fusion (a fusion gets the sum over its body: fusion_cost.hpp). `device`
/// decides whether f32 dots run as TF32. Counts past 2^63 throw
/// std::overflow_error.
OpFlops op_flops(const hlo::Module& module, const hlo::Computation& computation, std::uint32_t instruction,
                 const Device& device);

/// The FLOPs (and transcendentals) of one application of a scalar
/// computation (a reducer, comparator, map function), summing its ops.
OpFlops computation_flops(const hlo::Module& module, const hlo::Computation& computation, const Device& device);

}  // namespace hlo_index::cost

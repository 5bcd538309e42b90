// What one instruction costs on a device: the FLOPs it executes, the bytes
// it moves between memory and the chip, and the time a roofline model gives
// for them. A fusion's FLOPs are its fused instructions', each counted as
// often as the fusion evaluates it (a producer the fusion recomputes counts
// per evaluation: the maps say how often); its bytes are those its
// operands and outputs move (memory_traffic.hpp). Bookkeeping (tuples,
// get-tuple-element, bitcasts, parameters, constants, the control-flow ops
// themselves, whose computations are costed where they run) moves nothing
// and takes no time.
//
// The time is an estimate (docs/cost-model.md says what it leaves out):
// compute = FLOPs / the peak of the unit and data type that runs them,
// memory = device-memory bytes / bandwidth, plus a fixed overhead per
// kernel and, for collectives, latency + bytes on the interconnect;
// time = max(compute, memory) + overhead + collective time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/cost/device.hpp"
#include "indexing/cost/memory_traffic.hpp"
#include "indexing/cost/op_costs.hpp"

namespace hlo_index::cost {

/// FLOPs of one unit and data type (transcendentals included).
struct Work {
  PeakClass type = PeakClass::kF32;
  ComputeUnit unit = ComputeUnit::kVector;
  double flops = 0;  // as the time counts them (an f32 dot on a TPU at HIGHEST precision: six bf16 passes)
};

enum class Bound { kNone, kCompute, kMemory, kOverhead, kCollective };
std::string_view bound_name(Bound bound);

struct InstructionCost {
  bool runs = false;  // false: bookkeeping, no kernel, nothing moved

  // Arithmetic.
  std::int64_t flops = 0;  // executed: a recomputed fused producer once per evaluation
  std::int64_t transcendentals = 0;
  std::int64_t xla_flops = 0;  // XLA's HloCostAnalysis conventions (a fusion: each fused op once)
  std::int64_t xla_transcendentals = 0;
  std::vector<Work> work;
  bool flops_known = true;  // false: an op without semantics (unknown custom-call); the counts are 0
  bool flops_exact = true;  // false: evaluations past a bound or through approximate maps
  std::string flops_note;   // why not known or not exact

  // Memory.
  std::vector<ArrayTraffic> operand_reads;                       // per operand
  std::vector<ArrayTraffic> output_writes;                       // per output leaf
  std::int64_t device_bytes_read = 0, device_bytes_written = 0;  // HBM (DRAM on a CPU)
  std::int64_t on_chip_bytes = 0;                                // arrays in on-chip spaces (S(1), ...)
  std::int64_t host_bytes = 0;                                   // arrays in host memory (S(5))
  bool bytes_exact = true;
  /// Every read times its element size, over operands and maps (what
  /// `summary` once called traffic): a measure of the work of reading, not
  /// of memory traffic.
  std::int64_t logical_read_bytes = 0;
  std::int64_t collective_bytes = 0;  // sent over the interconnect per device

  // Time, seconds.
  double compute_seconds = 0, memory_seconds = 0, overhead_seconds = 0, collective_seconds = 0;
  double seconds = 0;
  Bound bound = Bound::kNone;

  std::int64_t device_bytes() const { return device_bytes_read + device_bytes_written; }
  /// FLOPs per byte of device memory moved (0 when nothing is moved).
  double intensity() const;
};

/// What one fused instruction of a fusion executes, per run of the fusion.
struct FusedOpCost {
  std::uint32_t instruction = 0;  // in the fused computation
  std::int64_t flops = 0, transcendentals = 0;
  std::vector<Work> work;
  std::int64_t evaluations = 0, elements = 0;  // evaluations of its result's elements; their number
  bool counted = false;  // evaluations from the maps (else once per element: staged for a matmul, or unknown)
};

/// How often a computation runs per run of the module.
struct Executions {
  double count = 1;
  bool exact = true;  // false: a while without a known trip count (counted once), a conditional's branch
                      // (counted every time, an upper bound), a computation the entry does not reach (once)
};

/// Sums over instructions, each weighted by how often it runs.
struct CostTotals {
  double seconds = 0, compute_seconds = 0, memory_seconds = 0, overhead_seconds = 0, collective_seconds = 0;
  double flops = 0, transcendentals = 0, device_bytes = 0, on_chip_bytes = 0, host_bytes = 0;
  std::size_t instructions = 0;  // that run (bookkeeping left out)
  std::size_t unknown = 0;       // whose FLOPs are not known
  bool exact = true;             // false: some count is a bound, or some computation's runs are
  void add(const InstructionCost& cost, Executions runs);
};

/// The costs of a module's instructions on one device, memoised per
/// instruction; one per ModuleAnalysis (and so per thread).
class CostModel {
public:
  CostModel(analysis::ModuleAnalysis& analysis, const Device& device);
  ~CostModel();

  /// The cost of one run of an instruction of a computation analysed on its
  /// own (not a fusion body).
  const InstructionCost& cost(std::uint32_t computation, std::uint32_t instruction);
  /// The same, given the instruction's output -> operand maps and utilisation from this model's
  /// analysis (a caller that has them: working them out again is a third of a cost).
  const InstructionCost& cost(std::uint32_t computation, std::uint32_t instruction,
                              const indexing::InstructionIndexing& indexing,
                              const analysis::InstructionUtilisation& counted);
  /// How often `computation` runs per run of the module (its callers' runs
  /// times trip counts).
  Executions executions(std::uint32_t computation);

  /// The fused instructions of fusion `instruction` that compute something, with what each
  /// executes; adds their sums to `totals` (FLOPs, XLA's FLOPs, work, notes). `body` is the
  /// fusion's fused_body.
  std::vector<FusedOpCost> fused_op_costs(std::uint32_t computation, std::uint32_t instruction,
                                          const analysis::FusedBody& body, InstructionCost& totals);

  /// The time of `flops_by_unit` and `device_bytes` on the device, for what-if
  /// questions (fusion decisions): the same formula as cost().
  void estimate_time(InstructionCost& cost, bool launches_kernel) const;

  const Device& device() const { return m_device; }
  analysis::ModuleAnalysis& analysis() { return m_analysis; }

private:
  /// `known`: the maps and utilisation when the caller has them, else null.
  InstructionCost compute(
      std::uint32_t computation, std::uint32_t instruction,
      const std::pair<const indexing::InstructionIndexing*, const analysis::InstructionUtilisation*>& known);
  void add_fusion_flops(std::uint32_t computation, std::uint32_t instruction, InstructionCost& out);
  void add_op_flops(std::uint32_t computation, std::uint32_t instruction,
                    const analysis::InstructionUtilisation* counted, InstructionCost& out);
  void add_traffic(std::uint32_t computation, std::uint32_t instruction, const indexing::InstructionIndexing& indexing,
                   const analysis::InstructionUtilisation& counted, InstructionCost& out);
  void add_collective(std::uint32_t computation, std::uint32_t instruction, InstructionCost& out);

  analysis::ModuleAnalysis& m_analysis;
  const Device& m_device;
  TrafficCounter m_traffic;
  std::map<std::pair<std::uint32_t, std::uint32_t>, InstructionCost> m_costs;
  std::vector<Executions> m_executions;  // by computation, worked out on first use
  std::vector<bool> m_applied;           // scalar computations that ops apply (reducers, comparators)
};

/// The module's totals: every instruction that runs in the computations analysed on their own,
/// each as often as its computation runs.
CostTotals module_totals(CostModel& costs);

}  // namespace hlo_index::cost

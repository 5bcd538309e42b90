#include "indexing/cost/cost_model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/fused_reads.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/ops/loop_counter.hpp"
#include "indexing/ops/op_maps.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::cost {

using hlo::Opcode;

std::string_view bound_name(Bound bound) {
  switch (bound) {
    case Bound::kNone: return "-";
    case Bound::kCompute: return "compute";
    case Bound::kMemory: return "memory";
    case Bound::kOverhead: return "overhead";
    case Bound::kCollective: return "collective";
  }
  return "-";
}

double InstructionCost::intensity() const {
  const std::int64_t bytes = device_bytes();
  return bytes == 0 ? 0 : static_cast<double>(flops + transcendentals) / static_cast<double>(bytes);
}

void CostTotals::add(const InstructionCost& cost, Executions runs) {
  if (!cost.runs) return;
  ++instructions;
  if (!cost.flops_known) ++unknown;
  exact = exact && runs.exact && cost.bytes_exact && cost.flops_exact && cost.flops_known;
  seconds += cost.seconds * runs.count;
  compute_seconds += cost.compute_seconds * runs.count;
  memory_seconds += cost.memory_seconds * runs.count;
  overhead_seconds += cost.overhead_seconds * runs.count;
  collective_seconds += cost.collective_seconds * runs.count;
  flops += static_cast<double>(cost.flops) * runs.count;
  transcendentals += static_cast<double>(cost.transcendentals) * runs.count;
  device_bytes += static_cast<double>(cost.device_bytes()) * runs.count;
  on_chip_bytes += static_cast<double>(cost.on_chip_bytes) * runs.count;
  host_bytes += static_cast<double>(cost.host_bytes) * runs.count;
}

namespace {

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw std::overflow_error("a byte count past 2^63");
  return out;
}

std::int64_t array_elements(const hlo::Shape& shape) {
  if (shape.is_tuple) return 0;
  return shape.element_count().value_or(0);
}

// a * b / c without overflow in the product, rounded to the nearest integer.
std::int64_t scale(std::int64_t a, std::int64_t b, std::int64_t c) {
  if (c <= 0) return 0;
  __extension__ using wide = __int128;
  const wide p = static_cast<wide>(a) * static_cast<wide>(b);
  const wide q = (p + c / 2) / c;
  if (q > static_cast<wide>(INT64_MAX)) throw std::overflow_error("a FLOP count past 2^63");
  return static_cast<std::int64_t>(q);
}

void add_work(std::vector<Work>& work, PeakClass type, ComputeUnit unit, double flops) {
  if (flops <= 0) return;
  for (Work& w : work) {
    if (w.type == type && w.unit == unit) {
      w.flops += flops;
      return;
    }
  }
  work.push_back({type, unit, flops});
}

// Passes of an f32 dot on a TPU's bf16 MXU by precision_config: DEFAULT 1, HIGH 3, HIGHEST 6.
double tpu_f32_passes(const hlo::Computation& c, const hlo::Instruction& i) {
  const std::string_view precision =
      c.attribute(i, "operand_precision").value_or(c.attribute(i, "precision_config").value_or(""));
  if (precision.find("HIGHEST") != std::string_view::npos || precision.find("highest") != std::string_view::npos)
    return 6;
  if (precision.find("HIGH") != std::string_view::npos || precision.find("high") != std::string_view::npos) return 3;
  return 1;
}

// The interconnect bytes of a collective per device: ring algorithms move (n-1)/n of the data once
// (all-gather, reduce-scatter, all-to-all) or twice (all-reduce); a permute or send moves it once.
double collective_factor(Opcode opcode, std::int64_t group) {
  const double n = static_cast<double>(std::max<std::int64_t>(group, 2));
  switch (opcode) {
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart: return 2 * (n - 1) / n;
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllToAll:
    case Opcode::kRaggedAllToAll: return (n - 1) / n;
    case Opcode::kReduceScatter: return n - 1;  // of the output, which is 1/n of the operand
    default: return 1;
  }
}

// Whether `i` stages its operands rather than reading them element by element: a dot, a
// convolution or a GEMM or convolution library call (the operands' producers run once per element).
bool stages_operands(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i) {
  switch (cost_rule(i.opcode)) {
    case CostRule::kDot:
    case CostRule::kConvolution: return true;
    case CostRule::kCustomCall: {
      const indexing::OpContext op{module, c, static_cast<std::uint32_t>(&i - c.instructions.data())};
      const indexing::CustomCallWork work = indexing::custom_call_work(op);
      return work == indexing::CustomCallWork::kMatmul || work == indexing::CustomCallWork::kConvolution;
    }
    default: return false;
  }
}

}  // namespace

CostModel::CostModel(analysis::ModuleAnalysis& analysis, const Device& device)
    : m_analysis(analysis), m_device(device), m_traffic(analysis, device) {}

CostModel::~CostModel() = default;

const InstructionCost& CostModel::cost(std::uint32_t computation, std::uint32_t instruction) {
  const auto key = std::make_pair(computation, instruction);
  if (auto it = m_costs.find(key); it != m_costs.end()) return it->second;
  return m_costs.emplace(key, compute(computation, instruction, {nullptr, nullptr})).first->second;
}

const InstructionCost& CostModel::cost(std::uint32_t computation, std::uint32_t instruction,
                                       const indexing::InstructionIndexing& indexing,
                                       const analysis::InstructionUtilisation& counted) {
  const auto key = std::make_pair(computation, instruction);
  if (auto it = m_costs.find(key); it != m_costs.end()) return it->second;
  return m_costs.emplace(key, compute(computation, instruction, {&indexing, &counted})).first->second;
}

void CostModel::estimate_time(InstructionCost& c, bool launches_kernel) const {
  c.compute_seconds = 0;
  for (const Work& w : c.work) {
    const double peak = m_device.peak(w.type, w.unit);
    if (peak > 0) c.compute_seconds += w.flops / peak;
  }
  c.memory_seconds =
      m_device.memory_bandwidth > 0 ? static_cast<double>(c.device_bytes()) / m_device.memory_bandwidth : 0;
  c.overhead_seconds = launches_kernel ? m_device.launch_overhead : 0;
  c.seconds = std::max(c.compute_seconds, c.memory_seconds) + c.overhead_seconds + c.collective_seconds;
  const double terms[] = {c.compute_seconds, c.memory_seconds, c.overhead_seconds, c.collective_seconds};
  const Bound bounds[] = {Bound::kCompute, Bound::kMemory, Bound::kOverhead, Bound::kCollective};
  c.bound = Bound::kNone;
  double most = 0;
  for (std::size_t k = 0; k < 4; ++k) {
    if (terms[k] > most) {
      most = terms[k];
      c.bound = bounds[k];
    }
  }
}

InstructionCost CostModel::compute(
    std::uint32_t computation, std::uint32_t instruction,
    const std::pair<const indexing::InstructionIndexing*, const analysis::InstructionUtilisation*>& known) {
  const hlo::Module& module = m_analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  InstructionCost out;
  const CostRule rule = cost_rule(instr.opcode);
  if (rule == CostRule::kBookkeeping || rule == CostRule::kControlFlow) return out;
  out.runs = true;
  try {
    std::optional<indexing::InstructionIndexing> own_indexing;
    std::optional<analysis::InstructionUtilisation> own_counted;
    if (known.first == nullptr) own_indexing = m_analysis.indexing(computation, instruction, true, false);
    const indexing::InstructionIndexing& indexing = known.first != nullptr ? *known.first : *own_indexing;
    if (known.second == nullptr)
      own_counted = analysis::instruction_utilisation(m_analysis, computation, instruction, indexing);
    const analysis::InstructionUtilisation& counted = known.second != nullptr ? *known.second : *own_counted;
    if (rule == CostRule::kFusion)
      add_fusion_flops(computation, instruction, out);
    else
      add_op_flops(computation, instruction, &counted, out);
    add_traffic(computation, instruction, indexing, counted, out);
    if (rule == CostRule::kAllReduce || rule == CostRule::kCollective) add_collective(computation, instruction, out);
  } catch (const std::overflow_error& e) {
    out.flops_known = false;
    out.flops_note = std::string("refused: ").append(e.what());
  }
  estimate_time(out, rule != CostRule::kCollective || m_device.target != analysis::Target::kGpu);
  return out;
}

void CostModel::add_op_flops(std::uint32_t computation, std::uint32_t instruction,
                             const analysis::InstructionUtilisation* counted, InstructionCost& out) {
  const hlo::Module& module = m_analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  OpFlops f = op_flops(module, c, instruction, m_device);
  if (!f.known) {
    out.flops_known = false;
    out.flops_note = f.unknown_reason;
    return;
  }
  const CostRule rule = cost_rule(instr.opcode);
  if (rule == CostRule::kCustomCall && f.unit == ComputeUnit::kMatrix) {
    // A GEMM or convolution library call: one multiply-accumulate per (output, operand 0) pair.
    if (counted != nullptr && !counted->operands.empty() && counted->operands[0].defined()) {
      f.flops = f.xla_flops = 2 * counted->operands[0].total_reads.value;
      out.flops_exact = counted->operands[0].total_reads.exact;
    } else {
      out.flops_known = false;
      out.flops_note = "the maps of its operand 0 are not known";
      return;
    }
  }
  out.flops = f.flops;
  out.transcendentals = f.transcendentals;
  out.xla_flops = f.xla_flops;
  out.xla_transcendentals = f.xla_transcendentals;
  double passes = 1;
  PeakClass type = f.type;
  if (f.unit == ComputeUnit::kMatrix && m_device.target == analysis::Target::kTpu && type == PeakClass::kF32) {
    passes = tpu_f32_passes(c, instr);
    type = PeakClass::kBF16;
  }
  add_work(out.work, type, f.unit, static_cast<double>(f.flops) * passes);
  add_work(out.work, PeakClass::kF32, ComputeUnit::kVector, static_cast<double>(f.transcendentals));
}

namespace {

// Every output element of the op costs the same FLOPs.
bool uniform_per_element(CostRule rule) {
  switch (rule) {
    case CostRule::kElementwise:
    case CostRule::kTranscendental:
    case CostRule::kDot:
    case CostRule::kReduce:
    case CostRule::kRandom:
    case CostRule::kMap:
    case CostRule::kAllReduce:
    case CostRule::kBookkeeping:
    case CostRule::kDataMovement:
    case CostRule::kCollective: return true;
    default: return false;
  }
}

// The same for an instruction: a nested fusion when every op it fuses is so.
bool uniform_per_element(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& instr,
                         int depth = 0) {
  if (instr.opcode != Opcode::kFusion) return uniform_per_element(cost_rule(instr.opcode));
  const hlo::Computation* body = module.callee(c, instr);
  if (body == nullptr || depth > 8) return false;
  return std::all_of(body->instructions.begin(), body->instructions.end(),
                     [&](const hlo::Instruction& i) { return uniform_per_element(module, *body, i, depth + 1); });
}

}  // namespace

std::vector<FusedOpCost> CostModel::fused_op_costs(std::uint32_t computation, std::uint32_t instruction,
                                                   const analysis::FusedBody& body, InstructionCost& totals) {
  const hlo::Module& module = m_analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Computation* callee = module.callee(c, c.instructions.at(instruction));
  std::vector<FusedOpCost> out;
  if (callee == nullptr) {
    totals.flops_known = false;
    totals.flops_note = "the fused computation is missing from the dump";
    return out;
  }
  const std::uint32_t body_index = static_cast<std::uint32_t>(callee - module.computations.data());
  if (!body.defined()) {
    totals.flops_exact = false;
    totals.flops_note = "each fused op counted once: " + body.undefined_reason;
  }
  // Which fused instructions the fusion's loop evaluates (as often as the maps say, recomputation
  // included): those with a path to the root that does not enter a dot or convolution. Matmul
  // emitters stage their operands (tiles in shared memory, VMEM): what only feeds them is computed
  // once per element, however often the product re-reads it.
  const std::size_t n = callee->instructions.size();
  std::vector<char> in_loop(n, 0);
  if (callee->root < n) in_loop[callee->root] = 1;
  for (std::size_t k = n; k-- > 0;) {
    const hlo::Instruction& i = callee->instructions[k];
    if (!in_loop[k] || stages_operands(module, *callee, i)) continue;
    for (std::uint32_t o : callee->operands_of(i))
      if (o < n) in_loop[o] = 1;
  }
  for (std::uint32_t k = 0; k < callee->instructions.size(); ++k) {
    const hlo::Instruction& fused = callee->instructions[k];
    InstructionCost part;
    if (fused.opcode == Opcode::kFusion) {
      fused_op_costs(body_index, k, *m_analysis.fused_body(body_index, k), part);
    } else {
      const CostRule rule = cost_rule(fused.opcode);
      if (rule == CostRule::kBookkeeping || rule == CostRule::kDataMovement) continue;
      add_op_flops(body_index, k, nullptr, part);
    }
    if (!part.flops_known) {
      totals.flops_known = false;
      totals.flops_note = part.flops_note;
      continue;
    }
    totals.xla_flops += part.xla_flops;
    totals.xla_transcendentals += part.xla_transcendentals;
    // Executed: as often as the fusion evaluates the op, per element of its result.
    FusedOpCost op{k, 0, 0, {}, 0, array_elements(indexing::leaf_shape(module.shape_of(fused), 0)), false};
    if (body.defined() && in_loop[k] && op.elements > 0) {
      // A variadic op computes all its results at each position: evaluated wherever any is read.
      const std::size_t results = std::max<std::size_t>(1, indexing::leaf_shapes(module.shape_of(fused)).size());
      for (std::size_t r = 0; r < results; ++r) {
        const analysis::Evaluations e = analysis::fused_evaluations(body, k, r);
        op.evaluations = std::max(op.evaluations, e.count);
        if (!e.exact) totals.flops_exact = false;
      }
      op.counted = true;
      // Some output elements cost more than others (windows or kernels meeting padding): the
      // average scales a subset only approximately.
      if (op.evaluations != op.elements && !uniform_per_element(module, *callee, fused)) totals.flops_exact = false;
    }
    const std::int64_t flops = op.counted ? scale(part.flops, op.evaluations, op.elements) : part.flops;
    const std::int64_t transcendentals =
        op.counted ? scale(part.transcendentals, op.evaluations, op.elements) : part.transcendentals;
    op.flops = flops;
    op.transcendentals = transcendentals;
    totals.flops += flops;
    totals.transcendentals += transcendentals;
    const double factor = op.counted ? static_cast<double>(op.evaluations) / static_cast<double>(op.elements) : 1.0;
    for (const Work& w : part.work) {
      add_work(op.work, w.type, w.unit, w.flops * factor);
      add_work(totals.work, w.type, w.unit, w.flops * factor);
    }
    out.push_back(std::move(op));
  }
  return out;
}

void CostModel::add_fusion_flops(std::uint32_t computation, std::uint32_t instruction, InstructionCost& out) {
  fused_op_costs(computation, instruction, *m_analysis.fused_body(computation, instruction), out);
}

namespace {

// An output written in place over an operand's buffer: a dynamic-update-slice or scatter, on its own
// or the root (or an element of a root tuple) of a fusion, whose operand 0 is the instruction's
// operand `operand` (in a fusion: a parameter, through bitcasts). XLA aliases the two buffers, so
// the operand is not copied: only the updated elements are written (and a scatter reads the old
// values it combines with).
struct InPlace {
  std::size_t operand = 0, output = 0;
  std::uint32_t computation = 0, instruction = 0;  // the dynamic-update-slice or scatter
  std::size_t target = 0;                          // its operand that the output aliases
  std::size_t updates = 0;                         // its operand that holds the new values
  std::size_t result = 0;                          // its result (a variadic scatter has several)
};

std::optional<std::uint32_t> through_bitcasts(const hlo::Computation& c, std::uint32_t i) {
  while (i < c.instructions.size() && c.instructions[i].opcode == Opcode::kBitcast &&
         c.instructions[i].operand_count == 1)
    i = c.operands_of(c.instructions[i])[0];
  return i < c.instructions.size() ? std::optional<std::uint32_t>(i) : std::nullopt;
}

bool depends_on_runtime(const indexing::MapSet& maps) {
  return std::any_of(maps.begin(), maps.end(), [](const indexing::IndexingMap& m) { return m.runtime_count() > 0; });
}

bool updates_in_place(Opcode op) { return op == Opcode::kDynamicUpdateSlice || op == Opcode::kScatter; }

// The results of a dynamic-update-slice or scatter, each with the operand it overwrites and the one
// holding its updates: a dynamic-update-slice (target, update, offsets...); a scatter with n results
// (targets 0..n-1, indices, updates n+1..2n).
std::vector<InPlace> in_place_results(const hlo::Module& module, std::uint32_t computation, std::uint32_t instruction) {
  const hlo::Instruction& instr = module.computations[computation].instructions[instruction];
  std::vector<InPlace> out;
  if (instr.opcode == Opcode::kDynamicUpdateSlice && instr.operand_count >= 2 && !module.shape_of(instr).is_tuple) {
    out.push_back({0, 0, computation, instruction, 0, 1, 0});
  } else if (instr.opcode == Opcode::kScatter && instr.operand_count >= 3 && instr.operand_count % 2 == 1) {
    const std::size_t n = (instr.operand_count - 1) / 2;
    for (std::size_t k = 0; k < n; ++k) out.push_back({k, k, computation, instruction, k, n + 1 + k, k});
  }
  return out;
}

std::vector<InPlace> in_place_outputs(const hlo::Module& module, std::uint32_t computation, std::uint32_t instruction) {
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  if (updates_in_place(instr.opcode)) return in_place_results(module, computation, instruction);
  std::vector<InPlace> out;
  if (instr.opcode != Opcode::kFusion) return out;
  const hlo::Computation* body = module.callee(c, instr);
  if (body == nullptr || body->root >= body->instructions.size()) return out;
  const auto body_index = static_cast<std::uint32_t>(body - module.computations.data());
  std::vector<std::uint32_t> roots{body->root};
  if (body->instructions[body->root].opcode == Opcode::kTuple) {
    const auto elements = body->operands_of(body->instructions[body->root]);
    roots.assign(elements.begin(), elements.end());
  }
  // A tuple root's elements are outputs one by one; a variadic scatter as the root has one per result.
  const bool root_tuple = roots.size() > 1 || roots[0] != body->root;
  std::size_t output = 0;
  for (const std::uint32_t element : roots) {
    const auto root = through_bitcasts(*body, element);
    const std::vector<InPlace> results = root ? in_place_results(module, body_index, *root) : std::vector<InPlace>{};
    const std::size_t outputs = root_tuple && !results.empty() ? results.size() : 1;
    if (root_tuple && results.size() > 1) {
      output += outputs;  // a variadic scatter inside a tuple: nested leaves, not followed
      continue;
    }
    for (InPlace p : results) {
      const auto target = through_bitcasts(*body, body->operands_of(body->instructions[*root])[p.target]);
      if (!target || body->instructions[*target].opcode != Opcode::kParameter) continue;
      p.operand = static_cast<std::size_t>(body->instructions[*target].parameter_number);
      p.output = output + p.result;
      out.push_back(p);
    }
    output += outputs;
  }
  return out;
}

}  // namespace

void CostModel::add_traffic(std::uint32_t computation, std::uint32_t instruction,
                            const indexing::InstructionIndexing& indexing,
                            const analysis::InstructionUtilisation& counted, InstructionCost& out) {
  const hlo::Module& module = m_analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  const hlo::Shape& shape = module.shape_of(instr);
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  const auto operands = c.operands_of(instr);
  std::vector<ArrayTraffic> tuple_leaves_read;  // leaves of tuple operands, each whole (an upper bound)
  for (std::size_t j = 0; j < operands.size(); ++j) {
    const hlo::Shape& operand = module.shape_of(c.instructions[operands[j]]);
    ArrayTraffic t;
    const analysis::OperandUtilisation* u = j < counted.operands.size() ? &counted.operands[j] : nullptr;
    if (u != nullptr) out.logical_read_bytes = saturating_add(out.logical_read_bytes, u->read_traffic_bytes());
    if (operand.is_tuple) {
      for (const hlo::Shape* leaf : indexing::leaf_shapes(operand)) {
        ArrayTraffic w = m_traffic.whole(*leaf);
        w.exact = false;
        tuple_leaves_read.push_back(w);
      }
    } else if (u == nullptr || !u->defined()) {
      t = m_traffic.whole(operand);  // maps unknown: the whole operand, an upper bound
      t.exact = false;
    } else {
      std::vector<indexing::MapSet> maps(indexing.output_to_input.size());
      for (std::size_t k = 0; k < indexing.output_to_input.size(); ++k)
        if (j < indexing.output_to_input[k].size()) maps[k] = indexing.output_to_input[k][j];
      t = m_traffic.units_reached(operand, maps, u->distinct_read.value,
                                  u->distinct_read.exact && !u->depends_on_runtime);
    }
    out.operand_reads.push_back(t);
  }
  for (const hlo::Shape* leaf : leaves) out.output_writes.push_back(m_traffic.whole(*leaf));
  for (const InPlace& p : in_place_outputs(module, computation, instruction)) {
    if (p.operand >= out.operand_reads.size() || p.output >= out.output_writes.size()) continue;
    const hlo::Computation& holder = module.computations[p.computation];
    const hlo::Instruction& update = holder.instructions[p.instruction];
    const hlo::Shape& updates_shape = module.shape_of(holder.instructions[holder.operands_of(update)[p.updates]]);
    const std::vector<indexing::MapSet> to_output =
        m_analysis.maps().input_to_output(p.computation, p.instruction, p.updates);
    if (p.result >= to_output.size()) continue;
    // Runtime offsets or indices: one execution's position, not known here.
    const bool fixed = !depends_on_runtime(to_output[p.result]);
    const std::int64_t updated = updates_shape.element_count().value_or(0);
    const ArrayTraffic written = m_traffic.units_reached(*leaves[p.output], {to_output[p.result]}, updated, fixed);
    out.output_writes[p.output] = written;
    // Not copied: of the aliased operand, only what a scatter combines with, and what other uses in a
    // fusion read (a read-modify-write of a slice).
    const hlo::Shape& aliased = module.shape_of(c.instructions[operands[p.operand]]);
    ArrayTraffic read = out.operand_reads[p.operand];
    read.units = 0;
    read.exact = true;
    if (update.opcode == Opcode::kScatter)
      read = m_traffic.units_reached(aliased, {to_output[p.result]}, updated, fixed);
    if (p.computation != computation) {
      const auto body_memo = m_analysis.fused_body(computation, instruction);
      const analysis::FusedBody& body = *body_memo;
      std::vector<indexing::MapSet> others(leaves.size());
      bool any = false;
      if (body.defined() && p.operand < body.parameter_uses.size()) {
        for (const analysis::FusedUse& use : body.parameter_uses[p.operand]) {
          if (use.user == p.instruction && use.position == p.target) continue;
          if (module.computations[p.computation].instructions[use.user].opcode == Opcode::kBitcast) continue;
          for (std::size_t k = 0; k < use.maps.size() && k < others.size(); ++k) {
            others[k].insert(others[k].end(), use.maps[k].begin(), use.maps[k].end());
            any = any || !use.maps[k].empty();
          }
        }
      }
      if (!body.defined()) {
        read = out.operand_reads[p.operand];  // the reads as counted, an upper bound
      } else if (any) {
        bool others_fixed = true;
        for (const indexing::MapSet& maps : others) others_fixed = others_fixed && !depends_on_runtime(maps);
        const ArrayTraffic rest = m_traffic.units_reached(aliased, others, -1, others_fixed);
        read.units += rest.units;
        read.exact = read.exact && rest.exact;
      }
    }
    out.operand_reads[p.operand] = read;
  }
  auto account = [&](const ArrayTraffic& t, bool read) {
    if (!t.exact) out.bytes_exact = false;
    switch (memory_kind(t.memory_space)) {
      case MemoryKind::kDevice: (read ? out.device_bytes_read : out.device_bytes_written) += t.bytes(); break;
      case MemoryKind::kOnChip: out.on_chip_bytes = saturating_add(out.on_chip_bytes, t.bytes()); break;
      case MemoryKind::kHost: out.host_bytes = saturating_add(out.host_bytes, t.bytes()); break;
    }
  };
  for (const ArrayTraffic& t : out.operand_reads) account(t, true);
  for (const ArrayTraffic& t : tuple_leaves_read) account(t, true);
  for (const ArrayTraffic& t : out.output_writes) account(t, false);
}

void CostModel::add_collective(std::uint32_t computation, std::uint32_t instruction, InstructionCost& out) {
  const hlo::Module& module = m_analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  std::int64_t group = 0;
  if (auto groups = c.attribute(instr, "replica_groups")) group = parser::replica_group_size(*groups).value_or(0);
  std::int64_t bytes = 0;
  for (const ArrayTraffic& t : out.output_writes) bytes = saturating_add(bytes, t.bytes());
  const double moved = static_cast<double>(bytes) * collective_factor(instr.opcode, group);
  out.collective_bytes = static_cast<std::int64_t>(std::llround(moved));
  out.collective_seconds =
      m_device.collective_latency + (m_device.interconnect_bandwidth > 0 ? moved / m_device.interconnect_bandwidth : 0);
}

Executions CostModel::executions(std::uint32_t computation) {
  const hlo::Module& module = m_analysis.module();
  if (m_executions.empty()) {
    const std::size_t n = module.computations.size();
    m_executions.assign(n, Executions{0, true});
    // Control flow runs its computations; a reducer or comparator runs inside its op, a fused
    // computation inside its fusion.
    auto for_each_callee = [&](std::uint32_t ci, auto f) {
      const hlo::Computation& c = module.computations[ci];
      for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
        const hlo::Instruction& i = c.instructions[ii];
        if (!indexing::reads_tuple_leaves_by_result(i.opcode)) continue;
        for (std::uint32_t callee : c.callees_of(i))
          if (callee < n) f(ii, callee);
      }
    };
    // The computations the entry reaches, and for each how many call sites among them call it.
    std::vector<char> reached(n, 0);
    std::vector<std::uint32_t> callers_left(n, 0), stack;
    if (module.entry < n) {
      reached[module.entry] = 1;
      stack.push_back(module.entry);
    }
    while (!stack.empty()) {
      const std::uint32_t ci = stack.back();
      stack.pop_back();
      for_each_callee(ci, [&](std::uint32_t, std::uint32_t callee) {
        ++callers_left[callee];
        if (!reached[callee]) {
          reached[callee] = 1;
          stack.push_back(callee);
        }
      });
    }
    // In call order: a computation's runs are final once every call site has added its share (the
    // verifier rejects recursion, so every reached computation gets there).
    if (module.entry < n) {
      m_executions[module.entry] = {1, true};
      stack.push_back(module.entry);
    }
    while (!stack.empty()) {
      const std::uint32_t ci = stack.back();
      stack.pop_back();
      const hlo::Computation& c = module.computations[ci];
      const Executions here = m_executions[ci];
      for_each_callee(ci, [&](std::uint32_t ii, std::uint32_t callee) {
        const hlo::Instruction& i = c.instructions[ii];
        double times = here.count;
        bool exact = here.exact;
        if (i.opcode == Opcode::kWhile) {
          const auto trips = indexing::loop_trip_count(module, c, ii);
          if (trips) {
            times *= static_cast<double>(trips->trips);
          } else {
            exact = false;  // counted once
          }
        } else if (i.opcode == Opcode::kConditional) {
          exact = false;  // each branch as often as the conditional: an upper bound
        }
        Executions& e = m_executions[callee];
        e.count += times;
        e.exact = e.exact && exact;
        if (--callers_left[callee] == 0) stack.push_back(callee);
      });
    }
  }
  if (computation >= m_executions.size()) return {};
  // A computation the entry does not reach (one a truncated dump cut off from its callers, or dead
  // code): counted once, not exact; a reducer or comparator runs inside the op that applies it.
  if (m_executions[computation].count == 0) {
    if (m_applied.empty()) m_applied = analysis::scalar_computations(module);
    return computation < m_applied.size() && m_applied[computation] ? Executions{0, true} : Executions{1, false};
  }
  return m_executions[computation];
}

CostTotals module_totals(CostModel& costs) {
  const hlo::Module& module = costs.analysis().module();
  CostTotals totals;
  for (std::uint32_t ci : analysis::analysed_computations(module)) {
    const Executions runs = costs.executions(ci);
    if (runs.count == 0) continue;
    for (std::uint32_t ii = 0; ii < module.computations[ci].instructions.size(); ++ii)
      totals.add(costs.cost(ci, ii), runs);
  }
  return totals;
}

}  // namespace hlo_index::cost

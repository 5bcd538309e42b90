#include "indexing/cost/fusion_decisions.hpp"

#include <algorithm>
#include <set>

#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/count.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::cost {

using hlo::Opcode;

namespace {

// XLA's limit on a fusion's operands and outputs (gpu_fusible.cc, "Number of operands and output
// buffers is larger than allowed budget per fusion").
constexpr std::size_t k_max_fusion_buffers = 96;
// Both sides holding a reduction of this many elements or more are not fused (priority_fusion.cc).
constexpr std::int64_t k_min_reduction_both_sides = 16;

std::int64_t elements_of(const hlo::Shape& shape) { return shape.is_tuple ? 0 : shape.element_count().value_or(0); }

// The largest number of elements one output element of a reduce inside `i` (a reduce, or a fusion
// holding one) combines; 0 without a reduce.
std::int64_t largest_reduction(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i) {
  auto of = [&](const hlo::Computation& holder, const hlo::Instruction& r) -> std::int64_t {
    if (r.opcode != Opcode::kReduce || r.operand_count == 0) return 0;
    const std::int64_t in = elements_of(module.shape_of(holder.instructions[holder.operands_of(r)[0]]));
    const std::int64_t out = std::max<std::int64_t>(1, elements_of(indexing::leaf_shape(module.shape_of(r), 0)));
    return in / out;
  };
  if (i.opcode != Opcode::kFusion) return of(c, i);
  const hlo::Computation* body = module.callee(c, i);
  std::int64_t most = 0;
  if (body != nullptr)
    for (const hlo::Instruction& r : body->instructions) most = std::max(most, of(*body, r));
  return most;
}

std::string_view fusion_kind(const hlo::Computation& c, const hlo::Instruction& i) {
  return c.attribute(i, "kind").value_or("");
}

// Ops XLA's priority fusion fuses (gpu_fusible.cc IsFusible, less what it fuses only in special cases).
bool fusible_op(Opcode op) {
  switch (cost_rule(op)) {
    case CostRule::kElementwise:
    case CostRule::kTranscendental: return true;
    case CostRule::kDataMovement:
      return op == Opcode::kBroadcast || op == Opcode::kConcatenate || op == Opcode::kCopy ||
             op == Opcode::kDynamicSlice || op == Opcode::kDynamicUpdateSlice || op == Opcode::kGather ||
             op == Opcode::kIota || op == Opcode::kPad || op == Opcode::kReshape || op == Opcode::kReverse ||
             op == Opcode::kSlice || op == Opcode::kTranspose;
    default: return false;
  }
}

std::optional<std::string> producer_refused(const hlo::Module& module, const hlo::Computation& c,
                                            const hlo::Instruction& p) {
  if (module.shape_of(p).is_tuple) return "its result is a tuple (a multi-output producer)";
  if (p.opcode == Opcode::kFusion) {
    if (fusion_kind(c, p) != "kLoop") return "it is a reduction, matmul or custom fusion";
    return std::nullopt;
  }
  if (!fusible_op(p.opcode)) return "XLA does not fuse it as a producer";
  return std::nullopt;
}

std::optional<std::string> consumer_refused(const hlo::Module& module, const hlo::Computation& c,
                                            const hlo::Instruction& u) {
  (void)module;
  if (u.opcode == Opcode::kFusion) {
    const std::string_view kind = fusion_kind(c, u);
    if (kind != "kLoop" && kind != "kInput") return "it is a matmul or custom fusion";
    return std::nullopt;
  }
  if (u.opcode == Opcode::kReduce || u.opcode == Opcode::kReduceWindow) return std::nullopt;
  if (!fusible_op(u.opcode)) return "XLA does not fuse into it";
  return std::nullopt;
}

// The instructions of `c` that read `i`, through bitcasts (a bitcast costs nothing and is fused
// wherever its operand goes); `through` collects the bitcasts crossed.
void real_users(const hlo::Computation& c, const std::vector<std::vector<std::uint32_t>>& users, std::uint32_t i,
                std::vector<std::uint32_t>& out) {
  for (std::uint32_t u : users[i]) {
    if (c.instructions[u].opcode == Opcode::kBitcast) {
      real_users(c, users, u, out);
    } else if (std::find(out.begin(), out.end(), u) == out.end()) {
      out.push_back(u);
    }
  }
}

// Whether `operand` of `c` is `producer` or a bitcast of it.
bool reads_producer(const hlo::Computation& c, std::uint32_t operand, std::uint32_t producer) {
  while (operand != producer && operand < c.instructions.size() && c.instructions[operand].opcode == Opcode::kBitcast &&
         c.instructions[operand].operand_count == 1)
    operand = c.operands_of(c.instructions[operand])[0];
  return operand == producer;
}

void add_scaled(std::vector<Work>& into, const std::vector<Work>& work, double factor) {
  for (const Work& w : work) {
    auto it =
        std::find_if(into.begin(), into.end(), [&](const Work& x) { return x.type == w.type && x.unit == w.unit; });
    if (it == into.end()) {
      into.push_back({w.type, w.unit, 0});
      it = std::prev(into.end());
    }
    it->flops = std::max(0.0, it->flops + w.flops * factor);
  }
}

std::int64_t device_bytes(const ArrayTraffic& t) {
  return memory_kind(t.memory_space) == MemoryKind::kDevice ? t.bytes() : 0;
}

// The bytes of `elements` elements of `bits` each in whole transfer units of the device.
std::int64_t in_units(std::int64_t elements, std::int64_t bits, const Device& device) {
  const std::int64_t unit = device.transfer_bytes > 0 ? device.transfer_bytes : device.untiled_transfer_bytes;
  const std::int64_t bytes = (elements * bits + 7) / 8;
  return unit <= 0 ? bytes : (bytes + unit - 1) / unit * unit;
}

std::int64_t element_bits(const hlo::Shape& shape) {
  if (shape.is_tuple) return 0;
  if (shape.layout && shape.layout->element_size_bits > 0) return shape.layout->element_size_bits;
  return hlo::element_type_bits(shape.type);
}

}  // namespace

std::optional<std::string> fusion_refused(const hlo::Module& module, const hlo::Computation& computation,
                                          std::uint32_t producer, std::uint32_t consumer) {
  const hlo::Instruction& p = computation.instructions.at(producer);
  const hlo::Instruction& u = computation.instructions.at(consumer);
  if (auto why = producer_refused(module, computation, p)) return why;
  if (auto why = consumer_refused(module, computation, u)) return why;
  if (largest_reduction(module, computation, p) >= k_min_reduction_both_sides &&
      largest_reduction(module, computation, u) >= k_min_reduction_both_sides)
    return "both hold a reduction";
  if (p.operand_count + u.operand_count - 1 + indexing::leaf_count(module.shape_of(u)) > k_max_fusion_buffers)
    return "the fusion would have more than 96 operands and outputs";
  return std::nullopt;
}

std::optional<RecomputeDecision> best_recompute_decision(CostModel& costs, std::uint32_t computation,
                                                         std::uint32_t instruction) {
  analysis::ModuleAnalysis& analysis = costs.analysis();
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& fusion = c.instructions.at(instruction);
  const hlo::Computation* body_c = module.callee(c, fusion);
  if (fusion.opcode != Opcode::kFusion || body_c == nullptr) return std::nullopt;
  const InstructionCost& whole = costs.cost(computation, instruction);
  if (!whole.runs || !whole.flops_known || !whole.flops_exact) return std::nullopt;
  const auto body_memo = analysis.fused_body(computation, instruction);
  const analysis::FusedBody& body = *body_memo;
  if (!body.defined()) return std::nullopt;
  InstructionCost scratch;
  const std::vector<FusedOpCost> ops = costs.fused_op_costs(computation, instruction, body, scratch);
  std::vector<const FusedOpCost*> by_instruction(body_c->instructions.size(), nullptr);
  for (const FusedOpCost& op : ops) by_instruction[op.instruction] = &op;
  std::optional<RecomputeDecision> best;
  for (const FusedOpCost& op : ops) {
    if (!op.counted || op.instruction == body_c->root || op.evaluations <= op.elements) continue;
    const analysis::Evaluations e = analysis::fused_evaluations(body, op.instruction, 0);
    if (e.maps.empty() || !e.exact) continue;
    const indexing::Count distinct = indexing::count_union_image(e.maps);
    if (!distinct.exact || distinct.value == 0 || e.count <= distinct.value) continue;
    // The producer's cone: it and the fused instructions it is computed from.
    std::vector<Work> cone_work;
    std::set<std::size_t> parameters;
    std::int64_t cone_flops = 0;
    std::vector<std::uint32_t> stack{op.instruction};
    std::set<std::uint32_t> seen{op.instruction};
    while (!stack.empty()) {
      const std::uint32_t i = stack.back();
      stack.pop_back();
      const hlo::Instruction& fused = body_c->instructions[i];
      if (fused.opcode == Opcode::kParameter) parameters.insert(static_cast<std::size_t>(fused.parameter_number));
      if (const FusedOpCost* cost = by_instruction[i]) {
        add_scaled(cone_work, cost->work, 1);
        cone_flops += cost->flops + cost->transcendentals;
      }
      for (std::uint32_t o : body_c->operands_of(fused))
        if (seen.insert(o).second) stack.push_back(o);
    }
    const double once = static_cast<double>(distinct.value) / static_cast<double>(e.count);
    const hlo::Shape& shape = indexing::leaf_shape(module.shape_of(body_c->instructions[op.instruction]), 0);
    const std::int64_t intermediate = in_units(distinct.value, element_bits(shape), costs.device());
    // The producer's own kernel: its cone once per element, reading what the cone reads.
    InstructionCost producer;
    producer.runs = true;
    add_scaled(producer.work, cone_work, once);
    for (std::size_t p : parameters)
      if (p < whole.operand_reads.size()) producer.device_bytes_read += device_bytes(whole.operand_reads[p]);
    producer.device_bytes_written = intermediate;
    costs.estimate_time(producer, true);
    // The fusion reading the result instead of computing it (its other reads stay).
    InstructionCost rest = whole;
    add_scaled(rest.work, cone_work, -1);
    rest.device_bytes_read += intermediate;
    costs.estimate_time(rest, true);
    RecomputeDecision d;
    d.producer = op.instruction;
    d.consumer = op.instruction;
    d.evaluations_per_element = static_cast<double>(e.count) / static_cast<double>(distinct.value);
    d.fused_seconds = whole.seconds;
    d.materialised_seconds = producer.seconds + rest.seconds;
    d.recomputed_flops = static_cast<std::int64_t>(static_cast<double>(cone_flops) * (1 - once));
    d.intermediate_bytes = intermediate;
    // The fused instruction that re-reads it: a user whose map to it has range variables or drops dimensions.
    for (std::uint32_t u = 0; u < body_c->instructions.size() && d.consumer == d.producer; ++u) {
      const auto operands = body_c->operands_of(body_c->instructions[u]);
      for (std::size_t k = 0; k < operands.size(); ++k) {
        if (operands[k] != op.instruction) continue;
        const std::vector<indexing::MapSet> maps =
            analysis.maps().output_to_input(static_cast<std::uint32_t>(body_c - module.computations.data()), u, 0);
        if (k < maps.size() && std::any_of(maps[k].begin(), maps[k].end(), [](const indexing::IndexingMap& m) {
              return m.is_defined() && (m.range_count() > 0 || m.dim_count() > m.results().size());
            }))
          d.consumer = u;
      }
    }
    if (d.saved_seconds() > 0 && (!best || d.saved_seconds() > best->saved_seconds())) best = d;
  }
  return best;
}

std::vector<FusionEdgeDecision> fusion_edge_decisions(CostModel& costs, std::uint32_t computation) {
  analysis::ModuleAnalysis& analysis = costs.analysis();
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations.at(computation);
  const std::size_t n = c.instructions.size();
  std::vector<std::vector<std::uint32_t>> users(n);
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t o : c.operands_of(c.instructions[i]))
      if (o < n) users[o].push_back(i);
  // The computation's results are written whatever is fused.
  std::vector<char> output(n, 0);
  if (c.root < n) {
    output[c.root] = 1;
    if (c.instructions[c.root].opcode == Opcode::kTuple)
      for (std::uint32_t o : c.operands_of(c.instructions[c.root])) output[o] = 1;
  }
  std::vector<FusionEdgeDecision> out;
  for (std::uint32_t p = 0; p < n; ++p) {
    const hlo::Instruction& producer = c.instructions[p];
    if (output[p] || producer_refused(module, c, producer)) continue;
    std::vector<std::uint32_t> consumers;
    real_users(c, users, p, consumers);
    if (consumers.empty()) continue;
    bool allowed = true;
    for (std::uint32_t u : consumers) allowed = allowed && !fusion_refused(module, c, p, u);
    // A bitcast of it among the results keeps it written.
    for (std::uint32_t u : users[p]) allowed = allowed && !(c.instructions[u].opcode == Opcode::kBitcast && output[u]);
    if (!allowed) continue;
    const InstructionCost& made = costs.cost(computation, p);
    const std::int64_t elements = elements_of(module.shape_of(producer));
    if (!made.runs || !made.flops_known || elements == 0) continue;
    FusionEdgeDecision d;
    d.producer = p;
    d.consumers = consumers;
    d.unfused_seconds = made.seconds;
    d.intermediate_bytes = made.device_bytes_written;
    bool known = true;
    for (std::uint32_t u : consumers) {
      const InstructionCost& read = costs.cost(computation, u);
      if (!read.runs || !read.flops_known) {
        known = false;
        break;
      }
      d.unfused_seconds += read.seconds;
      const indexing::InstructionIndexing maps = analysis.indexing(computation, u, true, false);
      const analysis::InstructionUtilisation counted =
          analysis::instruction_utilisation(analysis, computation, u, maps);
      InstructionCost fused = read;
      const auto operands = c.operands_of(c.instructions[u]);
      for (std::size_t j = 0; j < operands.size(); ++j) {
        if (!reads_producer(c, operands[j], p) || j >= counted.operands.size() || !counted.operands[j].defined())
          continue;
        const analysis::OperandUtilisation& r = counted.operands[j];
        // No longer read from memory; computed as often as it is read, from what the producer reads.
        if (j < read.operand_reads.size()) {
          fused.device_bytes_read -= device_bytes(read.operand_reads[j]);
          d.intermediate_bytes += device_bytes(read.operand_reads[j]);
        }
        const double per_read = static_cast<double>(r.total_reads.value) / static_cast<double>(elements);
        add_scaled(fused.work, made.work, per_read);
        const auto repeated = static_cast<std::int64_t>(static_cast<double>(made.flops + made.transcendentals) *
                                                        std::max(0.0, per_read - 1));
        d.recomputed_flops += repeated;
        const double share = std::min(1.0, static_cast<double>(r.distinct_read.value) / static_cast<double>(elements));
        fused.device_bytes_read += static_cast<std::int64_t>(static_cast<double>(made.device_bytes_read) * share);
      }
      costs.estimate_time(fused, true);
      d.fused_seconds += fused.seconds;
    }
    if (known && d.saved_seconds() > 0) out.push_back(std::move(d));
  }
  return out;
}

}  // namespace hlo_index::cost

#include "indexing/analysis/ordered_work.hpp"

#include "indexing/maps/isl_context.hpp"
#include "indexing/ops/op_maps.hpp"

#include <optional>
#include <span>
#include <unordered_map>

namespace hlo_index::analysis {

ThreadSettings ThreadSettings::of_this_thread() {
  return {indexing::IslContext::get().operation_limit(), indexing::default_time_limit_per_instruction(),
          indexing::default_work_budget_per_instruction()};
}

ScopedThreadSettings::ScopedThreadSettings(const ThreadSettings& settings)
    : m_saved(ThreadSettings::of_this_thread()),
      m_time_limit(settings.time_limit_per_instruction),
      m_work_budget(settings.work_budget_per_instruction) {
  indexing::IslContext::get().set_operation_limit(settings.isl_operation_limit);
}

ScopedThreadSettings::~ScopedThreadSettings() {
  indexing::IslContext::get().set_operation_limit(m_saved.isl_operation_limit);
}

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

// Opcodes and shape ids of a computation's instructions, in order.
std::uint64_t computation_structure(const hlo::Computation& c) {
  std::uint64_t h = c.instructions.size();
  for (const hlo::Instruction& i : c.instructions) h = mix(mix(h, static_cast<std::uint64_t>(i.opcode)), i.shape);
  return h;
}

// Control flow (call, conditional, while, async-start) whose callees share a
// computation at any depth: one group, named by its smallest computation.
// The walk of a shared callee is memoised per worker, so calls that reach one
// go to one worker (torax: a thousand calls into the same helpers).
class ControlFlowGroups {
public:
  explicit ControlFlowGroups(const hlo::Module& module) : m_parent(module.computations.size()) {
    for (std::uint32_t c = 0; c < m_parent.size(); ++c) m_parent[c] = c;
    // The callees of one instruction are one group (a conditional's branches) ...
    std::vector<char> called(m_parent.size(), 0);
    for_each_control_flow(module, [&](std::uint32_t, std::span<const std::uint32_t> callees) {
      for (std::uint32_t callee : callees) {
        if (callee < called.size()) called[callee] = 1;
        join(callees[0], callee);
      }
    });
    // ... and so are a called computation and what it calls in turn. (The
    // computations nothing calls, the entry, join nothing: else all is one.)
    for_each_control_flow(module, [&](std::uint32_t caller, std::span<const std::uint32_t> callees) {
      if (called[caller] == 0) return;
      for (std::uint32_t callee : callees) join(caller, callee);
    });
  }

  /// The group of control-flow instruction `i` of `c`; none for other instructions.
  std::optional<std::uint32_t> group(const hlo::Computation& c, const hlo::Instruction& i) {
    if (!indexing::reads_tuple_leaves_by_result(i.opcode)) return std::nullopt;
    const auto callees = c.callees_of(i);
    if (callees.empty() || callees[0] >= m_parent.size()) return std::nullopt;
    return find(callees[0]);
  }

private:
  template <typename F>
  static void for_each_control_flow(const hlo::Module& module, F&& f) {
    for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
      const hlo::Computation& c = module.computations[ci];
      for (const hlo::Instruction& i : c.instructions) {
        if (indexing::reads_tuple_leaves_by_result(i.opcode) && !c.callees_of(i).empty()) f(ci, c.callees_of(i));
      }
    }
  }

  std::uint32_t find(std::uint32_t c) {
    while (m_parent[c] != c) c = m_parent[c] = m_parent[m_parent[c]];
    return c;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    if (a >= m_parent.size() || b >= m_parent.size()) return;
    a = find(a);
    b = find(b);
    if (a != b) m_parent[std::max(a, b)] = std::min(a, b);
  }

  std::vector<std::uint32_t> m_parent;
};

}  // namespace

void set_affinities(std::span<const hlo::Module> modules, std::vector<WorkItem>& items) {
  std::vector<std::vector<std::uint64_t>> structures(modules.size());  // per computation, when first needed
  // Kinds numbered in order of first appearance, so that workers (kind mod N)
  // get as many kinds each.
  std::unordered_map<std::uint64_t, std::uint64_t> kinds;
  std::vector<std::optional<ControlFlowGroups>> groups(modules.size());  // per module, when first needed
  for (WorkItem& item : items) {
    const hlo::Module& module = modules[item.module];
    std::vector<std::uint64_t>& known = structures[item.module];
    if (known.empty()) {
      known.reserve(module.computations.size());
      for (const hlo::Computation& c : module.computations) known.push_back(computation_structure(c));
    }
    const hlo::Computation& c = module.computations[item.computation];
    const hlo::Instruction& i = c.instructions[item.instruction];
    if (!groups[item.module]) groups[item.module].emplace(module);
    if (const auto group = groups[item.module]->group(c, i)) {
      // Groups of equal structure (layers calling their own copies of a block) stay together too.
      item.affinity = kinds.try_emplace(mix(mix(item.module, 0xc0de), known[*group]), kinds.size()).first->second;
      continue;
    }
    std::uint64_t h = mix(mix(item.module, static_cast<std::uint64_t>(i.opcode)), i.shape);
    for (std::uint32_t operand : c.operands_of(i)) h = mix(h, c.instructions[operand].shape);
    for (std::uint32_t callee : c.callees_of(i)) {
      if (callee < known.size()) h = mix(h, known[callee]);
    }
    item.affinity = kinds.try_emplace(h, kinds.size()).first->second;
  }
}

unsigned resolve_jobs(unsigned requested) {
  if (requested != 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace hlo_index::analysis

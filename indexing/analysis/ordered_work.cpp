#include "indexing/analysis/ordered_work.hpp"

#include "indexing/isl_context.hpp"

#include <unordered_map>

namespace hlo_index::analysis {

ThreadSettings ThreadSettings::of_this_thread() {
  return {indexing::IslContext::get().operation_limit(), indexing::default_time_limit_per_instruction()};
}

ScopedThreadSettings::ScopedThreadSettings(const ThreadSettings& settings)
    : m_saved(ThreadSettings::of_this_thread()), m_time_limit(settings.time_limit_per_instruction) {
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

}  // namespace

void set_affinities(std::span<const hlo::Module> modules, std::vector<WorkItem>& items) {
  std::vector<std::vector<std::uint64_t>> structures(modules.size());  // per computation, when first needed
  // Kinds numbered in order of first appearance, so that workers (kind mod N)
  // get as many kinds each.
  std::unordered_map<std::uint64_t, std::uint64_t> kinds;
  for (WorkItem& item : items) {
    const hlo::Module& module = modules[item.module];
    std::vector<std::uint64_t>& known = structures[item.module];
    if (known.empty()) {
      known.reserve(module.computations.size());
      for (const hlo::Computation& c : module.computations) known.push_back(computation_structure(c));
    }
    const hlo::Computation& c = module.computations[item.computation];
    const hlo::Instruction& i = c.instructions[item.instruction];
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

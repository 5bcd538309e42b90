// The isl operation budget, the per-instruction work budget and time limit a command was
// given, for the duration of the command only (tests run many commands in one
// process); threads the command starts take them on (ordered_work.hpp).
#pragma once

#include <cstdint>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/isl_context.hpp"

namespace hlo_index::app {

class ScopedIslLimit {
public:
  explicit ScopedIslLimit(unsigned long limit) : m_saved(indexing::IslContext::get().operation_limit()) {
    if (limit != 0) indexing::IslContext::get().set_operation_limit(limit);
  }
  ~ScopedIslLimit() { indexing::IslContext::get().set_operation_limit(m_saved); }
  ScopedIslLimit(const ScopedIslLimit&) = delete;
  ScopedIslLimit& operator=(const ScopedIslLimit&) = delete;

private:
  unsigned long m_saved;
};

/// The bounds of analysis: isl's operation budget (0: keep the default), the
/// per-instruction time limit in seconds (0: none) and the per-instruction
/// work budget in steps (0: none).
class ScopedAnalysisLimits {
public:
  ScopedAnalysisLimits(unsigned long isl_max_operations, double time_limit_per_instruction,
                       std::uint64_t work_budget_per_instruction = indexing::k_default_work_budget_per_instruction)
      : m_isl(isl_max_operations), m_time(time_limit_per_instruction), m_work(work_budget_per_instruction) {}

private:
  ScopedIslLimit m_isl;
  indexing::ScopedTimeLimit m_time;
  indexing::ScopedWorkBudget m_work;
};

}  // namespace hlo_index::app

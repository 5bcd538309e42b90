// The isl operation budget and the per-instruction time limit a command was
// given, for the duration of the command only (tests run many commands in one
// process); threads the command starts take them on (ordered_work.hpp).
#pragma once

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

/// Both bounds of analysis: isl's operation budget (0: keep the default) and
/// the per-instruction time limit in seconds.
class ScopedAnalysisLimits {
public:
  ScopedAnalysisLimits(unsigned long isl_max_operations, double time_limit_per_instruction)
      : m_isl(isl_max_operations), m_time(time_limit_per_instruction) {}

private:
  ScopedIslLimit m_isl;
  indexing::ScopedTimeLimit m_time;
};

}  // namespace hlo_index::app

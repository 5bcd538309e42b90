#include "indexing/analysis/ordered_work.hpp"

#include "indexing/isl_context.hpp"

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

unsigned resolve_jobs(unsigned requested) {
  if (requested != 0) return requested;
  return std::max(1U, std::thread::hardware_concurrency());
}

}  // namespace hlo_index::analysis

// The isl operation budget a command was given, for the duration of the
// command only (tests run many commands in one process).
#pragma once

#include "indexing/isl_context.hpp"

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

}  // namespace hlo_index::app

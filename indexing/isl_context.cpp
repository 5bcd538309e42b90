#include "indexing/isl_context.hpp"

#include <isl/ctx.h>
#include <isl/options.h>

namespace hlo_index::indexing {

namespace {
thread_local int t_budget_depth = 0;
}

IslContext& IslContext::get() {
  thread_local IslContext context;
  return context;
}

IslContext::IslContext() : m_ctx(isl_ctx_alloc()) {
  // Errors come back as null results (the C++ bindings turn them into
  // exceptions); isl must never print to stderr or abort on our behalf.
  isl_options_set_on_error(m_ctx, ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() { isl_ctx_free(m_ctx); }

IslBudget::IslBudget() : m_outermost(t_budget_depth++ == 0) {
  if (!m_outermost) return;
  IslContext& c = IslContext::get();
  isl_ctx_reset_operations(c.raw());
  isl_ctx_set_max_operations(c.raw(), c.operation_limit());
}

IslBudget::~IslBudget() {
  --t_budget_depth;
  if (!m_outermost) return;
  IslContext& c = IslContext::get();
  isl_ctx_set_max_operations(c.raw(), 0);
  isl_ctx_reset_error(c.raw());
}

}  // namespace hlo_index::indexing

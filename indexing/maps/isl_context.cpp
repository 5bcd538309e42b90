#include "indexing/maps/isl_context.hpp"

#include <isl/ctx.h>
#include <isl/options.h>

#include <condition_variable>
#include <mutex>
#include <thread>

namespace hlo_index::indexing {

namespace {
thread_local int t_budget_depth = 0;
}

// Stops an isl computation at a deadline from a thread of its own: isl checks
// its abort flag at every operation (isl_ctx_abort exists to be called from
// elsewhere while a computation runs), and the failed call reports
// isl_error_abort, which the bridge treats as the budget running out.
class IslWatchdog {
public:
  explicit IslWatchdog(isl_ctx* ctx) : m_ctx(ctx), m_thread([this] { run(); }) {}
  ~IslWatchdog() {
    {
      const std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
  }
  IslWatchdog(const IslWatchdog&) = delete;
  IslWatchdog& operator=(const IslWatchdog&) = delete;

  void arm(std::chrono::steady_clock::time_point deadline) {
    {
      const std::lock_guard lock(m_mutex);
      m_deadline = deadline;
    }
    m_wake.notify_all();
  }
  // After disarm returns the watchdog no longer aborts (the abort, if any, is
  // then resumed by the caller).
  void disarm() {
    const std::lock_guard lock(m_mutex);
    m_deadline.reset();
  }

private:
  void run() {
    std::unique_lock lock(m_mutex);
    while (!m_stop) {
      if (!m_deadline) {
        m_wake.wait(lock);
      } else if (std::chrono::steady_clock::now() >= *m_deadline) {
        isl_ctx_abort(m_ctx);
        m_deadline.reset();
      } else {
        m_wake.wait_until(lock, *m_deadline);
      }
    }
  }

  isl_ctx* m_ctx;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::optional<std::chrono::steady_clock::time_point> m_deadline;
  bool m_stop = false;
  std::thread m_thread;  // last: started once the members above exist
};

IslContext& IslContext::get() {
  thread_local IslContext context;
  return context;
}

IslContext::IslContext() : m_ctx(isl_ctx_alloc()) {
  // Errors come back as null results (the C++ bindings turn them into
  // exceptions); isl must never print to stderr or abort on our behalf.
  isl_options_set_on_error(m_ctx, ISL_ON_ERROR_CONTINUE);
}

IslContext::~IslContext() {
  m_watchdog.reset();  // joined before the context it aborts goes
  isl_ctx_free(m_ctx);
}

void IslContext::arm_watchdog(std::chrono::steady_clock::time_point deadline) {
  if (!m_watchdog) m_watchdog = std::make_unique<IslWatchdog>(m_ctx);
  m_watchdog->arm(deadline);
}

void IslContext::disarm_watchdog() {
  if (m_watchdog) m_watchdog->disarm();
}

IslBudget::IslBudget() : m_outermost(t_budget_depth++ == 0) {
  if (!m_outermost) return;
  IslContext& c = IslContext::get();
  c.count_computation();
  isl_ctx_reset_operations(c.raw());
  isl_ctx_set_max_operations(c.raw(), c.operation_limit());
  if (c.deadline()) c.arm_watchdog(*c.deadline());
}

IslBudget::~IslBudget() {
  --t_budget_depth;
  if (!m_outermost) return;
  IslContext& c = IslContext::get();
  if (c.deadline()) {
    c.disarm_watchdog();
    isl_ctx_resume(c.raw());
  }
  isl_ctx_set_max_operations(c.raw(), 0);
  isl_ctx_reset_error(c.raw());
}

}  // namespace hlo_index::indexing

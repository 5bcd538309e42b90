// The one owner of the isl context: one isl_ctx per thread, created on first
// use, with an operation cap so that no isl call can run away. Code that
// calls isl opens an IslBudget; when the cap is hit the isl call fails, the
// bridge throws IslLimitReached, and the caller falls back to a sound
// over-approximation marked as such.
#pragma once

#include <isl/cpp.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>

namespace hlo_index::indexing {

/// Thrown when an isl computation exceeded its operation budget.
class IslLimitReached : public std::runtime_error {
public:
  IslLimitReached() : std::runtime_error("isl operation limit reached") {}
};

/// Default budget of one top-level operation (compose, count, ...), in isl's
/// own operation units. Large enough for every map of the corpus; small
/// enough that a pathological map usually stops in well under a second. Not
/// always: an operation on the huge coefficients of long floordiv/mod chains
/// can cost a millisecond, hence the deadline below as well.
inline constexpr unsigned long k_default_isl_operation_limit = 2'000'000;

class IslWatchdog;

class IslContext {
public:
  /// The context of the calling thread.
  static IslContext& get();

  isl::ctx ctx() const { return isl::ctx(m_ctx); }
  isl_ctx* raw() const { return m_ctx; }

  unsigned long operation_limit() const { return m_limit; }
  /// Budget for every IslBudget opened afterwards on this thread.
  void set_operation_limit(unsigned long limit) { m_limit = limit; }

  /// A point in time past which isl computations fail as if their operation
  /// budget ran out (the per-instruction time limit sets it); none: no deadline.
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  const Deadline& deadline() const { return m_deadline; }
  void set_deadline(Deadline deadline) { m_deadline = deadline; }
  /// Stops the isl computation running on this thread at `deadline` (IslBudget arms it).
  void arm_watchdog(std::chrono::steady_clock::time_point deadline);
  void disarm_watchdog();

  /// isl computations (outermost IslBudget scopes) opened on this thread so
  /// far: the deterministic measure of isl work a work budget counts.
  std::uint64_t computations() const { return m_computations; }
  void count_computation() { ++m_computations; }

  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;
  ~IslContext();

private:
  IslContext();
  isl_ctx* m_ctx;
  unsigned long m_limit = k_default_isl_operation_limit;
  Deadline m_deadline;
  std::uint64_t m_computations = 0;
  std::unique_ptr<IslWatchdog> m_watchdog;  // started on the first deadline
};

/// The isl deadline of the calling thread for the scope's lifetime.
class ScopedIslDeadline {
public:
  explicit ScopedIslDeadline(IslContext::Deadline deadline) : m_saved(IslContext::get().deadline()) {
    IslContext::get().set_deadline(deadline);
  }
  ~ScopedIslDeadline() { IslContext::get().set_deadline(m_saved); }
  ScopedIslDeadline(const ScopedIslDeadline&) = delete;
  ScopedIslDeadline& operator=(const ScopedIslDeadline&) = delete;

private:
  IslContext::Deadline m_saved;
};

/// The isl operation limit of the calling thread for the scope's lifetime.
class ScopedIslOperationLimit {
public:
  explicit ScopedIslOperationLimit(unsigned long limit) : m_saved(IslContext::get().operation_limit()) {
    IslContext::get().set_operation_limit(limit);
  }
  ~ScopedIslOperationLimit() { IslContext::get().set_operation_limit(m_saved); }
  ScopedIslOperationLimit(const ScopedIslOperationLimit&) = delete;
  ScopedIslOperationLimit& operator=(const ScopedIslOperationLimit&) = delete;

private:
  unsigned long m_saved;
};

/// Scope of one budgeted isl computation: resets the operation counter and
/// applies the thread's limit and deadline; nested scopes share the outer budget.
class IslBudget {
public:
  IslBudget();
  ~IslBudget();
  IslBudget(const IslBudget&) = delete;
  IslBudget& operator=(const IslBudget&) = delete;

private:
  bool m_outermost;
};

/// Runs `body` inside a budget; when the budget runs out, returns what
/// `fallback` (called only then) returns.
template <typename Body, typename Fallback>
auto within_isl_budget(Body&& body, Fallback&& fallback) -> decltype(body()) {
  try {
    IslBudget budget;
    return body();
  } catch (const IslLimitReached&) {
    return fallback();
  } catch (const isl::exception_quota&) {
    return fallback();
  } catch (const isl::exception_abort&) {  // the deadline
    return fallback();
  }
}

}  // namespace hlo_index::indexing

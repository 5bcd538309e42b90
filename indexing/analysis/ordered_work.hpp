// Analysing instructions on several threads (`-j N`) with output that does
// not depend on N: each worker claims the next instruction in program order,
// keeps its own per-module state (analysis and memos, isl context), and the
// calling thread consumes the results strictly in program order. A window
// bounds how far workers run ahead, so memory stays that of a few results.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "indexing/instruction_indexing.hpp"

namespace hlo_index::analysis {

/// Instruction `instruction` of computation `computation` of module `module`
/// (an index into the command's list of modules).
struct WorkItem {
  std::size_t module = 0;
  std::uint32_t computation = 0, instruction = 0;
};

/// What an analysis depends on besides its input that lives in thread-local
/// storage: the isl operation limit and the per-instruction time limit.
/// Workers take on those of the thread that starts them.
struct ThreadSettings {
  static ThreadSettings of_this_thread();
  unsigned long isl_operation_limit = 0;
  double time_limit_per_instruction = 0;
};

/// Gives the calling thread `settings` for the scope's duration.
class ScopedThreadSettings {
public:
  explicit ScopedThreadSettings(const ThreadSettings& settings);
  ~ScopedThreadSettings();
  ScopedThreadSettings(const ScopedThreadSettings&) = delete;
  ScopedThreadSettings& operator=(const ScopedThreadSettings&) = delete;

private:
  ThreadSettings m_saved;
  indexing::ScopedTimeLimit m_time_limit;
};

/// The worker count for `-j N`: N, or the hardware's thread count for 0.
unsigned resolve_jobs(unsigned requested);

namespace detail {

/// Results of the work items by index, filled by workers in any order and
/// taken by the consumer in index order.
template <typename Result>
class OrderedSlots {
public:
  OrderedSlots(std::size_t count, std::size_t window) : m_slots(count), m_window(window) {}

  /// The next item to compute, once it is within the window of the item
  /// consumed next; nullopt when all are claimed or the run is cancelled.
  std::optional<std::size_t> claim() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_cancelled || m_next_claim >= m_slots.size() || m_next_claim < m_next_take + m_window; });
    if (m_cancelled || m_next_claim >= m_slots.size()) return std::nullopt;
    return m_next_claim++;
  }
  void put(std::size_t index, Result result) {
    std::lock_guard lock(m_mutex);
    m_slots[index].result.emplace(std::move(result));
    m_changed.notify_all();
  }
  void fail(std::size_t index, std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    m_slots[index].error = std::move(error);
    m_changed.notify_all();
  }
  /// Waits for item `index` (the next in order) and returns it; rethrows
  /// what its computation threw.
  Result take(std::size_t index) {
    std::unique_lock lock(m_mutex);
    Slot& slot = m_slots[index];
    m_changed.wait(lock, [&] { return slot.result.has_value() || slot.error != nullptr; });
    if (slot.error) std::rethrow_exception(slot.error);
    Result result = std::move(*slot.result);
    slot.result.reset();
    m_next_take = index + 1;
    m_changed.notify_all();
    return result;
  }
  void cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
    m_changed.notify_all();
  }

private:
  struct Slot {
    std::optional<Result> result;
    std::exception_ptr error;
  };
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::vector<Slot> m_slots;
  std::size_t m_window;
  std::size_t m_next_claim = 0, m_next_take = 0;
  bool m_cancelled = false;
};

/// One worker's state for the module of the item at hand: made anew when the
/// items move on to another module.
template <typename MakeState>
class ModuleState {
public:
  explicit ModuleState(MakeState& make) : m_make(make) {}
  auto& for_module(std::size_t module) {
    if (!m_state || m_module != module) {
      m_state.reset();  // the previous module's memos go before the next are built
      m_state = m_make(module);
      m_module = module;
    }
    return *m_state;
  }

private:
  MakeState& m_make;
  decltype(std::declval<MakeState&>()(std::size_t{})) m_state;
  std::size_t m_module = std::numeric_limits<std::size_t>::max();
};

}  // namespace detail

/// Computes `compute(state, item)` for every item and passes each result to
/// `consume(index, result)` on the calling thread, in the order of `items`.
/// `make_state(module)` returns a std::unique_ptr to a worker's state for a
/// module (one per worker and module). With `jobs` <= 1 everything runs on
/// the calling thread. An exception from `compute` reaches the caller when
/// its item's turn to be consumed comes; the other workers stop.
template <typename MakeState, typename Compute, typename Consume>
void run_in_program_order(const std::vector<WorkItem>& items, unsigned jobs, MakeState make_state, Compute compute,
                          Consume consume) {
  using State = std::remove_reference_t<decltype(*make_state(std::size_t{}))>;
  using Result = decltype(compute(std::declval<State&>(), std::declval<const WorkItem&>()));
  if (jobs <= 1 || items.size() <= 1) {
    detail::ModuleState<MakeState> state(make_state);
    for (std::size_t k = 0; k < items.size(); ++k) consume(k, compute(state.for_module(items[k].module), items[k]));
    return;
  }
  // Far enough ahead that a slow instruction does not idle the others,
  // near enough that few results wait in memory.
  detail::OrderedSlots<Result> slots(items.size(), std::size_t{16} * jobs);
  const ThreadSettings settings = ThreadSettings::of_this_thread();
  const unsigned workers_wanted = static_cast<unsigned>(std::min<std::size_t>(jobs, items.size()));
  struct CancelOnExit {
    detail::OrderedSlots<Result>& slots;
    ~CancelOnExit() { slots.cancel(); }
  };
  std::vector<std::jthread> workers;
  const CancelOnExit cancel_on_exit{slots};  // destroyed first: workers waiting for the window stop before the join
  workers.reserve(workers_wanted);
  for (unsigned w = 0; w < workers_wanted; ++w) {
    workers.emplace_back([&] {
      const ScopedThreadSettings applied(settings);
      detail::ModuleState<MakeState> state(make_state);
      while (const std::optional<std::size_t> k = slots.claim()) {
        try {
          slots.put(*k, compute(state.for_module(items[*k].module), items[*k]));
        } catch (...) {
          slots.fail(*k, std::current_exception());
        }
      }
    });
  }
  for (std::size_t k = 0; k < items.size(); ++k) consume(k, slots.take(k));
}

}  // namespace hlo_index::analysis

// Analysing instructions on several threads (`-j N`) with output that does
// not depend on N: each worker takes its instructions in program order (those
// of one kind of layer go to one worker, so its memos answer the repeats),
// keeps its own per-module state (analysis and memos, isl context), and the
// calling thread consumes the results strictly in program order. A window
// bounds how far workers run ahead, so memory stays that of some results.
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
#include <span>
#include <thread>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// Instruction `instruction` of computation `computation` of module `module`
/// (an index into the command's list of modules).
struct WorkItem {
  std::size_t module = 0;
  std::uint32_t computation = 0, instruction = 0;
  /// Items with equal affinity go to one worker (equal layers share its memos).
  std::uint64_t affinity = 0;
};

/// Sets each item's affinity from its instruction's structure: opcode,
/// shapes, and the opcodes and shapes of the computations it calls. Equal
/// layers of a model get equal affinities, so one worker analyses each kind
/// of layer and its memos answer the repeats.
void set_affinities(std::span<const hlo::Module> modules, std::vector<WorkItem>& items);

/// What an analysis depends on besides its input that lives in thread-local
/// storage: the isl operation limit and the per-instruction time limit.
/// Workers take on those of the thread that starts them.
struct ThreadSettings {
  static ThreadSettings of_this_thread();
  unsigned long isl_operation_limit = 0;
  double time_limit_per_instruction = 0;
  std::uint64_t work_budget_per_instruction = 0;
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
  indexing::ScopedWorkBudget m_work_budget;
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

  /// Worker `worker`'s next item after `after` (its items are those `owner`
  /// gives it), once within the window of the item consumed next; nullopt
  /// when it has no more or the run is cancelled. The item consumed next is
  /// always its owner's next, so no worker waits on a full window for ever.
  template <typename Owner>
  std::optional<std::size_t> claim(unsigned worker, std::size_t from, const Owner& owner) {
    std::size_t k = from;
    while (k < m_slots.size() && owner(k) != worker) ++k;
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return m_cancelled || k >= m_slots.size() || k < m_next_take + m_window; });
    if (m_cancelled || k >= m_slots.size()) return std::nullopt;
    return k;
  }
  void put(std::size_t index, Result result) {
    std::lock_guard lock(m_mutex);
    m_slots[index].result.emplace(std::move(result));
    m_changed.notify_all();
  }
  void fail(std::size_t index, const std::exception_ptr& error) {
    std::lock_guard lock(m_mutex);
    m_slots[index].error = error;
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
  std::size_t m_next_take = 0;
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
  // Far enough ahead that a worker with a long run of cheap items (memo
  // hits) is not held up by another's slow one; near enough that the
  // results waiting in memory stay a small part of the module's.
  detail::OrderedSlots<Result> slots(items.size(), std::size_t{256} * jobs);
  const ThreadSettings settings = ThreadSettings::of_this_thread();
  const unsigned workers_wanted = static_cast<unsigned>(std::min<std::size_t>(jobs, items.size()));
  const auto owner = [&](std::size_t k) { return static_cast<unsigned>(items[k].affinity % workers_wanted); };
  struct CancelOnExit {
    detail::OrderedSlots<Result>& slots;
    ~CancelOnExit() { slots.cancel(); }
  };
  std::vector<std::jthread> workers;
  const CancelOnExit cancel_on_exit{slots};  // destroyed first: workers waiting for the window stop before the join
  workers.reserve(workers_wanted);
  for (unsigned w = 0; w < workers_wanted; ++w) {
    workers.emplace_back([&, w] {
      const ScopedThreadSettings applied(settings);
      detail::ModuleState<MakeState> state(make_state);
      std::size_t from = 0;
      while (const std::optional<std::size_t> k = slots.claim(w, from, owner)) {
        from = *k + 1;
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

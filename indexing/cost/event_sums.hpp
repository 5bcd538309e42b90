// A trace's events summed per line (pid, tid) and kernel as they are read,
// one at a time: memory grows with the number of distinct kernels and
// lines, not of events.
//
// Complete events (`"ph": "X"`, `ts` and `dur` in microseconds, whatever
// `displayTimeUnit` says: that is for display) and `B`/`E` pairs on one line
// (an `E` closes the latest open `B`, Chrome's rule, and its args add to the
// `B`'s) are summed; other phases (instant, counter, async, flow) are not,
// and metadata events (`M`) name processes and threads. A `B` without its
// `E` or an `E` without a `B` (a trace that starts or stops inside them) is
// counted as unpaired.
//
// An event inside another of its line (TPU control flow: a `while` op holds
// its body's ops) adds to its own sums but not to their outer time; a line's
// events come in file order, which is time order in the files these tools
// write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace hlo_index::cost {

/// A number field of an event (`ts`, `dur`): absent, a number, or something else.
struct NumberField {
  enum class State : std::uint8_t { kMissing, kNumber, kBad } state = State::kMissing;
  long double value = 0;  // long double: an epoch `ts` in us needs more than a double's 53 bits for ns
  std::string shown;      // kBad: the value as it reads in the file
};

/// The fields of one event that are used, as read.
struct TraceEvent {
  std::string ph, name, pid, tid;                        // pid and tid as written (numbers or strings)
  std::string hlo_op, hlo_module, program_id, arg_name;  // from args; arg_name: a metadata event's
  std::string long_name_op;  // the op `args.long_name` names (`%fusion.12 = ...` -> `fusion.12`), or ""
  NumberField ts, dur;       // microseconds
  void clear();
};

/// The events of one kernel on one line, summed.
struct LineKernelSums {
  std::string pid, tid;
  std::string name, hlo_op, hlo_module, program_id, long_name_op;
  double microseconds = 0;           // all its events
  double outer_microseconds = 0;     // those not nested in another event of the line
  double outer_op_microseconds = 0;  // those not nested in another event of the line that carries hlo_op
  std::size_t events = 0;
};

/// What a trace file holds, summed.
struct TraceSums {
  std::vector<LineKernelSums> sums;                  // sorted by pid, tid, name, hlo_op, module, program, op
  std::map<std::string, std::string> process_names;  // `process_name` metadata, by pid
  std::map<std::pair<std::string, std::string>, std::string> thread_names;  // `thread_name`, by (pid, tid)
  std::size_t events = 0;           // events in the file, metadata and uncounted ones included
  std::size_t unpaired_events = 0;  // `B` without its `E` or `E` without a `B`: not summed
  bool compressed = false;          // the file was gzip
};

/// Sums events as they come.
class EventSums {
public:
  EventSums();
  EventSums(const EventSums&) = delete;
  EventSums& operator=(const EventSums&) = delete;
  ~EventSums();

  /// Events are named in messages `event 4` (a bare array of events) or `traceEvents[4]` (by default).
  void set_array_form(bool array_form) { m_array_form = array_form; }
  std::string event_name(std::size_t index) const;
  /// Adds the event at `index` in the file; throws ProfileError when a
  /// complete event or a B or E has no `ts` (or `dur`), one that is not a
  /// number, a negative `dur`, or an E that ends before its B.
  void add(const TraceEvent& event, std::size_t index);
  /// The sums, once every event of the file (`events` of them) was added.
  TraceSums finish(std::size_t events, bool compressed);

private:
  struct State;
  std::unique_ptr<State> m_state;
  bool m_array_form = false;
};

}  // namespace hlo_index::cost

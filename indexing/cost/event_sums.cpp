// Summing a trace's events per line and kernel: B/E pairs, nesting, and
// the metadata that names processes and threads. event_sums.hpp states the
// rules.
#include "indexing/cost/event_sums.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>
#include <unordered_map>

#include "indexing/cost/profile.hpp"  // ProfileError

namespace hlo_index::cost {
namespace {

/// The names of one event that its kernel is summed under.
struct NameViews {
  std::string_view name, hlo_op, hlo_module, program_id, long_name_op;
};

/// The same, kept (a `B` event's until its `E`).
struct EventNames {
  std::string name, hlo_op, hlo_module, program_id, long_name_op;
  NameViews views() const { return {name, hlo_op, hlo_module, program_id, long_name_op}; }
};

/// A `B` event waiting for its `E`.
struct OpenEvent {
  long double start = 0;
  std::size_t index = 0;
  EventNames names;
};

struct Interval {
  long double start = 0, end = 0;
};

/// What is known of one line (pid, tid) while reading.
struct LineState {
  std::vector<OpenEvent> open;         // B events not yet ended, innermost last
  std::vector<Interval> all, with_op;  // the events that may still hold the next: all / those with hlo_op
};

/// The sums of the events of one (pid, tid, name, op, module, program, long-name op).
struct Sums {
  double microseconds = 0;
  double outer_microseconds = 0;     // not nested in any event of the line
  double outer_op_microseconds = 0;  // not nested in an event of the line that carries hlo_op
  std::size_t events = 0;
};

/// Whether `e` lies inside one of `enclosing` (the events of a line that
/// may still hold the next one, each inside the one before): drops those
/// that do not hold `e` (in time order they will hold nothing later), then
/// keeps `e`.
bool nested_in(std::vector<Interval>& enclosing, Interval e) {
  while (!enclosing.empty() && !(enclosing.back().start <= e.start && e.end <= enclosing.back().end)) {
    enclosing.pop_back();
  }
  const bool nested = !enclosing.empty();
  enclosing.push_back(e);
  return nested;
}

/// Appends `field` to a key of several fields: its size in binary, then its bytes.
void append_field(std::string& key, std::string_view field) {
  const std::size_t size = field.size();
  char bytes[sizeof size];
  std::memcpy(bytes, &size, sizeof size);
  key.append(bytes, sizeof size);
  key.append(field);
}

/// The fields append_field wrote, in order.
std::vector<std::string_view> split_fields(std::string_view key) {
  std::vector<std::string_view> fields;
  while (!key.empty()) {
    std::size_t size = 0;
    std::memcpy(&size, key.data(), sizeof size);
    fields.push_back(key.substr(sizeof size, size));
    key.remove_prefix(sizeof size + size);
  }
  return fields;
}

}  // namespace

void TraceEvent::clear() {
  for (std::string* s : {&ph, &name, &pid, &tid, &hlo_op, &hlo_module, &program_id, &arg_name, &long_name_op}) {
    s->clear();
  }
  ts.state = dur.state = NumberField::State::kMissing;
}

struct EventSums::State {
  std::string key;  // scratch: a key of sums or lines
  std::unordered_map<std::string, Sums> sums;
  std::unordered_map<std::string, LineState> lines;
  LineState* line = nullptr;  // the line of the event before
  std::string line_pid, line_tid;
  TraceSums trace;  // the metadata and the unpaired E events, while reading

  /// The state of `event`'s line: most often the line of the event before.
  LineState& line_of(const TraceEvent& event) {
    if (line == nullptr || event.pid != line_pid || event.tid != line_tid) {
      line_pid = event.pid;
      line_tid = event.tid;
      key.clear();
      append_field(key, line_pid);
      append_field(key, line_tid);
      line = &lines[key];  // the address of a node: it stays while the table grows
    }
    return *line;
  }

  void record(const TraceEvent& event, const Interval& interval, double microseconds, const NameViews& names);
};

EventSums::EventSums() : m_state(std::make_unique<State>()) {}

EventSums::~EventSums() = default;

std::string EventSums::event_name(std::size_t index) const {
  return m_array_form ? fmt::format("event {}", index) : fmt::format("traceEvents[{}]", index);
}

void EventSums::add(const TraceEvent& event, std::size_t index) {
  State& s = *m_state;
  const char phase = event.ph.size() == 1 ? event.ph[0] : '\0';
  if (phase == 'M') {
    if (event.name == "process_name") s.trace.process_names[event.pid] = event.arg_name;
    if (event.name == "thread_name") s.trace.thread_names[{event.pid, event.tid}] = event.arg_name;
    return;
  }
  const bool complete = phase == 'X', begin = phase == 'B';
  if (!complete && !begin && phase != 'E') return;  // instant, counter, async, flow, ...: not a kernel's time
  const auto label = [&] { return fmt::format("{} (\"{}\", ph \"{}\")", event_name(index), event.name, event.ph); };
  const auto need = [&](const NumberField& field, std::string_view name) {
    if (field.state == NumberField::State::kMissing) throw ProfileError(fmt::format("{}: no \"{}\"", label(), name));
    if (field.state == NumberField::State::kBad) {
      throw ProfileError(fmt::format("{}: \"{}\" is {}, not a number of microseconds", label(), name, field.shown));
    }
  };
  need(event.ts, "ts");
  if (complete) {
    need(event.dur, "dur");
    if (event.dur.value < 0) {
      throw ProfileError(
          fmt::format("{}: \"dur\" is {}, a negative duration", label(), static_cast<double>(event.dur.value)));
    }
    s.record(event, {event.ts.value, event.ts.value + event.dur.value}, static_cast<double>(event.dur.value),
             {event.name, event.hlo_op, event.hlo_module, event.program_id, event.long_name_op});
    return;
  }
  std::vector<OpenEvent>& open = s.line_of(event).open;
  if (begin) {
    open.push_back(
        {event.ts.value, index, {event.name, event.hlo_op, event.hlo_module, event.program_id, event.long_name_op}});
    return;
  }
  if (open.empty()) {  // an E without its B: the trace began inside it
    ++s.trace.unpaired_events;
    return;
  }
  OpenEvent b = std::move(open.back());
  open.pop_back();
  if (event.ts.value < b.start) {
    throw ProfileError(fmt::format("{}: ends at ts {} before its \"B\" ({}) begins at ts {}", label(),
                                   static_cast<double>(event.ts.value), event_name(b.index),
                                   static_cast<double>(b.start)));
  }
  // Chrome merges the args of an E into those of its B.
  if (b.names.hlo_op.empty()) b.names.hlo_op = event.hlo_op;
  if (b.names.hlo_module.empty()) b.names.hlo_module = event.hlo_module;
  if (b.names.program_id.empty()) b.names.program_id = event.program_id;
  if (b.names.long_name_op.empty()) b.names.long_name_op = event.long_name_op;
  s.record(event, {b.start, event.ts.value}, static_cast<double>(event.ts.value - b.start), b.names.views());
}

void EventSums::State::record(const TraceEvent& event, const Interval& interval, double microseconds,
                              const NameViews& names) {
  LineState& state = line_of(event);
  const bool has_op = !names.hlo_op.empty();
  // Open B events of the line began before this event and end after it: they hold it.
  const bool in_open =
      std::any_of(state.open.begin(), state.open.end(), [&](const OpenEvent& o) { return o.start <= interval.start; });
  const bool in_open_op = std::any_of(state.open.begin(), state.open.end(), [&](const OpenEvent& o) {
    return !o.names.hlo_op.empty() && o.start <= interval.start;
  });
  const bool nested = nested_in(state.all, interval) || in_open;
  const bool nested_op = has_op && (nested_in(state.with_op, interval) || in_open_op);

  key.clear();
  for (const std::string_view field : {std::string_view(event.pid), std::string_view(event.tid), names.name,
                                       names.hlo_op, names.hlo_module, names.program_id, names.long_name_op}) {
    append_field(key, field);
  }
  auto it = sums.find(key);
  if (it == sums.end()) it = sums.emplace(key, Sums{}).first;
  Sums& sum = it->second;
  sum.microseconds += microseconds;
  ++sum.events;
  if (!nested) sum.outer_microseconds += microseconds;
  if (has_op && !nested_op) sum.outer_op_microseconds += microseconds;
}

TraceSums EventSums::finish(std::size_t events, bool compressed) {
  State& s = *m_state;
  TraceSums trace = std::move(s.trace);
  trace.compressed = compressed;
  trace.events = events;
  for (const auto& [key, line] : s.lines) trace.unpaired_events += line.open.size();
  trace.sums.reserve(s.sums.size());
  for (const auto& [key, sums] : s.sums) {
    const std::vector<std::string_view> f = split_fields(key);
    trace.sums.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), std::string(f[3]), std::string(f[4]),
                          std::string(f[5]), std::string(f[6]), sums.microseconds, sums.outer_microseconds,
                          sums.outer_op_microseconds, sums.events});
  }
  // A fixed order, so that sums over them do not depend on the hash table.
  std::sort(trace.sums.begin(), trace.sums.end(), [](const LineKernelSums& a, const LineKernelSums& b) {
    return std::tie(a.pid, a.tid, a.name, a.hlo_op, a.hlo_module, a.program_id, a.long_name_op) <
           std::tie(b.pid, b.tid, b.name, b.hlo_op, b.hlo_module, b.program_id, b.long_name_op);
  });
  return trace;
}

}  // namespace hlo_index::cost

// Choosing the lines of a trace whose events count, and summing them per
// kernel. trace_kernels.hpp states the rules.
#include "indexing/cost/trace_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace hlo_index::cost {
namespace {

// The lines of xprof's device planes that summarise others (xplane_schema.h):
// their events hold the kernels' or ops' time, or overlap it.
bool summary_line(std::string_view name) {
  static constexpr std::string_view k_names[] = {
      // keep sorted
      "Async XLA Ops", "Framework Name Scope",  "Framework Ops",       "Host Offload Ops",
      "Launch Stats",  "Source code",           "Sparse Core Modules", "Sparse Core Steps",
      "Steps",         "TensorFlow Name Scope", "TensorFlow Ops",      "XLA Modules",
      "_counters_"};
  return std::find(std::begin(k_names), std::end(k_names), name) != std::end(k_names);
}

enum class ProcessKind : std::uint8_t { kDevice, kHost, kOther };

ProcessKind process_kind(std::string_view name) {
  if (name.starts_with("/device:")) return ProcessKind::kDevice;
  if (name.starts_with("/host:")) return ProcessKind::kHost;
  return ProcessKind::kOther;
}

/// The sums of a line that count, under the op and module they join by.
struct Counted {
  const LineKernelSums* sums;
  std::string hlo_op, hlo_module;
  double outer;  // the outer time among the events that count
};

/// The sums of the lines that count (trace_kernels.hpp), in the order of `trace.sums`.
struct CountedSums {
  std::vector<Counted> counted;
  bool host_only = false;  // no device process: host events count
};

CountedSums counted_sums(const TraceSums& trace) {
  const auto process_name = [&](const std::string& pid) -> std::string_view {
    const auto it = trace.process_names.find(pid);
    return it == trace.process_names.end() ? std::string_view() : std::string_view(it->second);
  };
  const auto thread_name = [&](const LineKernelSums& s) -> std::string_view {
    const auto it = trace.thread_names.find({s.pid, s.tid});
    return it == trace.thread_names.end() ? std::string_view() : std::string_view(it->second);
  };

  // What the processes are, which of them have XLA Ops lines, the modules of programs.
  bool any_device = false, any_op = false;
  std::unordered_set<std::string_view> with_xla_ops;
  std::unordered_map<std::string_view, std::string_view> module_of_program;
  for (const LineKernelSums& s : trace.sums) {
    const std::string_view line = thread_name(s);
    if (process_kind(process_name(s.pid)) == ProcessKind::kDevice) any_device = true;
    if (line == "XLA Ops") with_xla_ops.insert(s.pid);
    if (line == "XLA Ops" || !s.hlo_op.empty()) any_op = true;
    if (line == "XLA Modules") {
      const auto [module, program] = split_program_id(s.name);
      if (!program.empty()) module_of_program.emplace(program, module);
    }
  }

  CountedSums out;
  out.host_only = !any_device;
  for (const LineKernelSums& s : trace.sums) {
    const std::string_view line = thread_name(s);
    const ProcessKind kind = process_kind(process_name(s.pid));
    const bool on_xla_ops = line == "XLA Ops";
    bool counts = false, op_mode = false;  // op_mode: counted among the events that carry hlo_op
    if (kind == ProcessKind::kDevice) {
      counts = with_xla_ops.contains(s.pid) ? on_xla_ops : !summary_line(line);
    } else if (any_device) {
      counts = op_mode = kind == ProcessKind::kOther && !s.hlo_op.empty();
    } else if (any_op) {
      counts = on_xla_ops || !s.hlo_op.empty();
      op_mode = !on_xla_ops;
    } else {
      counts = !summary_line(line);
    }
    if (!counts) continue;
    Counted c{&s, s.hlo_op, s.hlo_module, op_mode ? s.outer_op_microseconds : s.outer_microseconds};
    if (c.hlo_op.empty() && on_xla_ops) {
      c.hlo_op = !s.long_name_op.empty() ? s.long_name_op : s.name;
      if (c.hlo_op.starts_with('%')) c.hlo_op.erase(0, 1);
    }
    if (c.hlo_module.empty() && !s.program_id.empty()) {
      if (const auto it = module_of_program.find(s.program_id); it != module_of_program.end()) {
        c.hlo_module = it->second;
      }
    }
    out.counted.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::pair<std::string_view, std::string_view> split_program_id(std::string_view name) {
  if (name.size() < 3 || name.back() != ')') return {name, {}};
  const std::size_t open = name.rfind('(');
  if (open == std::string_view::npos || open == 0 || open + 2 > name.size() - 1) return {name, {}};
  const std::string_view digits = name.substr(open + 1, name.size() - open - 2);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return {name, {}};
  return {name.substr(0, open), digits};
}

Profile counted_kernels(const TraceSums& trace) {
  Profile profile;
  profile.compressed = trace.compressed;
  profile.trace_events = trace.events;
  profile.unpaired_events = trace.unpaired_events;
  const auto [counted, host_only] = counted_sums(trace);
  profile.host_only = host_only;

  // The processes counted, then the kernels.
  const auto shown_process = [&](const std::string& pid) {
    const auto it = trace.process_names.find(pid);
    return it == trace.process_names.end() || it->second.empty() ? fmt::format("pid {}", pid) : it->second;
  };
  for (const Counted& c : counted) profile.processes.push_back(shown_process(c.sums->pid));
  std::sort(profile.processes.begin(), profile.processes.end());
  profile.processes.erase(std::unique(profile.processes.begin(), profile.processes.end()), profile.processes.end());

  std::map<std::tuple<std::string, std::string, std::string, std::string>, ProfileKernel> kernels;
  double total = 0;
  for (const Counted& c : counted) {
    const LineKernelSums& s = *c.sums;
    ProfileKernel& k = kernels[{c.hlo_module, c.hlo_op, s.name, s.program_id}];
    k.hlo_module = c.hlo_module;
    k.hlo_op = c.hlo_op;
    k.name = s.name;
    k.program_id = s.program_id;
    k.microseconds += s.microseconds;
    k.outer_microseconds += c.outer;
    k.events += s.events;
    const std::string process = shown_process(s.pid);
    const auto device = static_cast<std::uint32_t>(
        std::lower_bound(profile.processes.begin(), profile.processes.end(), process) - profile.processes.begin());
    if (std::find(k.devices.begin(), k.devices.end(), device) == k.devices.end()) k.devices.push_back(device);
    total += c.outer;
    profile.total_events += s.events;
  }
  for (auto& [key, kernel] : kernels) {
    std::sort(kernel.devices.begin(), kernel.devices.end());
    profile.kernels.push_back(std::move(kernel));
  }
  profile.total_seconds = total / 1e6;
  return profile;
}

}  // namespace hlo_index::cost

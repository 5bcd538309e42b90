#include "app/cost_render.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "indexing/cost/units.hpp"

namespace hlo_index::app {

using cost::human_bytes;
using cost::human_count;
using cost::human_seconds;

namespace {

std::string bytes_of(const cost::ArrayTraffic& t) {
  if (t.unit_bytes == 0) return "nothing laid out";
  std::string where;
  switch (cost::memory_kind(t.memory_space)) {
    case cost::MemoryKind::kDevice: break;
    case cost::MemoryKind::kOnChip: where = fmt::format(" in on-chip memory S({})", t.memory_space); break;
    case cost::MemoryKind::kHost: where = fmt::format(" in host memory S({})", t.memory_space); break;
  }
  return fmt::format("{}{} ({} unit{} of {} B){}", t.exact ? "" : "<=", human_bytes(t.bytes()), t.units,
                     t.units == 1 ? "" : "s", t.unit_bytes, where);
}

nlohmann::ordered_json traffic_json(const cost::ArrayTraffic& t) {
  return {{"bytes", t.bytes()},
          {"units", t.units},
          {"unit_bytes", t.unit_bytes},
          {"memory_space", t.memory_space},
          {"exact", t.exact}};
}

}  // namespace

std::string time_text(const cost::InstructionCost& c) {
  if (!c.runs) return "0 s (moves nothing)";
  std::string parts =
      fmt::format("compute {}, memory {}", human_seconds(c.compute_seconds), human_seconds(c.memory_seconds));
  if (c.overhead_seconds > 0) parts += ", overhead " + human_seconds(c.overhead_seconds);
  if (c.collective_seconds > 0) parts += ", collective " + human_seconds(c.collective_seconds);
  return fmt::format("{} ({}-bound: {})", human_seconds(c.seconds), cost::bound_name(c.bound), parts);
}

std::string cost_text(const cost::InstructionCost& c, const std::vector<std::string>& operand_names,
                      const std::string& indent) {
  if (!c.runs) return indent + "cost: none (bookkeeping: no kernel, nothing moved)\n";
  std::string out = indent + "cost: " + time_text(c) + "\n";
  std::string flops = c.flops_known
                          ? fmt::format("{} FLOP, {} transcendental", human_count(static_cast<double>(c.flops)),
                                        human_count(static_cast<double>(c.transcendentals)))
                          : "FLOPs unknown (" + c.flops_note + ")";
  if (c.flops_known && (c.xla_flops != c.flops || c.xla_transcendentals != c.transcendentals))
    flops +=
        fmt::format(" (XLA's convention: {} FLOP, {} transcendental)", human_count(static_cast<double>(c.xla_flops)),
                    human_count(static_cast<double>(c.xla_transcendentals)));
  if (c.flops_known && !c.flops_exact && !c.flops_note.empty()) flops += "; " + c.flops_note;
  out += indent + "  arithmetic: " + flops + "\n";
  const std::string bound = c.bytes_exact ? "" : "<=";
  out +=
      indent + fmt::format("  device memory: read {}{}, written {}{}; intensity {:.3g} FLOP/B\n", bound,
                           human_bytes(c.device_bytes_read), bound, human_bytes(c.device_bytes_written), c.intensity());
  if (c.on_chip_bytes > 0) out += indent + "  on-chip memory: " + human_bytes(c.on_chip_bytes) + "\n";
  if (c.host_bytes > 0) out += indent + "  host memory: " + human_bytes(c.host_bytes) + "\n";
  if (c.collective_bytes > 0) out += indent + "  interconnect: " + human_bytes(c.collective_bytes) + " per device\n";
  for (std::size_t j = 0; j < c.operand_reads.size(); ++j) {
    const std::string name = j < operand_names.size() ? operand_names[j] : std::string("?");
    out += indent + fmt::format("  operand {} %{}: reads {}\n", j, name, bytes_of(c.operand_reads[j]));
  }
  for (std::size_t k = 0; k < c.output_writes.size(); ++k) {
    const std::string which = c.output_writes.size() > 1 ? fmt::format("output {}", k) : std::string("output");
    out += indent + fmt::format("  {}: writes {}\n", which, bytes_of(c.output_writes[k]));
  }
  out += indent + fmt::format("  logical reads (every read x element size): {}\n", human_bytes(c.logical_read_bytes));
  return out;
}

nlohmann::ordered_json cost_json(const cost::InstructionCost& c) {
  nlohmann::ordered_json j;
  j["runs"] = c.runs;
  j["seconds"] = c.seconds;
  j["bound"] = std::string(cost::bound_name(c.bound));
  j["compute_seconds"] = c.compute_seconds;
  j["memory_seconds"] = c.memory_seconds;
  j["overhead_seconds"] = c.overhead_seconds;
  j["collective_seconds"] = c.collective_seconds;
  j["flops"] = c.flops;
  j["transcendentals"] = c.transcendentals;
  j["xla_flops"] = c.xla_flops;
  j["xla_transcendentals"] = c.xla_transcendentals;
  j["flops_known"] = c.flops_known;
  j["flops_exact"] = c.flops_exact;
  if (!c.flops_note.empty()) j["flops_note"] = c.flops_note;
  j["device_bytes_read"] = c.device_bytes_read;
  j["device_bytes_written"] = c.device_bytes_written;
  j["on_chip_bytes"] = c.on_chip_bytes;
  j["host_bytes"] = c.host_bytes;
  j["bytes_exact"] = c.bytes_exact;
  j["intensity"] = c.intensity();
  j["logical_read_bytes"] = c.logical_read_bytes;
  if (c.collective_bytes > 0) j["collective_bytes"] = c.collective_bytes;
  nlohmann::ordered_json reads = nlohmann::ordered_json::array(), writes = nlohmann::ordered_json::array();
  for (const cost::ArrayTraffic& t : c.operand_reads) reads.push_back(traffic_json(t));
  for (const cost::ArrayTraffic& t : c.output_writes) writes.push_back(traffic_json(t));
  j["operand_reads"] = reads;
  j["output_writes"] = writes;
  return j;
}

double MeasuredExecution::seconds() const {
  double per_run = time.seconds / static_cast<double>(std::max<std::size_t>(1, time.devices)) /
                   static_cast<double>(std::max<std::size_t>(1, module_runs));
  return runs.exact && runs.count > 0 ? per_run / runs.count : per_run;
}

std::string measured_text(const MeasuredExecution& m) {
  return fmt::format("measured: {} per {} ({} on {}, {} in the trace of {})", human_seconds(m.seconds()),
                     m.runs.exact ? "execution" : "run of the module", cost::plural(m.time.events, "event"),
                     cost::plural(m.time.devices, "device"), human_seconds(m.time.seconds),
                     cost::plural(m.module_runs, "run") + " of the module");
}

nlohmann::ordered_json measured_json(const MeasuredExecution& m) {
  return {{"seconds", m.seconds()},          {"per", m.runs.exact ? "execution" : "run of the module"},
          {"trace_seconds", m.time.seconds}, {"events", m.time.events},
          {"devices", m.time.devices},       {"module_runs", m.module_runs}};
}

std::string totals_text(const std::string& module, const cost::Device& device, const cost::CostTotals& t) {
  return fmt::format(
      "cost of module {} on {}: {}{} estimated over {} instruction{} that run (compute {}, memory {}, overhead "
      "{}, collective {}); {} FLOP, {} transcendental, {} of device memory moved{}\n",
      module, device.name, t.exact ? "" : "~", human_seconds(t.seconds), t.instructions, t.instructions == 1 ? "" : "s",
      human_seconds(t.compute_seconds), human_seconds(t.memory_seconds), human_seconds(t.overhead_seconds),
      human_seconds(t.collective_seconds), human_count(t.flops), human_count(t.transcendentals),
      human_bytes(t.device_bytes), t.unknown > 0 ? fmt::format("; FLOPs unknown for {}", t.unknown) : std::string());
}

nlohmann::ordered_json totals_json(const cost::CostTotals& t) {
  return {{"seconds", t.seconds},
          {"compute_seconds", t.compute_seconds},
          {"memory_seconds", t.memory_seconds},
          {"overhead_seconds", t.overhead_seconds},
          {"collective_seconds", t.collective_seconds},
          {"flops", t.flops},
          {"transcendentals", t.transcendentals},
          {"device_bytes", t.device_bytes},
          {"on_chip_bytes", t.on_chip_bytes},
          {"host_bytes", t.host_bytes},
          {"instructions", t.instructions},
          {"flops_unknown", t.unknown},
          {"exact", t.exact}};
}

nlohmann::ordered_json device_json(const cost::Device& device) {
  return nlohmann::ordered_json::parse(cost::device_to_json(device));
}

}  // namespace hlo_index::app

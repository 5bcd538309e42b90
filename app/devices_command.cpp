#include "app/devices_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/exit_codes.hpp"
#include "indexing/cost/device.hpp"
#include "indexing/cost/units.hpp"

namespace hlo_index::app {

namespace {

std::string peaks_text(const cost::Device& d) {
  std::string out;
  for (const cost::Peak& p : d.peaks) {
    out +=
        fmt::format("    {:<6} {:<6} {}FLOP/s\n", cost::peak_class_name(p.type),
                    p.unit == cost::ComputeUnit::kMatrix ? "matrix" : "vector", cost::human_count(p.flops_per_second));
  }
  return out;
}

std::string device_text(const cost::Device& d) {
  std::string out = fmt::format("{}: {} ({})\n", d.name, d.description, analysis::target_name(d.target));
  out += "  peaks (dense):\n" + peaks_text(d);
  out += fmt::format("  memory: {} at {}B/s; on chip {}\n", cost::human_bytes(d.memory_bytes),
                     cost::human_count(d.memory_bandwidth),
                     d.on_chip_bytes > 0 ? cost::human_bytes(d.on_chip_bytes) : std::string("-"));
  out += fmt::format("  cores: {}; overhead per kernel or op: {}; interconnect {}B/s per direction, latency {}\n",
                     d.cores, cost::human_seconds(d.launch_overhead), cost::human_count(d.interconnect_bandwidth),
                     cost::human_seconds(d.collective_latency));
  out += d.transfer_bytes > 0 ? fmt::format("  transfer unit: {} B\n", d.transfer_bytes)
                              : fmt::format("  transfer unit: a tile of the array's tiled layout ({} B untiled)\n",
                                            d.untiled_transfer_bytes);
  out += fmt::format("  f32 dots on the matrix unit as TF32: {}\n", d.tf32 ? "yes (XLA's default precision)" : "no");
  if (d.resident_blocks_per_core > 0 && d.memory_latency > 0)
    out += fmt::format("  tile search: {} blocks and {} threads resident per core, memory latency {}\n",
                       d.resident_blocks_per_core, d.resident_threads_per_core, cost::human_seconds(d.memory_latency));
  out += "  source: " + d.source + "\n";
  return out;
}

constexpr const char* k_devices_help =
    "The devices --device names (analyze --cost, summary, report, lint): published dense peaks per data type\n"
    "on the vector and matrix units, memory bandwidth and size, cores, the model's fixed overhead per kernel\n"
    "(GPU) or op (TPU, CPU), the interconnect for collectives, and the unit memory moves in. Each device says\n"
    "where its figures are published; estimates are marked as such. --format json prints the fields\n"
    "--device-file reads, so `hlo-index devices h100-sxm --format json > mine.json` is a start for one's own.\n"
    "\n"
    "Examples:\n"
    "  hlo-index devices\n"
    "  hlo-index devices tpu-v5e --format json";

}  // namespace

void setup_devices_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* cmd = app.add_subcommand("devices", "The devices estimated times are for, with their published figures");
  cmd->footer(k_devices_help);
  cmd->add_option("name", options->name, "Only this device")->type_name("NAME");
  cmd->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->callback([options, &exit_code] { exit_code = run_devices_command(*options, std::cout, std::cerr); });
}

int run_devices_command(const DevicesOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<const cost::Device*> shown;
  if (options.name.empty()) {
    for (const cost::Device& d : cost::known_devices()) shown.push_back(&d);
  } else if (const cost::Device* d = cost::find_device(options.name)) {
    shown.push_back(d);
  } else {
    std::string names;
    for (const cost::Device& k : cost::known_devices()) names.append(names.empty() ? "" : ", ").append(k.name);
    err << fmt::format("hlo-index: error: no device named '{}'; the devices are: {}\n", options.name, names);
    return k_exit_input_error;
  }
  if (options.format == "json") {
    if (shown.size() == 1) {
      out << cost::device_to_json(*shown.front()) << "\n";
      return k_exit_ok;
    }
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const cost::Device* d : shown) list.push_back(nlohmann::ordered_json::parse(cost::device_to_json(*d)));
    out << list.dump(2) << "\n";
    return k_exit_ok;
  }
  for (std::size_t k = 0; k < shown.size(); ++k) out << (k > 0 ? "\n" : "") << device_text(*shown[k]);
  return k_exit_ok;
}

}  // namespace hlo_index::app

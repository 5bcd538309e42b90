#include "app/device_options.hpp"

#include <fmt/format.h>

#include <fstream>
#include <ostream>
#include <sstream>

namespace hlo_index::app {

namespace {

std::string device_names() {
  std::string names;
  for (const cost::Device& d : cost::known_devices()) names.append(names.empty() ? "" : ", ").append(d.name);
  return names;
}

}  // namespace

void add_device_options(CLI::App& cmd, DeviceOptions& options) {
  cmd.add_option("--device", options.device,
                 "The device estimated times are for: one of " + device_names() +
                     " (published peak FLOP/s, memory bandwidth, overheads; `hlo-index devices` lists them with "
                     "their sources); default: h100-sxm for GPU dumps, tpu-v5e for TPU dumps, cpu-x86 for CPU dumps")
      ->type_name("NAME");
  cmd.add_option("--device-file", options.device_file,
                 "A device of one's own, as JSON in the fields `hlo-index devices --format json` prints "
                 "(docs/cost-model.md); overrides --device")
      ->type_name("FILE");
}

std::optional<ChosenDevice> choose_device(const DeviceOptions& options, std::ostream& err) {
  ChosenDevice out;
  if (!options.device_file.empty()) {
    std::ifstream in(options.device_file);
    if (!in) {
      err << fmt::format("{}: error: cannot open the device file\n", options.device_file);
      return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    try {
      out.device = cost::device_from_json(text.str());
    } catch (const std::exception& e) {
      err << fmt::format("{}: error: not a device: {}\n", options.device_file, e.what());
      return std::nullopt;
    }
    return out;
  }
  if (options.device.empty()) return out;
  const cost::Device* d = cost::find_device(options.device);
  if (d == nullptr) {
    err << fmt::format("hlo-index: error: no device named '{}'; the devices are: {}\n", options.device, device_names());
    return std::nullopt;
  }
  out.device = *d;
  return out;
}

}  // namespace hlo_index::app

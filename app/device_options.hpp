// `--device NAME` and `--device-file FILE`: the machine estimated times are
// for (indexing/cost/device.hpp). One wording and one resolution for every
// command that prints costs.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>

#include "indexing/cost/device.hpp"

namespace hlo_index::app {

struct DeviceOptions {
  std::string device;       // a name of cost::known_devices(); empty: by the module's target
  std::string device_file;  // a JSON device (docs/cost-model.md); empty: none
};

void add_device_options(CLI::App& cmd, DeviceOptions& options);

/// The device the options choose: nullopt with a message to `err` for an
/// unknown name (listing the known ones) or an unreadable or malformed file;
/// a null device (`chosen` false) when neither option is given.
struct ChosenDevice {
  std::optional<cost::Device> device;
  const cost::Device* get() const { return device ? &*device : nullptr; }
};
std::optional<ChosenDevice> choose_device(const DeviceOptions& options, std::ostream& err);

}  // namespace hlo_index::app

// `hlo-index devices [NAME]`: the devices estimated times can be for, with
// their figures and where they are published (indexing/cost/devices.cpp).
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace hlo_index::app {

struct DevicesOptions {
  std::string name;             // one device; empty: all
  std::string format = "text";  // text | json
};

void setup_devices_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code (2 for an unknown name).
int run_devices_command(const DevicesOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

// `hlo-index parse FILE...`: parse, report statistics, optionally re-print.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace hlo_index::app {

struct ParseOptions {
  std::vector<std::string> files;
  std::string format = "text";  // text | json
  bool print = false;
  bool allow_truncated = false;
};

void setup_parse_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code. Output to `out`, diagnostics to `err`.
int run_parse_command(const ParseOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

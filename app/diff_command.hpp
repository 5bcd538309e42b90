// `hlo-index diff OLD NEW`: the fusions of two dumps of one program matched
// up (indexing/analysis/dump_diff), reported as added, removed and changed
// with each changed figure before and after; exit 1 on a regression, for CI.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/common_options.hpp"

namespace hlo_index::app {

inline constexpr int k_exit_regression = 1;  // diff only: a regression beyond the threshold

struct DiffOptions {
  std::string old_file, new_file;
  double threshold = 5.0;  // percent: relative increase of a time or byte count that is a regression
  double min_us = 1;       // the time floor, microseconds
  double min_share = 0;    // the time floor as a percentage of the module's estimated time
  std::int64_t min_bytes = std::int64_t{1} << 20;  // the bytes floor
  std::vector<std::string> modules;
  std::string match;            // ECMAScript regex searched in instruction names; empty: none
  std::string format = "text";  // text | json
  std::string target;           // gpu | tpu | cpu for the access verdicts; empty: detected
  bool all_instructions = false;
  bool allow_truncated = false;
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;  // seconds; 0: none
  unsigned jobs = 1;                                                         // threads (-j); 0: one per hardware thread
};

/// Adds diff's options to `cmd`, storing into `options` (which must outlive parsing).
void add_diff_options(CLI::App& cmd, DiffOptions& options);
void setup_diff_command(CLI::App& app, int& exit_code);
/// Runs the command: 0 no regression, 1 a regression, 2 bad input. Report to
/// `out`, diagnostics to `err`.
int run_diff_command(const DiffOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

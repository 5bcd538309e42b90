// `hlo-index report FILE... -o OUT.html`: one self-contained HTML page with,
// per distinct module, where the time goes (by bound, a roofline, by
// framework op), the heaviest kinds of fusion in detail (HLO, operands with
// pictures, findings), the summary table (sortable) and the lint findings.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/common_options.hpp"
#include "app/device_options.hpp"

namespace hlo_index::app {

struct ReportOptions {
  std::vector<std::string> files;
  std::string output;                // -o: a file, or - for standard output
  std::size_t top = 10;              // detailed kinds of row per module
  std::size_t max_rows = 500;        // table rows per module
  std::string sort = "time";         // a summary column
  bool sort_given = false;           // --sort was given (else a profile sorts by measured time)
  std::string profile;               // a trace file (--profile); empty: none
  bool all_instructions = false;     // rows for every instruction of the analysed computations
  std::vector<std::string> modules;  // --module
  std::string match;                 // --match
  std::string target;                // gpu | tpu | cpu; empty: detected
  DeviceOptions device;              // the device of the estimated times
  bool allow_truncated = false;
  unsigned jobs = 1;  // threads (-j); 0: one per hardware thread
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;                     // seconds; 0: none
  std::uint64_t work_budget_per_instruction = indexing::k_default_work_budget_per_instruction;  // steps; 0: none
};

/// Adds report's options to `cmd`, storing into `options` (which must outlive parsing).
void add_report_options(CLI::App& cmd, ReportOptions& options);
void setup_report_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code (0, or 2 for bad input). The page
/// to the file named by -o (or `out` for `-`), a line about it to `out` (to
/// `err` when the page goes to `out`), diagnostics to `err`.
int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

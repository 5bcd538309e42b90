// `hlo-index summary FILE...`: one row of figures per fusion (or per
// analysed instruction), sorted and filtered, as an aligned table that fits
// 120 columns, JSON or CSV; the rows come from indexing/analysis/summary.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "app/common_options.hpp"
#include "app/device_options.hpp"
#include "app/profile_option.hpp"
#include "app/progress.hpp"
#include "indexing/verdicts/summary.hpp"

namespace hlo_index::app {

struct SummaryOptions {
  std::vector<std::string> files;
  bool all_instructions = false;   // a row per instruction of the analysed computations, not only fusions
  std::string sort = "time";       // a column of summary_column_names()
  bool sort_given = false;         // --sort was given (else a profile sorts by measured time)
  std::string profile;             // a trace file (--profile); empty: none
  std::optional<std::size_t> top;  // rows per module
  std::vector<std::string> kinds, opcodes, modules, computations;
  std::string match;            // ECMAScript regex searched in instruction names; empty: none
  std::string format = "text";  // text | json | csv
  std::string group_by;         // op_name | source | computation | module | opcode; empty: rows
  bool every_row = false;       // text: a line per row, repeated layers not folded
  bool tiles = false;           // text: the best tiling of each fusion row (hlo-index tile's search)
  std::string target;           // gpu | tpu | cpu for the access verdicts; empty: detected
  DeviceOptions device;         // the device of the estimated times
  bool allow_truncated = false;
  unsigned jobs = 1;  // threads (-j); 0: one per hardware thread
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;                     // seconds; 0: none
  std::uint64_t work_budget_per_instruction = indexing::k_default_work_budget_per_instruction;  // steps; 0: none
};

/// Adds summary's options to `cmd`, storing into `options` (which must outlive parsing).
void add_summary_options(CLI::App& cmd, SummaryOptions& options);
void setup_summary_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code (0, or 2 for bad input, a bad
/// column or filters that select nothing). Table to `out`, diagnostics to `err`.
int run_summary_command(const SummaryOptions& options, std::ostream& out, std::ostream& err);

/// The rows `summary` and `report` ask for: as `options` (either command's)
/// say, with a progress line on `progress` over `modules`.
template <typename Options>
analysis::SummaryRequest summary_request(const Options& options, analysis::InstructionFilter filter, Progress& progress,
                                         const std::vector<hlo::Module>& modules, const cost::Device* device) {
  analysis::SummaryRequest request;
  request.device = device;
  request.all_instructions = options.all_instructions;
  request.target = analysis::parse_target(options.target);
  request.filter = std::move(filter);
  request.analysis.time_limit_per_instruction = options.time_limit_per_instruction;
  request.analysis.work_budget_per_instruction = options.work_budget_per_instruction;
  request.jobs = options.jobs;
  request.on_row = [&progress, &modules, shown = std::optional<std::size_t>()](std::size_t module) mutable {
    if (shown != module) progress.module(module, modules.size(), modules[module].name);
    shown = module;
    progress.instruction_done();
  };
  return request;
}

/// A row's measured time per run of the module ("-": the profile has none for it).
std::string measured_cell(const analysis::SummaryRow& row);
/// One line: the profile's time against the estimates, for the instructions
/// it measured (ModuleSummary's measured_seconds, estimated_seconds_measured, profile_steps).
std::string measured_line(std::optional<double> measured_seconds, double estimated_seconds_measured,
                          std::size_t profile_steps);

/// The table's cells of one row, in column order (as the text table prints
/// them; `hlo-index report` shows the same), and the column headers.
std::vector<std::string> summary_cells(const analysis::SummaryRow& row);
const std::vector<std::string>& summary_headers();

/// `text` cut to `width` columns by replacing its middle with `…` (one column,
/// three bytes in UTF-8), keeping more of the end, where numeric suffixes are:
/// elide_middle("loop_dynamic_update_slice_fusion.12", 16) is "loop_dy…usion.12".
/// `text` is ASCII (HLO names are).
std::string elide_middle(std::string_view text, std::size_t width);

}  // namespace hlo_index::app

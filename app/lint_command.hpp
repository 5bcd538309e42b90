// `hlo-index lint FILE...`: rules over every fusion's indexing (uncoalesced
// reads, low utilisation, re-reads, several access patterns, what hlo-index
// cannot analyse) as compiler-style warnings, JSON or SARIF, for CI.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

#include "app/common_options.hpp"
#include "app/device_options.hpp"
#include "indexing/verdicts/lint_rules.hpp"

namespace hlo_index::app {

/// Exit code of a lint run that found something (0: clean, 2: bad input).
inline constexpr int k_exit_lint_findings = 1;

struct LintOptions {
  std::vector<std::string> files;
  std::vector<std::string> enable;   // rule ids; empty: every rule
  std::vector<std::string> disable;  // rule ids
  analysis::LintThresholds thresholds;
  bool all_instructions = false;     // every instruction, not only fusions
  std::string target;                // gpu | tpu | cpu for uncoalesced-read; empty: detected
  DeviceOptions device;              // the device costly-recompute and missed-fusion estimate time on
  std::vector<std::string> modules;  // --module: only these modules; empty: every module
  std::string match;                 // --match: ECMAScript regex searched in instruction names; empty: every name
  std::string format = "text";       // text | json | sarif
  std::string baseline;              // drop the findings listed in this file
  std::string write_baseline;        // write every finding to this file instead of reporting
  bool list_rules = false;           // print the rules and exit
  std::string explain;               // print this rule's documentation and exit
  bool allow_truncated = false;
  unsigned jobs = 1;  // threads (-j); 0: one per hardware thread
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;  // seconds; 0: none
};

/// Adds lint's options and flags to `cmd`, storing into `options` (which
/// must outlive `cmd`'s parsing). Sizes take B, KiB, MiB and GiB suffixes.
void add_lint_options(CLI::App& cmd, LintOptions& options);
void setup_lint_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code (0 clean, 1 findings, 2 input
/// errors). Findings to `out`; diagnostics and the summary line to `err`.
int run_lint_command(const LintOptions& options, std::ostream& out, std::ostream& err);

/// `4096`, `512KiB`, `1MiB`, `2GiB` (also with a blank before the unit).
std::optional<std::int64_t> parse_size(std::string_view text);

}  // namespace hlo_index::app

// `hlo-index analyze FILE...`: the indexing maps of every instruction
// (fusions composed through their bodies), as text or JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/common_options.hpp"
#include "app/device_options.hpp"
namespace hlo_index::app {

struct AnalyzeOptions {
  std::vector<std::string> files;
  std::vector<std::string> computations;  // empty: every computation that is not a fused one
  std::vector<std::string> instructions;  // empty: every instruction
  std::vector<std::string> modules;       // empty: every module
  std::string match;                      // ECMAScript regex searched in instruction names; empty: every name
  bool all_computations = false;  // also scalar computations (reducers, comparators) and instructions without operands
  std::string direction = "out2in";  // out2in | in2out | both
  std::optional<std::size_t> operand;
  bool simplify = true;
  bool xla_compat = false;
  bool one_line = false;
  bool physical = false;        // maps between element offsets of the buffers
  bool utilisation = false;     // per-operand counts: elements read, reads, bytes (indexing/analysis/utilisation.hpp)
  bool coalescing = false;      // per-operand read pattern across threads (indexing/analysis/coalescing.hpp)
  bool cost = false;            // FLOPs, bytes moved and estimated time (indexing/cost/cost_model.hpp)
  std::string profile;          // a trace file (--profile, implies cost); empty: none
  DeviceOptions device;         // the device of the estimated times
  std::string target;           // gpu | tpu | cpu; empty: detected from the module
  std::string format = "text";  // text | json
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;                     // seconds; 0: none
  std::uint64_t work_budget_per_instruction = indexing::k_default_work_budget_per_instruction;  // steps; 0: none
  bool allow_truncated = false;
  unsigned jobs = 1;             // threads analysing instructions (-j); 0: one per hardware thread
  bool canonical_names = false;  // rename by stem and position first (parser/canonical_names.hpp)
  std::string expect;            // a golden file: print the diff from it instead of the output
  bool update = false;           // with `expect`: rewrite the golden file instead
};

void setup_analyze_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code. Output to `out`, diagnostics to `err`. With
/// `expect`, `out` gets only the diff from the golden file (app/golden_file.hpp).
int run_analyze_command(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

// The options several commands share, with one wording: accepting truncated
// dumps, the two bounds on analysis (isl's operation budget and the
// per-instruction time limit), threads and the target.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace hlo_index::app {

/// Seconds one instruction's analysis may take unless told otherwise: a few
/// seconds, so that one runaway instruction cannot hold up a CI job, while
/// the slowest instruction of the corpus (torax's 268-output `call`) takes
/// about 0.5 s in Release on a loaded machine.
inline constexpr double k_default_time_limit_per_instruction = 5.0;

inline void add_allow_truncated_option(CLI::App& cmd, bool& allow_truncated) {
  cmd.add_flag("--allow-truncated", allow_truncated,
               "Accept a dump cut off inside its last computation (a warning instead of an error)");
}

inline void add_isl_budget_option(CLI::App& cmd, unsigned long& isl_max_operations) {
  cmd.add_option("--isl-max-operations", isl_max_operations,
                 "Budget of one isl computation in isl operations (default 2000000); when it runs out the "
                 "answer is a sound over-approximation marked approximate");
}

/// `consequence` ends the help text: what else happens past the limit.
inline void add_time_limit_option(CLI::App& cmd, double& seconds, const std::string& consequence = "") {
  cmd.add_option("--time-limit-per-instruction", seconds,
                 "Seconds one instruction's analysis may take (default " +
                     std::to_string(static_cast<int>(k_default_time_limit_per_instruction)) +
                     ", 0: no limit); past it the instruction's maps are what it may read by dataflow, every "
                     "element (approximate), or UNDEFINED with the reason where that cannot be followed" +
                     consequence)
      ->check(CLI::NonNegativeNumber);
}

inline void add_jobs_option(CLI::App& cmd, unsigned& jobs) {
  cmd.add_option("-j,--jobs", jobs,
                 "Threads analysing instructions, across files and within a module (default 1, 0: one per "
                 "hardware thread); the output is the same for every N");
}

/// `--target gpu|tpu|cpu`; `judged` says what the target is for.
inline void add_target_option(CLI::App& cmd, std::string& target, const std::string& judged) {
  cmd.add_option("--target", target,
                 "Machine " + judged +
                     ": gpu (XLA's GPU emitters: warps of 32, 128-byte transactions), tpu (tile transfers of the "
                     "tiled layouts), cpu (64-byte cache lines); default: tpu when the module has tiled layouts or "
                     "memory spaces, else gpu")
      ->check(CLI::IsMember({"gpu", "tpu", "cpu"}));
}

/// The options of a command that reads dumps and analyses them:
/// --allow-truncated, --isl-max-operations, --time-limit-per-instruction
/// (`consequence` ends its help) and, when the command has threads, -j.
template <typename Options>
void add_analysis_run_options(CLI::App& cmd, Options& options, const std::string& consequence = "") {
  add_allow_truncated_option(cmd, options.allow_truncated);
  add_isl_budget_option(cmd, options.isl_max_operations);
  add_time_limit_option(cmd, options.time_limit_per_instruction, consequence);
  if constexpr (requires { options.jobs; }) add_jobs_option(cmd, options.jobs);
}

}  // namespace hlo_index::app

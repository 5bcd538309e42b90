// The options several commands share, with one wording: accepting truncated
// dumps, the bounds on analysis (isl's operation budget, the per-instruction
// work budget and time limit), threads and the target.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "indexing/compose/instruction_indexing.hpp"

namespace hlo_index::app {

/// Seconds one instruction's analysis may take unless told otherwise: no
/// limit. The work budget (--work-budget-per-instruction) bounds analysis by
/// default, so that the output does not depend on the machine's load; a
/// time limit is an option on top of it.
inline constexpr double k_default_time_limit_per_instruction = 0.0;

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
                 "Seconds one instruction's analysis may take (default 0: no limit; the work budget bounds it "
                 "instead); past it as past the work budget, but the answer then depends on the machine's load" +
                     consequence)
      ->check(CLI::NonNegativeNumber);
}

/// `consequence` ends the help text: what else happens past the budget.
inline void add_work_budget_option(CLI::App& cmd, std::uint64_t& steps, const std::string& consequence = "") {
  cmd.add_option("--work-budget-per-instruction", steps,
                 "Steps one instruction's analysis may take, counted (composition steps and isl computations), "
                 "not timed, so the output is the same on any machine and load (default " +
                     std::to_string(indexing::k_default_work_budget_per_instruction) +
                     ", 0: no budget); past it the instruction's maps are what it may read by dataflow, every "
                     "element (approximate), or UNDEFINED with the reason where that cannot be followed" +
                     consequence);
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
/// --allow-truncated, --isl-max-operations, --work-budget-per-instruction
/// (when the options have it), --time-limit-per-instruction (`consequence`
/// ends their help) and, when the command has threads, -j.
template <typename Options>
void add_analysis_run_options(CLI::App& cmd, Options& options, const std::string& consequence = "") {
  add_allow_truncated_option(cmd, options.allow_truncated);
  add_isl_budget_option(cmd, options.isl_max_operations);
  if constexpr (requires { options.work_budget_per_instruction; })
    add_work_budget_option(cmd, options.work_budget_per_instruction, consequence);
  add_time_limit_option(cmd, options.time_limit_per_instruction, consequence);
  if constexpr (requires { options.jobs; }) add_jobs_option(cmd, options.jobs);
}

}  // namespace hlo_index::app

// Exit codes of hlo-index, the same for every subcommand, and the paragraph of
// every --help that states them.
#pragma once

namespace hlo_index::app {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_findings = 1;        // lint warnings, diff regressions, analyze --expect differences
inline constexpr int k_exit_input_error = 2;     // the input (or the command line) is wrong
inline constexpr int k_exit_internal_error = 3;  // a bug in hlo-index: please report it

/// The last paragraph of the top-level --help and of every subcommand's --help
/// (main.cpp appends it to each footer), so the codes read the same everywhere.
inline constexpr const char* k_exit_codes_help =
    "Exit codes: 0 success; 1 findings, regressions or golden-file differences (lint warnings,\n"
    "diff regressions, analyze --expect); 2 bad input or usage; 3 internal error (a bug: please report it).";

}  // namespace hlo_index::app

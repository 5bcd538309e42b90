// Exit codes of hlo-index, the same for every subcommand, and the paragraph of
// every --help that states them.
#pragma once

#include <ostream>

namespace hlo_index::app {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_findings = 1;        // lint warnings, diff regressions, analyze --expect differences
inline constexpr int k_exit_input_error = 2;     // the input (or the command line) is wrong
inline constexpr int k_exit_internal_error = 3;  // a bug in hlo-index: please report it

/// The last paragraph of the top-level --help and of every subcommand's --help
/// (main.cpp appends it to each footer), so the codes read the same everywhere.
inline constexpr const char* k_exit_codes_help =
    "Exit codes: 0 success; 1 findings, regressions or golden-file differences (lint warnings,\n"
    "diff regressions, analyze --expect); 2 bad input or usage; 3 internal error (a bug: please report it).\n"
    "Given several files or a directory, a command reports each file it cannot read, goes on with the\n"
    "others and exits 2 at the end.";

/// The exit code of a command that went on past input files with errors: 2 when one had errors
/// (said once more at the end, after the output), else `code`.
inline int exit_code_after_input(bool some_input_failed, int code, std::ostream& err) {
  if (!some_input_failed) return code;
  err << "hlo-index: some input files had errors (reported above) and were left out; the output covers the others "
         "(exit 2)\n";
  return k_exit_input_error;
}

}  // namespace hlo_index::app

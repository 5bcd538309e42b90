// Exit codes of hlo-index, the same for every subcommand.
#pragma once

namespace hlo_index::app {

inline constexpr int k_exit_ok = 0;
inline constexpr int k_exit_internal_error = 1;  // a bug in hlo-index: please report it
inline constexpr int k_exit_input_error = 2;     // the input (or the command line) is wrong

}  // namespace hlo_index::app

// A progress line for long runs: once a command has run for about a second,
// stderr shows `hlo-index lint: module 2 of 5 (name): 12,345 instructions`,
// redrawn in place at most ten times a second and erased when the command
// ends. Only when stderr is a terminal and the output is text (never for
// JSON, CSV or SARIF), so pipes, files and CI logs never see it.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>

namespace hlo_index::app {

class Progress {
public:
  /// `enabled`: see progress_wanted. The delay before the first line is a
  /// second, or HLO_INDEX_PROGRESS_AFTER seconds when that is set (tests).
  Progress(std::ostream& err, std::string command, bool enabled);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void module(std::size_t index, std::size_t count, std::string_view name);
  void instruction_done();

private:
  void maybe_draw();

  std::ostream& m_err;
  std::string m_command;
  bool m_enabled;
  std::chrono::steady_clock::time_point m_start, m_last_draw;
  std::chrono::duration<double> m_delay{1.0};
  bool m_drawn = false;
  std::size_t m_module = 0, m_modules = 0, m_instructions = 0;
  std::string m_module_name;
};

/// Whether a command whose output is `format` shows progress: stderr is a
/// terminal and the format is text.
bool progress_wanted(std::string_view format);

}  // namespace hlo_index::app

#include "app/progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

namespace hlo_index::app {

Progress::Progress(std::ostream& err, std::string command, bool enabled)
    : m_err(err), m_command(std::move(command)), m_enabled(enabled), m_start(std::chrono::steady_clock::now()) {
  if (const char* after = std::getenv("HLO_INDEX_PROGRESS_AFTER"))
    m_delay = std::chrono::duration<double>(std::atof(after));
}

Progress::~Progress() {
  if (m_drawn) m_err << "\r\033[K" << std::flush;  // erase the line
}

void Progress::module(std::size_t index, std::size_t count, std::string_view name) {
  m_module = index;
  m_modules = count;
  m_module_name = std::string(name);
  maybe_draw();
}

void Progress::instruction_done() {
  ++m_instructions;
  // Checking the clock every instruction would cost more than some instructions' analysis.
  if (m_instructions % 64 == 0) maybe_draw();
}

void Progress::maybe_draw() {
  if (!m_enabled) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - m_start < m_delay) return;
  if (m_drawn && now - m_last_draw < std::chrono::milliseconds(100)) return;
  m_last_draw = now;
  m_drawn = true;
  m_err << fmt::format("\r\033[K{}: module {} of {} ({}): {} instructions done", m_command, m_module + 1, m_modules,
                       m_module_name, m_instructions)
        << std::flush;
}

bool progress_wanted(std::string_view format) { return format == "text" && isatty(STDERR_FILENO) == 1; }

}  // namespace hlo_index::app

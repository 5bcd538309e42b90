// Diagnostics: one format for every user-facing problem, syntax or semantic:
//   file:line:col: error: message
//     <source line>
//     <spaces>^
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "parser/source.hpp"

namespace hlo_index::parser {

enum class Severity { kError, kWarning, kNote };

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string file;
  std::size_t line = 0;  // 0: no location (e.g. "cannot open file")
  std::size_t column = 0;
  std::string message;
  std::string source_line;  // the line the location is on, tabs expanded
};

/// At most this many errors (and, separately, warnings) are kept per engine, which
/// reads one file: past it the count goes on but nothing is stored or rendered, so no
/// input can produce unbounded output. Parsers stop at the limit (see too_many_errors).
inline constexpr std::size_t k_max_kept_diagnostics = 50;

class DiagnosticEngine {
public:
  /// Reports at byte offset `offset` of `source`.
  void report(Severity severity, const SourceFile& source, std::size_t offset, std::string message);
  /// Reports at the position `where` points to inside `source`'s text.
  void error_at(const SourceFile& source, const char* where, std::string message);
  void warning_at(const SourceFile& source, const char* where, std::string message);
  /// Reports without a location (I/O problems).
  void error(std::string file, std::string message);

  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
  std::size_t error_count() const { return m_errors; }
  std::size_t warning_count() const { return m_warnings; }
  bool has_errors() const { return m_errors > 0; }
  /// True once errors past the limit were dropped: the parser should stop.
  bool too_many_errors() const { return m_errors > k_max_kept_diagnostics; }
  std::size_t dropped_warnings() const {
    return m_warnings > k_max_kept_diagnostics ? m_warnings - k_max_kept_diagnostics : 0;
  }

private:
  /// Counts a diagnostic of `severity`; false when it is past the limit and is to be dropped.
  bool count(Severity severity);

  std::vector<Diagnostic> m_diagnostics;
  std::size_t m_errors = 0;
  std::size_t m_warnings = 0;
};

/// Renders one diagnostic, clang style, ending in a newline.
std::string render(const Diagnostic& diagnostic);
/// Renders all of them in the order they were reported, then a line for those dropped.
std::string render(const DiagnosticEngine& engine);

}  // namespace hlo_index::parser

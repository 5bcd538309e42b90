#include "parser/diagnostics.hpp"

#include <fmt/format.h>

namespace hlo_index::parser {
namespace {

std::string expand_tabs(std::string_view line) {
  std::string out;
  for (char c : line) {
    if (c == '\t') {
      do out.push_back(' ');
      while (out.size() % 8 != 0);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out.push_back(' ');  // other control bytes would garble the terminal
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Very long lines (80 KB headers) are cut around the column so the caret stays readable.
constexpr std::size_t k_max_shown_line = 160;

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError: return "error";
    case Severity::kWarning: return "warning";
    case Severity::kNote: return "note";
  }
  return "error";
}

}  // namespace

bool DiagnosticEngine::count(Severity severity) {
  if (severity == Severity::kError) return ++m_errors <= k_max_kept_diagnostics;
  if (severity == Severity::kWarning) return ++m_warnings <= k_max_kept_diagnostics;
  return true;
}

void DiagnosticEngine::report(Severity severity, const SourceFile& source, std::size_t offset, std::string message) {
  if (!count(severity)) return;  // before the line lookup: a dropped diagnostic costs nothing
  LineColumn lc = source.line_column(offset);
  Diagnostic d;
  d.severity = severity;
  d.file = source.name();
  d.line = lc.line;
  d.column = lc.column;
  d.message = std::move(message);
  d.source_line = expand_tabs(source.line_text(lc.line));
  m_diagnostics.push_back(std::move(d));
}

void DiagnosticEngine::error_at(const SourceFile& source, const char* where, std::string message) {
  report(Severity::kError, source, source.offset_of(where), std::move(message));
}

void DiagnosticEngine::warning_at(const SourceFile& source, const char* where, std::string message) {
  report(Severity::kWarning, source, source.offset_of(where), std::move(message));
}

void DiagnosticEngine::error(std::string file, std::string message) {
  if (!count(Severity::kError)) return;
  Diagnostic d;
  d.file = std::move(file);
  d.message = std::move(message);
  m_diagnostics.push_back(std::move(d));
}

std::string render(const Diagnostic& d) {
  if (d.line == 0) return fmt::format("{}: {}: {}\n", d.file, severity_name(d.severity), d.message);
  std::string out = fmt::format("{}:{}:{}: {}: {}\n", d.file, d.line, d.column, severity_name(d.severity), d.message);
  std::string_view line = d.source_line;
  std::size_t caret = d.column - 1;
  std::string prefix;
  if (line.size() > k_max_shown_line) {
    std::size_t start = caret > k_max_shown_line / 2 ? caret - k_max_shown_line / 2 : 0;
    line = line.substr(start, k_max_shown_line);
    if (start > 0) {
      prefix = "...";
      caret = caret - start + prefix.size();
    }
  }
  out += fmt::format("{}{}\n{}^\n", prefix, line, std::string(caret, ' '));
  return out;
}

std::string render(const DiagnosticEngine& engine) {
  std::string out;
  for (const Diagnostic& d : engine.diagnostics()) out += render(d);
  std::string file = engine.diagnostics().empty() ? std::string("hlo-index") : engine.diagnostics().back().file;
  if (engine.dropped_warnings() != 0)
    out += fmt::format("{}: note: {} more warnings not shown\n", file, engine.dropped_warnings());
  if (engine.too_many_errors())
    out += fmt::format("{}: error: too many errors ({} shown), stopping\n", file, k_max_kept_diagnostics);
  return out;
}

}  // namespace hlo_index::parser

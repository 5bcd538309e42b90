#include "parser/source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "parser/diagnostics.hpp"
#include "parser/parse.hpp"

namespace hlo_index::parser {

SourceFile::SourceFile(std::string name, std::string text) : m_name(std::move(name)), m_text(std::move(text)) {}

void SourceFile::build_line_starts() const {
  if (!m_line_starts.empty()) return;
  m_line_starts.push_back(0);
  for (std::size_t i = 0; i < m_text.size(); ++i)
    if (m_text[i] == '\n') m_line_starts.push_back(i + 1);
}

LineColumn SourceFile::line_column(std::size_t offset) const {
  build_line_starts();
  offset = std::min(offset, m_text.size());
  auto it = std::upper_bound(m_line_starts.begin(), m_line_starts.end(), offset);
  std::size_t line_index = static_cast<std::size_t>(it - m_line_starts.begin()) - 1;
  std::size_t column = 1;
  for (std::size_t i = m_line_starts[line_index]; i < offset; ++i)
    column = m_text[i] == '\t' ? ((column - 1) / 8 + 1) * 8 + 1 : column + 1;
  return {line_index + 1, column};
}

std::string_view SourceFile::line_text(std::size_t line) const {
  build_line_starts();
  if (line == 0 || line > m_line_starts.size()) return {};
  std::size_t begin = m_line_starts[line - 1];
  std::size_t end = line < m_line_starts.size() ? m_line_starts[line] - 1 : m_text.size();
  std::string_view text(m_text.data() + begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

namespace {

enum class ReadOutcome { kText, kBinary, kFailed };

// Reads `file` to its end into `text`, but stops at the first NUL byte: HLO text has
// none, and a binary file (or an endless device such as /dev/zero) is not read whole.
ReadOutcome read_text(std::FILE* file, std::string& text) {
  char chunk[1 << 16];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, file)) > 0) {
    if (const void* nul = std::memchr(chunk, 0, n)) {
      text.append(chunk, static_cast<std::size_t>(static_cast<const char*>(nul) - chunk));  // its offset: text.size()
      return ReadOutcome::kBinary;
    }
    text.append(chunk, n);
  }
  return std::ferror(file) ? ReadOutcome::kFailed : ReadOutcome::kText;
}

// Why `path` cannot be read as a text file, or "" when it may be: a directory
// cannot (std::fopen opens one, and its size reads as huge).
std::string unreadable_reason(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return "is a directory, not an HLO text file";
  return "";
}

}  // namespace

SourceFilePtr read_source(const std::string& path, DiagnosticEngine& diagnostics) {
  if (std::string reason = path == "-" ? "" : unreadable_reason(path); !reason.empty()) {
    diagnostics.error(path, reason);
    return nullptr;
  }
  std::FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!file) {
    diagnostics.error(path, fmt::format("cannot open file: {}", std::strerror(errno)));
    return nullptr;
  }
  std::string text;
  std::error_code ec;
  if (path != "-" && std::filesystem::is_regular_file(path, ec)) {
    auto size = std::filesystem::file_size(path, ec);
    if (!ec) text.reserve(size);
  }
  ReadOutcome outcome = read_text(file, text);
  const int read_errno = errno;
  if (file != stdin) std::fclose(file);
  if (outcome == ReadOutcome::kBinary) {
    diagnostics.error(path, fmt::format("binary file, not HLO text (a NUL byte at offset {})", text.size()));
    return nullptr;
  }
  if (outcome == ReadOutcome::kFailed) {
    diagnostics.error(path, fmt::format("cannot read file: {}", std::strerror(read_errno)));
    return nullptr;
  }
  return std::make_shared<const SourceFile>(path, std::move(text));
}

}  // namespace hlo_index::parser

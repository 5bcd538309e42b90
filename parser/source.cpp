#include "parser/source.hpp"

#include <algorithm>

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

}  // namespace hlo_index::parser

// SourceFile: the text of one input (file or stdin) and the mapping from byte
// offsets to line/column, which diagnostics need.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hlo_index::parser {

/// A 1-based line and column. Columns count bytes, with tabs expanded to the
/// next multiple of 8 so the caret lines up under the offending token.
struct LineColumn {
  std::size_t line = 1;
  std::size_t column = 1;
};

class SourceFile {
public:
  SourceFile(std::string name, std::string text);
  /// Text the SourceFile does not own (a file mapped into memory): `keep_alive`
  /// holds it for as long as the SourceFile and its copies live.
  /// read_source has not looked for NUL bytes in such text: parse_hlo does (binary_unchecked).
  SourceFile(std::string name, std::string_view text, std::shared_ptr<const void> keep_alive);

  const std::string& name() const { return m_name; }
  std::string_view text() const { return m_keep_alive ? m_borrowed : std::string_view(m_text); }
  /// Whether the text may still be a binary file's (a mapped file, not yet looked through for
  /// a NUL byte): parse_hlo then reports a NUL byte as read_source does for other input.
  bool binary_unchecked() const { return m_keep_alive != nullptr; }

  std::size_t offset_of(const char* p) const { return static_cast<std::size_t>(p - text().data()); }

  LineColumn line_column(std::size_t offset) const;
  /// The text of the 1-based line `line`, without its line terminator.
  std::string_view line_text(std::size_t line) const;

private:
  /// Offsets at which lines start, built on first use (once, even when
  /// threads ask at the same time) and shared by the copies of the file.
  struct LineStarts {
    std::once_flag built;
    std::vector<std::size_t> offsets;
  };
  const std::vector<std::size_t>& line_starts() const;

  std::string m_name;
  std::string m_text;           // owned text, when not borrowed
  std::string_view m_borrowed;  // borrowed text, when m_keep_alive is set
  std::shared_ptr<const void> m_keep_alive;
  // Built on the first diagnostic or line number only: the happy path never pays for it.
  std::shared_ptr<LineStarts> m_line_starts = std::make_shared<LineStarts>();
};

using SourceFilePtr = std::shared_ptr<const SourceFile>;

}  // namespace hlo_index::parser

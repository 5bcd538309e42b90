#include "parser/document.hpp"

#include <cstring>

namespace hlo_index::parser {
namespace {

constexpr std::string_view k_begin_graph = "## BEGIN_GRAPH";
constexpr std::string_view k_end_graph = "## END_GRAPH";
constexpr std::string_view k_separator = "// -----";

// A separator line is exactly "// -----", blanks after it allowed ("// ------" is a comment).
bool is_separator_line(std::string_view line) {
  if (!line.starts_with(k_separator)) return false;
  for (char c : line.substr(k_separator.size()))
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

struct Marker {
  enum Kind { kBegin, kEnd, kSeparator } kind;
  std::size_t line_begin, line_end;
};

// The marker lines of `text`, in order: one pass, a memchr per line.
std::vector<Marker> find_markers(std::string_view text) {
  std::vector<Marker> markers;
  const char* base = text.data();
  const char* end = base + text.size();
  for (const char* line = base; line < end;) {
    const char* nl = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
    const char* line_end = nl ? nl : end;
    if (*line == '#' || *line == '/') {
      std::string_view content(line, static_cast<std::size_t>(line_end - line));
      auto at = [&](Marker::Kind kind) {
        markers.push_back({kind, static_cast<std::size_t>(line - base), static_cast<std::size_t>(line_end - base)});
      };
      if (content.starts_with(k_begin_graph))
        at(Marker::kBegin);
      else if (content.starts_with(k_end_graph))
        at(Marker::kEnd);
      else if (is_separator_line(content))
        at(Marker::kSeparator);
    }
    line = line_end + 1;
  }
  return markers;
}

}  // namespace

std::vector<std::string_view> hlo_regions(std::string_view text) {
  std::vector<Marker> markers = find_markers(text);
  std::vector<std::string_view> regions;
  bool wrapped = false;
  for (const Marker& m : markers) wrapped = wrapped || m.kind == Marker::kBegin;
  if (wrapped) {
    std::size_t open = std::string_view::npos;
    for (const Marker& m : markers) {
      if (m.kind == Marker::kBegin) {
        open = m.line_end;
      } else if (m.kind == Marker::kEnd && open != std::string_view::npos) {
        regions.push_back(text.substr(open, m.line_begin - open));
        open = std::string_view::npos;
      }
    }
    if (open != std::string_view::npos) regions.push_back(text.substr(open));  // a truncated log
    return regions;
  }
  std::size_t start = 0;
  for (const Marker& m : markers) {
    if (m.kind != Marker::kSeparator) continue;
    regions.push_back(text.substr(start, m.line_begin - start));
    start = m.line_end;
  }
  regions.push_back(text.substr(start));
  return regions;
}

}  // namespace hlo_index::parser

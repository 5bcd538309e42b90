#include "parser/document.hpp"

namespace hlo_index::parser {
namespace {

constexpr std::string_view k_begin_graph = "## BEGIN_GRAPH";
constexpr std::string_view k_end_graph = "## END_GRAPH";
constexpr std::string_view k_separator = "// -----";

// Offset of the next line of `text` at or after `from` that starts with `prefix`, or npos.
std::size_t find_line_starting(std::string_view text, std::string_view prefix, std::size_t from) {
  for (std::size_t at = text.find(prefix, from); at != std::string_view::npos; at = text.find(prefix, at + 1))
    if (at == 0 || text[at - 1] == '\n') return at;
  return std::string_view::npos;
}

std::size_t line_end(std::string_view text, std::size_t at) {
  std::size_t nl = text.find('\n', at);
  return nl == std::string_view::npos ? text.size() : nl;
}

// A separator line is exactly "// -----", blanks after it allowed ("// ------" is a comment).
bool is_separator_line(std::string_view text, std::size_t at) {
  for (std::size_t i = at + k_separator.size(); i < text.size() && text[i] != '\n'; ++i)
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\r') return false;
  return true;
}

}  // namespace

std::vector<std::string_view> hlo_regions(std::string_view text) {
  std::vector<std::string_view> regions;
  std::size_t begin = find_line_starting(text, k_begin_graph, 0);
  if (begin != std::string_view::npos) {
    while (begin != std::string_view::npos) {
      std::size_t start = line_end(text, begin);
      std::size_t stop = find_line_starting(text, k_end_graph, start);
      if (stop == std::string_view::npos) {  // a truncated log
        regions.push_back(text.substr(start));
        break;
      }
      regions.push_back(text.substr(start, stop - start));
      begin = find_line_starting(text, k_begin_graph, stop);
    }
    return regions;
  }
  std::size_t start = 0;
  for (std::size_t at = find_line_starting(text, k_separator, 0); at != std::string_view::npos;
       at = find_line_starting(text, k_separator, at + 1)) {
    if (!is_separator_line(text, at)) continue;
    regions.push_back(text.substr(start, at - start));
    start = line_end(text, at);
  }
  regions.push_back(text.substr(start));
  return regions;
}

}  // namespace hlo_index::parser

#include "parser/document.hpp"

namespace hlo_index::parser {
namespace {

// Calls `f(line, line_begin_offset)` for each line of `text`, without its terminator.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t nl = text.find('\n', begin);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (!f(text.substr(begin, end - begin), begin)) return;
    if (nl == std::string_view::npos) return;
    begin = nl + 1;
  }
}

std::string_view trim_right(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

}  // namespace

std::vector<std::string_view> hlo_regions(std::string_view text) {
  std::vector<std::string_view> regions;
  bool wrapped = false;
  for_each_line(text, [&](std::string_view line, std::size_t) {
    wrapped = line.starts_with("## BEGIN_GRAPH");
    return !wrapped;
  });
  if (wrapped) {
    std::size_t open = std::string_view::npos;
    for_each_line(text, [&](std::string_view line, std::size_t at) {
      if (line.starts_with("## BEGIN_GRAPH")) {
        open = at + line.size();
      } else if (line.starts_with("## END_GRAPH") && open != std::string_view::npos) {
        regions.push_back(text.substr(open, at - open));
        open = std::string_view::npos;
      }
      return true;
    });
    if (open != std::string_view::npos) regions.push_back(text.substr(open));  // truncated log
    return regions;
  }
  std::size_t start = 0;
  for_each_line(text, [&](std::string_view line, std::size_t at) {
    if (trim_right(line) == "// -----") {
      regions.push_back(text.substr(start, at - start));
      start = at + line.size();
    }
    return true;
  });
  regions.push_back(text.substr(start));
  return regions;
}

}  // namespace hlo_index::parser

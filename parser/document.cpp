#include "parser/document.hpp"

#include <cstdint>
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

// Calls `at(offset)` for each line of `text` that starts with '#' or '/', in order: the only
// lines that can be markers. A 41 MB dump has half a million lines and a handful of such
// ones, so this looks for "\n#" and "\n/" 64 bytes at a time instead of visiting each line.
// Also tells whether `text` holds a NUL byte (`saw_nul`), in the same pass. This pass reads
// the whole file before the parse does, so it is kept to a few instructions per 16 bytes.
template <typename At>
void for_each_hash_or_slash_line(std::string_view text, At at, bool& saw_nul) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  using Mask = signed char __attribute__((vector_size(16)));  // what comparing Bytes gives
  constexpr std::size_t k_block = 64;
  const char* base = text.data();
  const std::size_t size = text.size();
  auto starts_candidate = [&](std::size_t k) { return base[k] == '#' || base[k] == '/'; };
  if (size != 0 && starts_candidate(0)) at(0);
  std::size_t i = 0;  // looks for a '\n' at i..i+63 followed by '#' or '/' at i+1..i+64
  for (; i + k_block + 1 <= size; i += k_block) {
    Mask hits{}, nuls{};
    for (std::size_t k = 0; k < k_block; k += sizeof(Bytes)) {
      Bytes here, next;
      std::memcpy(&here, base + i + k, sizeof here);
      std::memcpy(&next, base + i + k + 1, sizeof next);
      // (byte | 0x0c) == '/' holds for '#' and '/' (and for '\'' and '+', which the check
      // below sorts out): one comparison instead of two.
      hits |= (here == '\n') & ((next | 0x0c) == '/');
      nuls |= here == 0;
    }
    std::uint64_t halves[2], zeros[2];
    std::memcpy(halves, &hits, sizeof halves);
    std::memcpy(zeros, &nuls, sizeof zeros);
    saw_nul = saw_nul || (zeros[0] | zeros[1]) != 0;
    if ((halves[0] | halves[1]) == 0) continue;
    for (std::size_t k = 0; k < k_block; ++k)
      if (base[i + k] == '\n' && starts_candidate(i + k + 1)) at(i + k + 1);
  }
  if (i < size && std::memchr(base + i, 0, size - i) != nullptr) saw_nul = true;
  for (; i + 1 < size; ++i)
    if (base[i] == '\n' && starts_candidate(i + 1)) at(i + 1);
}

// The marker lines of `text`, in order.
std::vector<Marker> find_markers(std::string_view text, bool& saw_nul) {
  std::vector<Marker> markers;
  const char* base = text.data();
  const char* end = base + text.size();
  for_each_hash_or_slash_line(
      text,
      [&](std::size_t offset) {
        const char* line = base + offset;
        const char* nl = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(end - line)));
        const char* line_end = nl ? nl : end;
        std::string_view content(line, static_cast<std::size_t>(line_end - line));
        auto at = [&](Marker::Kind kind) {
          markers.push_back({kind, offset, static_cast<std::size_t>(line_end - base)});
        };
        if (content.starts_with(k_begin_graph))
          at(Marker::kBegin);
        else if (content.starts_with(k_end_graph))
          at(Marker::kEnd);
        else if (is_separator_line(content))
          at(Marker::kSeparator);
      },
      saw_nul);
  return markers;
}

}  // namespace

std::vector<std::string_view> hlo_regions(std::string_view text, std::size_t* nul) {
  bool saw_nul = false;
  std::vector<Marker> markers = find_markers(text, saw_nul);
  if (nul != nullptr) {
    const void* first = saw_nul ? std::memchr(text.data(), 0, text.size()) : nullptr;
    *nul = first ? static_cast<std::size_t>(static_cast<const char*>(first) - text.data()) : std::string_view::npos;
  }
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

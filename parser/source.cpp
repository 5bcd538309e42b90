#include "parser/source.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "parser/diagnostics.hpp"
#include "parser/parse.hpp"

namespace hlo_index::parser {

SourceFile::SourceFile(std::string name, std::string text) : m_name(std::move(name)), m_text(std::move(text)) {}

SourceFile::SourceFile(std::string name, std::string_view text, std::shared_ptr<const void> keep_alive)
    : m_name(std::move(name)), m_borrowed(text), m_keep_alive(std::move(keep_alive)) {}

const std::vector<std::size_t>& SourceFile::line_starts() const {
  std::call_once(m_line_starts->built, [this] {
    const std::string_view all = text();
    std::vector<std::size_t>& starts = m_line_starts->offsets;
    starts.push_back(0);
    for (std::size_t i = 0; i < all.size(); ++i)
      if (all[i] == '\n') starts.push_back(i + 1);
  });
  return m_line_starts->offsets;
}

LineColumn SourceFile::line_column(std::size_t offset) const {
  const std::vector<std::size_t>& starts = line_starts();
  const std::string_view all = text();
  offset = std::min(offset, all.size());
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  std::size_t line_index = static_cast<std::size_t>(it - starts.begin()) - 1;
  std::size_t column = 1;
  for (std::size_t i = starts[line_index]; i < offset; ++i)
    column = all[i] == '\t' ? ((column - 1) / 8 + 1) * 8 + 1 : column + 1;
  return {line_index + 1, column};
}

std::string_view SourceFile::line_text(std::size_t line) const {
  const std::vector<std::size_t>& starts = line_starts();
  if (line == 0 || line > starts.size()) return {};
  const std::string_view all = text();
  std::size_t begin = starts[line - 1];
  std::size_t end = line < starts.size() ? starts[line] - 1 : all.size();
  std::string_view result = all.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

namespace {

enum class ReadOutcome { kText, kBinary, kFailed };

// Reads `fd` to its end into `text`, but stops at the first NUL byte: HLO text has
// none, and a binary file (or an endless device such as /dev/zero) is not read whole.
// For standard input and files that cannot be mapped (pipes, devices, empty files).
ReadOutcome read_text(int fd, std::string& text) {
  constexpr std::size_t k_chunk = 1 << 16;
  while (true) {
    const std::size_t old_size = text.size();
    text.resize(old_size + k_chunk);
    const ssize_t n = ::read(fd, text.data() + old_size, k_chunk);
    if (n < 0 && errno == EINTR) {
      text.resize(old_size);
      continue;
    }
    text.resize(old_size + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
    if (n < 0) return ReadOutcome::kFailed;
    if (n == 0) return ReadOutcome::kText;
    if (const void* nul = std::memchr(text.data() + old_size, 0, static_cast<std::size_t>(n))) {
      text.resize(static_cast<std::size_t>(static_cast<const char*>(nul) - text.data()));  // its offset: text.size()
      return ReadOutcome::kBinary;
    }
  }
}

// A regular file's whole text, mapped read-only: no copy, and its pages come straight from
// the page cache (a copy would cost a fresh zeroed page for every 4 KiB, which on a 41 MB
// dump is a third of the parse). Null when the file cannot be mapped; the caller reads it.
// (A file truncated by another process while mapped would fault: the usual price of mmap.)
std::shared_ptr<const void> map_file(int fd, std::size_t size) {
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (data == MAP_FAILED) return nullptr;
  return std::shared_ptr<const void>(data, [size](const void* p) { ::munmap(const_cast<void*>(p), size); });
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
  const int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    diagnostics.error(path, fmt::format("cannot open file: {}", std::strerror(errno)));
    return nullptr;
  }
  struct stat info {};
  if (path != "-" && ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0) {
    const auto size = static_cast<std::size_t>(info.st_size);
    if (std::shared_ptr<const void> mapping = map_file(fd, size)) {
      ::close(fd);
      const auto* data = static_cast<const char*>(mapping.get());
      // A NUL byte (a binary file) is reported by parse_hlo, which finds it in the pass that
      // looks for module separators: another pass over a 41 MB file here cost 2% of a parse.
      return std::make_shared<const SourceFile>(path, std::string_view(data, size), std::move(mapping));
    }
  }
  std::string text;
  ReadOutcome outcome = read_text(fd, text);
  const int read_errno = errno;
  if (fd != STDIN_FILENO) ::close(fd);
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

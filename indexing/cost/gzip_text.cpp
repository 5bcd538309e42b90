// Reading a file or a string a piece at a time, and inflating it through
// zlib when it is gzip.
#include "indexing/cost/gzip_text.hpp"

#define ZLIB_CONST
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

namespace hlo_index::cost {
namespace {

constexpr std::size_t k_chunk = std::size_t{1} << 18;

bool gzip_magic(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

}  // namespace

/// The bytes of a file or standard input, or of a string, a piece at a time.
class GzipText::Bytes {
public:
  Bytes(std::string_view bytes, std::size_t piece_bytes) : m_bytes(bytes), m_piece_bytes(piece_bytes) {}
  explicit Bytes(const std::string& path) : m_buffer(k_chunk) {
    std::error_code ec;
    if (path != "-" && std::filesystem::is_directory(path, ec)) throw TextError("is a directory, not a trace file");
    m_fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) throw TextError(fmt::format("cannot open file: {}", std::strerror(errno)));
    m_owns_fd = path != "-";
  }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() {
    if (m_owns_fd) ::close(m_fd);
  }

  /// The next piece; empty at the end.
  std::string_view next() {
    if (m_fd < 0) {
      const std::size_t n = m_piece_bytes == 0 ? m_bytes.size() : std::min(m_piece_bytes, m_bytes.size());
      const std::string_view piece = m_bytes.substr(0, n);
      m_bytes.remove_prefix(n);
      return piece;
    }
    while (true) {
      const ssize_t n = ::read(m_fd, m_buffer.data(), m_buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw TextError(fmt::format("cannot read file: {}", std::strerror(errno)));
      return {m_buffer.data(), static_cast<std::size_t>(n)};
    }
  }

private:
  int m_fd = -1;
  bool m_owns_fd = false;
  std::string_view m_bytes;  // what is left of a string
  std::size_t m_piece_bytes = 0;
  std::vector<char> m_buffer;
};

/// The text of Bytes: the bytes themselves, or what they inflate to.
class GzipText::Inflated {
public:
  explicit Inflated(Bytes& input) : m_input(input) {
    m_compressed = gzip_magic_next();
    if (m_compressed) m_out.resize(k_chunk);
  }
  Inflated(const Inflated&) = delete;
  Inflated& operator=(const Inflated&) = delete;
  ~Inflated() {
    if (m_inflate_ready) inflateEnd(&m_stream);
  }

  bool compressed() const { return m_compressed; }

  std::string_view next() {
    if (!m_compressed) return m_pending.empty() ? m_input.next() : std::exchange(m_pending, std::string_view());
    while (true) {
      if (m_pending.empty()) {
        m_pending = m_input.next();
        if (m_pending.empty()) {
          if (m_in_member) {
            throw TextError(
                fmt::format("truncated gzip data: the compressed stream ends early (after {} bytes of text)", m_text));
          }
          return {};
        }
      }
      if (!m_in_member) start_member();
      m_stream.next_in = reinterpret_cast<const Bytef*>(m_pending.data());
      m_stream.avail_in = static_cast<uInt>(m_pending.size());
      m_stream.next_out = m_out.data();
      m_stream.avail_out = static_cast<uInt>(m_out.size());
      const int rc = inflate(&m_stream, Z_NO_FLUSH);
      m_pending.remove_prefix(m_pending.size() - m_stream.avail_in);
      const std::size_t produced = m_out.size() - m_stream.avail_out;
      m_text += produced;
      if (rc == Z_STREAM_END) {
        m_in_member = false;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        throw TextError(fmt::format("corrupt gzip data: {} (after {} bytes of text)",
                                    m_stream.msg != nullptr ? m_stream.msg : zError(rc), m_text));
      }
      if (produced > 0) return {reinterpret_cast<const char*>(m_out.data()), produced};
    }
  }

private:
  /// Whether the next bytes are gzip's magic bytes (reading on when a piece ends after one byte).
  bool gzip_magic_next() {
    while (m_pending.size() < 2) {
      const std::string_view more = m_input.next();
      if (more.empty()) break;
      std::string joined(m_pending);
      joined += more;
      m_carry = std::move(joined);
      m_pending = m_carry;
    }
    return gzip_magic(m_pending);
  }

  void start_member() {
    if (!gzip_magic_next()) {
      throw TextError(fmt::format("bytes that are not gzip data after the gzip data (after {} bytes of text)", m_text));
    }
    const int rc = m_inflate_ready ? inflateReset(&m_stream) : inflateInit2(&m_stream, 15 + 16);  // 16: gzip header
    if (rc != Z_OK) throw TextError(fmt::format("cannot inflate: {}", zError(rc)));
    m_inflate_ready = true;
    m_in_member = true;
  }

  Bytes& m_input;
  std::string_view m_pending;  // bytes not yet given to inflate (or not yet returned, uncompressed)
  std::string m_carry;         // the bytes m_pending views when two pieces were joined
  bool m_compressed = false;
  bool m_inflate_ready = false, m_in_member = false;
  z_stream m_stream{};
  std::vector<Bytef> m_out;
  std::size_t m_text = 0;  // bytes inflated so far
};

GzipText::GzipText(const std::string& path)
    : m_bytes(std::make_unique<Bytes>(path)), m_text(std::make_unique<Inflated>(*m_bytes)) {}

GzipText::GzipText(std::string_view bytes, std::size_t piece_bytes)
    : m_bytes(std::make_unique<Bytes>(bytes, piece_bytes)), m_text(std::make_unique<Inflated>(*m_bytes)) {}

GzipText::~GzipText() = default;

bool GzipText::compressed() const { return m_text->compressed(); }

std::string_view GzipText::next() { return m_text->next(); }

}  // namespace hlo_index::cost

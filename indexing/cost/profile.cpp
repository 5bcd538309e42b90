// Reading Chrome trace event files a piece at a time (gzip through zlib, JSON
// through a streaming reader of our own), summing their events per kernel, and
// joining the kernels to the instructions of modules. profile.hpp states the
// rules.
#include "indexing/cost/profile.hpp"

#define ZLIB_CONST
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_set>
#include <utility>

namespace hlo_index::cost {
namespace {

//===----------------------------------------------------------------------===//
// Bytes and text
//===----------------------------------------------------------------------===//

constexpr std::size_t k_chunk = std::size_t{1} << 18;

/// The bytes of a file or standard input, or of a string, a piece at a time.
class ByteInput {
public:
  /// `bytes` in pieces of `piece_bytes` (0: one piece).
  ByteInput(std::string_view bytes, std::size_t piece_bytes) : m_bytes(bytes), m_piece_bytes(piece_bytes) {}
  explicit ByteInput(const std::string& path) : m_buffer(k_chunk) {
    std::error_code ec;
    if (path != "-" && std::filesystem::is_directory(path, ec)) throw ProfileError("is a directory, not a trace file");
    m_fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) throw ProfileError(fmt::format("cannot open file: {}", std::strerror(errno)));
    m_owns_fd = path != "-";
  }
  ByteInput(const ByteInput&) = delete;
  ByteInput& operator=(const ByteInput&) = delete;
  ~ByteInput() {
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
      if (n < 0) throw ProfileError(fmt::format("cannot read file: {}", std::strerror(errno)));
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

/// The text of a ByteInput: its bytes, or what they inflate to when they
/// start with gzip's magic bytes (1f 8b). Several gzip members in a row
/// (`cat a.gz b.gz`) are one text, as gzip(1) reads them.
class TextInput {
public:
  explicit TextInput(ByteInput& input) : m_input(input) {
    m_compressed = gzip_magic_next();
    if (m_compressed) m_out.resize(k_chunk);
  }
  TextInput(const TextInput&) = delete;
  TextInput& operator=(const TextInput&) = delete;
  ~TextInput() {
    if (m_inflate_ready) inflateEnd(&m_stream);
  }

  bool compressed() const { return m_compressed; }

  /// The next piece of text; empty at the end.
  std::string_view next() {
    if (!m_compressed) return m_pending.empty() ? m_input.next() : std::exchange(m_pending, std::string_view());
    while (true) {
      if (m_pending.empty()) {
        m_pending = m_input.next();
        if (m_pending.empty()) {
          if (m_in_member) {
            throw ProfileError(
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
        throw ProfileError(fmt::format("corrupt gzip data: {} (after {} bytes of text)",
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
    return m_pending.size() >= 2 && static_cast<unsigned char>(m_pending[0]) == 0x1f &&
           static_cast<unsigned char>(m_pending[1]) == 0x8b;
  }

  void start_member() {
    if (!gzip_magic_next()) {
      throw ProfileError(
          fmt::format("bytes that are not gzip data after the gzip data (after {} bytes of text)", m_text));
    }
    const int rc = m_inflate_ready ? inflateReset(&m_stream) : inflateInit2(&m_stream, 15 + 16);  // 16: gzip header
    if (rc != Z_OK) throw ProfileError(fmt::format("cannot inflate: {}", zError(rc)));
    m_inflate_ready = true;
    m_in_member = true;
  }

  ByteInput& m_input;
  std::string_view m_pending;  // bytes not yet given to inflate (or not yet returned, uncompressed)
  std::string m_carry;         // the bytes m_pending views when two pieces were joined
  bool m_compressed = false;
  bool m_inflate_ready = false, m_in_member = false;
  z_stream m_stream{};
  std::vector<Bytef> m_out;
  std::size_t m_text = 0;  // bytes inflated so far
};

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// The text of a TextInput as the JSON reader walks it: the current piece
/// as a [pos, end) range, the next piece fetched when it is used up, and
/// the offset of the position in the whole text, for messages.
class TextCursor {
public:
  explicit TextCursor(TextInput& input) : m_input(input) {}

  /// Whether a character is left; fetches the next piece when this one is used up.
  bool more() { return m_pos != m_end || refill(); }
  /// The character at the position (more() must be true).
  char peek() const { return *m_pos; }
  void skip() { ++m_pos; }
  const char* pos() const { return m_pos; }
  const char* end() const { return m_end; }
  void set_pos(const char* pos) { m_pos = pos; }
  /// The bytes of text before the position.
  std::size_t offset() const { return m_base + static_cast<std::size_t>(m_pos - m_begin); }

private:
  [[gnu::noinline]] bool refill() {
    m_base += static_cast<std::size_t>(m_end - m_begin);
    const std::string_view piece = m_input.next();
    m_begin = m_pos = piece.data();
    m_end = piece.data() + piece.size();
    return m_pos != m_end;
  }

  TextInput& m_input;
  const char* m_begin = nullptr;
  const char* m_pos = nullptr;
  const char* m_end = nullptr;
  std::size_t m_base = 0;  // bytes of the pieces before this one
};

/// A JSON syntax error: where it is and what was expected there.
struct JsonError {
  std::size_t line = 1, column = 1;
  std::size_t offset = 0;  // bytes before the offending one
  bool at_end = false;     // the text ended where more was expected
  bool empty = false;      // nothing but whitespace
  std::string what;        // "expected ',' or ']' after an array element, found '{'"
};

/// A strict JSON reader (RFC 8259: UTF-8 checked, no comments, no trailing
/// commas, one value) that streams a TextCursor into a handler's calls:
/// start_object(), key(std::string&), end_object(), start_array(),
/// end_array(), string(std::string&), number(std::string_view text),
/// boolean(bool), null(). Iterative, so memory is the nesting stack and the
/// current string. Ours rather than nlohmann's SAX parser, which reads
/// ~30 MB/s here: a trace at xprof's cap of 1,000,000 events is ~250 MB of
/// text. tests/unit/test_cost_profile.cpp checks it against nlohmann.
template <class Handler>
class JsonReader {
public:
  JsonReader(TextCursor& in, Handler& out) : m_in(in), m_out(out) {}

  /// Reads the text's one value; throws JsonError.
  void read() {
    skip_byte_order_mark();
    State state = State::kValue;
    while (true) {
      skip_whitespace();
      if (!m_in.more()) {
        if (state == State::kDone) return;
        fail(expected(state), /*empty=*/state == State::kValue && m_stack.empty());
      }
      const char c = m_in.peek();
      switch (state) {
        case State::kValueOrEnd:
          if (c == ']') {
            m_in.skip();
            state = close(']');
            break;
          }
          [[fallthrough]];
        case State::kValue: state = value(c, state); break;
        case State::kKeyOrEnd:
          if (c == '}') {
            m_in.skip();
            state = close('}');
            break;
          }
          [[fallthrough]];
        case State::kKey:
          if (c != '"') fail(expected(state));
          read_string(m_string);
          m_out.key(m_string);
          state = State::kColon;
          break;
        case State::kColon:
          if (c != ':') fail(expected(state));
          m_in.skip();
          state = State::kValue;
          break;
        case State::kCommaOrEnd:
          if (c == ',') {
            m_in.skip();
            state = m_stack.back() == '{' ? State::kKey : State::kValue;
          } else if (c == (m_stack.back() == '{' ? '}' : ']')) {
            m_in.skip();
            state = close(c);
          } else {
            fail(expected(state));
          }
          break;
        case State::kDone: fail(expected(state));
      }
    }
  }

private:
  enum class State : std::uint8_t { kValue, kValueOrEnd, kKeyOrEnd, kKey, kColon, kCommaOrEnd, kDone };

  State after_value() const { return m_stack.empty() ? State::kDone : State::kCommaOrEnd; }

  State close(char bracket) {
    m_stack.pop_back();
    if (bracket == '}') {
      m_out.end_object();
    } else {
      m_out.end_array();
    }
    return after_value();
  }

  State value(char c, State state) {
    switch (c) {
      case '{':
        m_in.skip();
        m_stack.push_back('{');
        m_out.start_object();
        return State::kKeyOrEnd;
      case '[':
        m_in.skip();
        m_stack.push_back('[');
        m_out.start_array();
        return State::kValueOrEnd;
      case '"':
        read_string(m_string);
        m_out.string(m_string);
        return after_value();
      case 't':
        read_literal("true");
        m_out.boolean(true);
        return after_value();
      case 'f':
        read_literal("false");
        m_out.boolean(false);
        return after_value();
      case 'n':
        read_literal("null");
        m_out.null();
        return after_value();
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          read_number();
          m_out.number(m_number);
          return after_value();
        }
        fail(expected(state));
    }
  }

  /// A UTF-8 byte order mark (EF BB BF) before the value, as some Windows tools write.
  void skip_byte_order_mark() {
    for (const unsigned char b : {0xef, 0xbb, 0xbf}) {
      if (!m_in.more() || static_cast<unsigned char>(m_in.peek()) != b) {
        if (b == 0xef) return;
        fail(fmt::format("a byte order mark is EF BB BF, found {}", found()));
      }
      m_in.skip();
    }
  }

  void skip_whitespace() {
    while (m_in.more()) {
      const char c = m_in.peek();
      if (c == '\n') {
        m_in.skip();
        ++m_line;
        m_line_start = m_in.offset();
      } else if (c == ' ' || c == '\t' || c == '\r') {
        m_in.skip();
      } else {
        return;
      }
    }
  }

  /// A string from its opening quote; `out` receives it unescaped.
  void read_string(std::string& out) {
    out.clear();
    m_in.skip();
    while (true) {
      if (!m_in.more()) fail("the text ends inside a string");
      // The plain run up to a quote, an escape, a control character or a non-ASCII byte.
      const char* p = m_in.pos();
      const char* const end = m_in.end();
      const char* const run = p;
      while (p != end) {
        const auto u = static_cast<unsigned char>(*p);
        if (u == '"' || u == '\\' || u < 0x20 || u >= 0x80) break;
        ++p;
      }
      out.append(run, p);
      m_in.set_pos(p);
      if (p == end) continue;
      const auto u = static_cast<unsigned char>(*p);
      if (u == '"') {
        m_in.skip();
        return;
      }
      if (u < 0x20) fail(fmt::format("control character 0x{:02x} in a string: JSON writes it as an escape", u));
      m_in.skip();
      if (u == '\\') {
        read_escape(out);
      } else {
        read_utf8(out, u);
      }
    }
  }

  /// The character after a string's backslash.
  void read_escape(std::string& out) {
    if (!m_in.more()) fail("the text ends inside a string");
    const char c = m_in.peek();
    switch (c) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        m_in.skip();
        std::uint32_t code = read_hex4();
        if (code >= 0xdc00 && code <= 0xdfff) fail(fmt::format("\\u{:04x} is half of a UTF-16 pair alone", code));
        if (code >= 0xd800 && code <= 0xdbff) {
          if (!m_in.more() || m_in.peek() != '\\') fail(fmt::format("\\u{:04x} is half of a UTF-16 pair alone", code));
          m_in.skip();
          if (!m_in.more() || m_in.peek() != 'u') fail(fmt::format("\\u{:04x} is half of a UTF-16 pair alone", code));
          m_in.skip();
          const std::uint32_t low = read_hex4();
          if (low < 0xdc00 || low > 0xdfff) fail(fmt::format("\\u{:04x} is half of a UTF-16 pair alone", code));
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        }
        append_utf8(out, code);
        return;
      }
      default: fail(fmt::format("invalid escape in a string: {}", shown(c)));
    }
    m_in.skip();
  }

  std::uint32_t read_hex4() {
    std::uint32_t code = 0;
    for (int i = 0; i < 4; ++i) {
      if (!m_in.more()) fail("the text ends inside a string");
      const char c = m_in.peek();
      const int digit = c >= '0' && c <= '9'   ? c - '0'
                        : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                               : -1;
      if (digit < 0) fail(fmt::format("\\u wants four hex digits, found {}", shown(c)));
      code = code * 16 + static_cast<std::uint32_t>(digit);
      m_in.skip();
    }
    return code;
  }

  static void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xc0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xe0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    } else {
      out += static_cast<char>(0xf0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3f));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3f));
      out += static_cast<char>(0x80 | (code & 0x3f));
    }
  }

  /// The rest of a UTF-8 sequence whose first byte `lead` was read (RFC 3629: no overlong
  /// forms, no surrogates, nothing past U+10FFFF).
  void read_utf8(std::string& out, unsigned char lead) {
    int count = 0;
    unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
    if (lead >= 0xc2 && lead <= 0xdf) {
      count = 1;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      count = 2;
      if (lead == 0xe0) low = 0xa0;
      if (lead == 0xed) high = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      count = 3;
      if (lead == 0xf0) low = 0x90;
      if (lead == 0xf4) high = 0x8f;
    } else {
      fail(fmt::format("byte 0x{:02x} in a string is not UTF-8", lead));
    }
    out += static_cast<char>(lead);
    for (int i = 0; i < count; ++i) {
      if (!m_in.more()) fail("the text ends inside a string");
      const auto u = static_cast<unsigned char>(m_in.peek());
      if (u < low || u > high) fail(fmt::format("byte 0x{:02x} in a string is not UTF-8", u));
      out += static_cast<char>(u);
      m_in.skip();
      low = 0x80;
      high = 0xbf;
    }
  }

  /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, into m_number.
  void read_number() {
    m_number.clear();
    const auto take = [&] {
      m_number += m_in.peek();
      m_in.skip();
    };
    const auto digit = [&] { return m_in.more() && m_in.peek() >= '0' && m_in.peek() <= '9'; };
    const auto digits = [&](std::string_view where) {
      if (!digit()) fail(fmt::format("a number wants a digit {}, found {}", where, found()));
      while (digit()) take();
    };
    if (m_in.peek() == '-') take();
    if (m_in.more() && m_in.peek() == '0') {
      take();
    } else {
      digits(m_number.empty() ? "" : "after '-'");
    }
    if (m_in.more() && m_in.peek() == '.') {
      take();
      digits("after '.'");
    }
    if (m_in.more() && (m_in.peek() == 'e' || m_in.peek() == 'E')) {
      take();
      if (m_in.more() && (m_in.peek() == '+' || m_in.peek() == '-')) take();
      digits("in the exponent");
    }
  }

  void read_literal(std::string_view word) {
    for (const char c : word) {
      if (!m_in.more() || m_in.peek() != c) fail(fmt::format("expected '{}', found {}", word, found()));
      m_in.skip();
    }
  }

  std::string expected(State state) {
    std::string_view what;
    switch (state) {
      case State::kValue: what = "expected a JSON value"; break;
      case State::kValueOrEnd: what = "expected a JSON value or ']'"; break;
      case State::kKeyOrEnd: what = "expected a string key or '}'"; break;
      case State::kKey: what = "expected a string key after ','"; break;
      case State::kColon: what = "expected ':' after an object key"; break;
      case State::kCommaOrEnd:
        what = m_stack.back() == '{' ? "expected ',' or '}' after an object member"
                                     : "expected ',' or ']' after an array element";
        break;
      case State::kDone: what = "expected the end of the text after its JSON value"; break;
    }
    return fmt::format("{}, found {}", what, found());
  }

  static std::string shown(char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f ? fmt::format("'{}'", c) : fmt::format("byte 0x{:02x}", u);
  }
  std::string found() { return m_in.more() ? shown(m_in.peek()) : std::string("the end of the text"); }

  [[noreturn]] void fail(std::string what, bool empty = false) {
    const bool at_end = !m_in.more();
    const std::size_t offset = m_in.offset();
    throw JsonError{m_line, offset - m_line_start + 1, offset, at_end, empty, std::move(what)};
  }

  TextCursor& m_in;
  Handler& m_out;
  std::vector<char> m_stack;  // the open objects and arrays: '{' or '['
  std::string m_string, m_number;
  std::size_t m_line = 1, m_line_start = 0;  // the current line, the offset of its first byte
};

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

/// A number field of an event (`ts`, `dur`): absent, a number, or something else.
struct NumberField {
  enum class State : std::uint8_t { kMissing, kNumber, kBad } state = State::kMissing;
  long double value = 0;  // long double: an epoch `ts` in us needs more than a double's 53 bits for ns
  std::string shown;      // kBad: the value as it reads in the file (or its kind)
};

/// The fields of one event the join reads.
struct Event {
  std::string ph, name, pid, tid;
  std::string hlo_op, hlo_module, program_id, long_name, arg_name;  // from args
  NumberField ts, dur;
  void clear() {
    for (std::string* s : {&ph, &name, &pid, &tid, &hlo_op, &hlo_module, &program_id, &long_name, &arg_name}) {
      s->clear();
    }
    ts = {};
    dur = {};
  }
};

/// A `B` event waiting for its `E`.
struct OpenEvent {
  long double start = 0;
  std::size_t index = 0;
  std::string name, hlo_op, hlo_module, program_id, long_name;
};

struct Interval {
  long double start = 0, end = 0;
};

/// What is known of one line (pid, tid) while reading.
struct LineState {
  std::vector<OpenEvent> open;         // B events not yet ended, innermost last
  std::vector<Interval> all, with_op;  // the events that may still hold the next: all / those with hlo_op
};

/// The sums of the events of one (pid, tid, name, op, module, program, long-name op).
struct Sums {
  double microseconds = 0;
  double outer_microseconds = 0;     // not nested in any event of the line
  double outer_op_microseconds = 0;  // not nested in an event of the line that carries hlo_op
  std::size_t events = 0;
};

/// Whether `e` lies inside one of `enclosing` (the events of a line that
/// may still hold the next one, each inside the one before): drops those
/// that do not hold `e` (in time order they will hold nothing later), then
/// keeps `e`.
bool nested_in(std::vector<Interval>& enclosing, Interval e) {
  while (!enclosing.empty() && !(enclosing.back().start <= e.start && e.end <= enclosing.back().end)) {
    enclosing.pop_back();
  }
  const bool nested = !enclosing.empty();
  enclosing.push_back(e);
  return nested;
}

void append_field(std::string& key, std::string_view field) {
  char digits[24];
  const char* end = std::to_chars(digits, digits + sizeof digits, field.size()).ptr;
  key.append(digits, static_cast<std::size_t>(end - digits));
  key += ':';
  key += field;
}

/// The fields append_field wrote, in order.
std::vector<std::string_view> split_fields(std::string_view key) {
  std::vector<std::string_view> fields;
  while (!key.empty()) {
    const std::size_t colon = key.find(':');
    std::size_t size = 0;
    std::from_chars(key.data(), key.data() + colon, size);
    fields.push_back(key.substr(colon + 1, size));
    key.remove_prefix(colon + 1 + size);
  }
  return fields;
}

/// `%fusion.12 = f32[8]{0} fusion(...)` -> `fusion.12`; "" when `long_name` is not of that form.
std::string_view op_of_long_name(std::string_view long_name) {
  if (!long_name.empty() && long_name.front() == '%') long_name.remove_prefix(1);
  const std::size_t space = long_name.find(' ');
  if (space == 0 || space == std::string_view::npos || long_name.substr(space, 3) != " = ") return {};
  return long_name.substr(0, space);
}

/// A number's value from its text (a JSON number, or a string holding one),
/// or none. In a long double, since an epoch timestamp in microseconds keeps
/// its nanoseconds only so (1700000000000000.125 needs 54 bits); the whole
/// and fraction digits are read apart, as from_chars on a long double goes
/// through strtold and the locale, a third of the reading time.
std::optional<long double> precise_value(std::string_view text) {
  static constexpr long double k_powers[] = {1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L, 1e9L,
                                             1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L};
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string_view t = text;
  const bool negative = t.starts_with('-');
  if (negative) t.remove_prefix(1);
  const std::size_t dot = t.find('.');
  const std::string_view whole = t.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : t.substr(dot + 1);
  if (!whole.empty() && whole.size() <= 18 && digits(whole) && digits(fraction) &&
      (dot == std::string_view::npos || !fraction.empty())) {
    std::uint64_t w = 0, f = 0;
    std::from_chars(whole.data(), whole.data() + whole.size(), w);
    const std::string_view kept = fraction.substr(0, 18);
    if (!kept.empty()) std::from_chars(kept.data(), kept.data() + kept.size(), f);
    const long double value = static_cast<long double>(w) + static_cast<long double>(f) / k_powers[kept.size()];
    return negative ? -value : value;
  }
  long double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// A number's value as a double (durations), or none.
std::optional<long double> double_value(std::string_view text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

//===----------------------------------------------------------------------===//
// Trace events
//===----------------------------------------------------------------------===//

/// Receives the JSON reader's calls for a trace file and sums its events.
class TraceReader {
public:
  explicit TraceReader(bool compressed) : m_compressed(compressed) {}

  // The JSON reader's calls.
  void null() { scalar({Kind::kNull, "null"}); }
  void boolean(bool value) { scalar({Kind::kBool, value ? "true" : "false"}); }
  void number(std::string_view text) { scalar({Kind::kNumber, text}); }
  void string(std::string& value) { scalar({Kind::kString, value}); }
  void key(std::string& text);
  void start_object();
  void end_object();
  void start_array();
  void end_array();

  /// Whether the text may end where `error` is: inside the top-level array,
  /// between events (Chrome's array form may leave out its `]`: a trace cut short).
  bool may_end_at(const JsonError& error) const {
    return error.at_end && m_array_form && m_where == Where::kEvents && m_skip == 0;
  }
  /// What to say of `error`: `line 3, column 1 (byte 78): expected ',' or ']' after an array element, found '{'`.
  std::string message(const JsonError& error) const;
  /// The sums, once the text is read.
  Profile finish();

private:
  enum class Kind : std::uint8_t { kNull, kBool, kNumber, kString };
  struct Scalar {
    Kind kind;
    std::string_view text;  // a string's value, a number as written
  };
  enum class Where : std::uint8_t { kStart, kTop, kEvents, kEvent, kArgs, kDone };
  enum class Field : std::uint8_t {
    kOther,
    kTraceEvents,
    kPh,
    kName,
    kPid,
    kTid,
    kTs,
    kDur,
    kArgs,  // top level and events
    kHloOp,
    kHloModule,
    kProgramId,
    kLongName,
    kArgName  // args
  };

  void scalar(const Scalar& value);
  static void set_number(NumberField& field, const Scalar& value, bool precise);
  void finish_event();
  void record(const Interval& interval, double microseconds, const OpenEvent& fields);
  /// `traceEvents[4]` (the object form) or `event 4` (the array form).
  std::string event_name(std::size_t index) const {
    return m_array_form ? fmt::format("event {}", index) : fmt::format("traceEvents[{}]", index);
  }
  /// The current event, for messages: `traceEvents[4] ("fusion_3", ph "X")`.
  std::string event_label() const;
  const std::string& line_key(std::string_view pid, std::string_view tid);
  LineState& line_state(std::string_view pid, std::string_view tid);
  static std::string_view kind_name(const Scalar& value);

  bool m_compressed;
  Where m_where = Where::kStart;
  Field m_field = Field::kOther;
  std::size_t m_skip = 0;  // depth inside a value that is skipped whole
  bool m_array_form = false, m_saw_events = false;
  std::size_t m_index = 0;  // events read, the current one's index + 1
  Event m_event;
  OpenEvent m_fields;  // scratch: the current event's names
  std::string m_key, m_line_key;
  std::unordered_map<std::string, Sums> m_sums;
  std::unordered_map<std::string, LineState> m_lines;
  std::unordered_map<std::string, std::string> m_process_names;  // by pid
  std::unordered_map<std::string, std::string> m_thread_names;   // by line key
  std::size_t m_unpaired = 0;
};

std::string_view TraceReader::kind_name(const Scalar& value) {
  switch (value.kind) {
    case Kind::kNull: return "null";
    case Kind::kBool: return "a boolean";
    case Kind::kNumber: return "a number";
    case Kind::kString: return "a string";
  }
  return "a value";
}

void TraceReader::key(std::string& text) {
  if (m_skip > 0) return;
  // string_view compares: the length first, then a memcmp the compiler unrolls (this runs for
  // every key of every event).
  const std::string_view key = text;
  switch (m_where) {
    case Where::kTop: m_field = key == "traceEvents" ? Field::kTraceEvents : Field::kOther; break;
    case Where::kEvent:
      m_field = key == "ph"     ? Field::kPh
                : key == "name" ? Field::kName
                : key == "pid"  ? Field::kPid
                : key == "tid"  ? Field::kTid
                : key == "ts"   ? Field::kTs
                : key == "dur"  ? Field::kDur
                : key == "args" ? Field::kArgs
                                : Field::kOther;
      break;
    case Where::kArgs:
      m_field = key == "hlo_op"                                 ? Field::kHloOp
                : key == "hlo_module"                           ? Field::kHloModule
                : key == "program_id" || key == "hlo_module_id" ? Field::kProgramId
                : key == "long_name"                            ? Field::kLongName
                : key == "name"                                 ? Field::kArgName
                                                                : Field::kOther;
      break;
    default: break;
  }
}

void TraceReader::start_object() {
  if (m_skip > 0) {
    ++m_skip;
    return;
  }
  switch (m_where) {
    case Where::kStart: m_where = Where::kTop; break;
    case Where::kTop:
      if (m_field == Field::kTraceEvents) throw ProfileError("\"traceEvents\" is an object, not an array of events");
      m_skip = 1;
      break;
    case Where::kEvents:
      ++m_index;
      m_event.clear();
      m_field = Field::kOther;
      m_where = Where::kEvent;
      break;
    case Where::kEvent:
      if (m_field == Field::kArgs) {
        m_where = Where::kArgs;
        m_field = Field::kOther;
      } else {
        m_skip = 1;
      }
      break;
    case Where::kArgs:
    case Where::kDone: m_skip = 1; break;
  }
}

void TraceReader::end_object() {
  if (m_skip > 0) {
    --m_skip;
    return;
  }
  switch (m_where) {
    case Where::kTop:
      if (!m_saw_events) throw ProfileError("no \"traceEvents\" array in the top-level object: not a trace");
      m_where = Where::kDone;
      break;
    case Where::kEvent:
      finish_event();
      m_where = Where::kEvents;
      break;
    case Where::kArgs: m_where = Where::kEvent; break;
    default: break;
  }
}

void TraceReader::start_array() {
  if (m_skip > 0) {
    ++m_skip;
    return;
  }
  switch (m_where) {
    case Where::kStart:
      m_array_form = true;
      m_where = Where::kEvents;
      break;
    case Where::kTop:
      if (m_field == Field::kTraceEvents && !m_saw_events) {
        m_saw_events = true;
        m_where = Where::kEvents;
      } else {
        m_skip = 1;
      }
      break;
    case Where::kEvents: throw ProfileError(fmt::format("{} is an array, not an event object", event_name(m_index)));
    default: m_skip = 1; break;
  }
}

void TraceReader::end_array() {
  if (m_skip > 0) {
    --m_skip;
    return;
  }
  if (m_where == Where::kEvents) m_where = m_array_form ? Where::kDone : Where::kTop;
}

void TraceReader::scalar(const Scalar& value) {
  if (m_skip > 0) return;
  switch (m_where) {
    case Where::kStart:
      throw ProfileError(
          fmt::format("the file is {} in JSON, not a trace (an object with \"traceEvents\", or an "
                      "array of events)",
                      kind_name(value)));
    case Where::kTop:
      if (m_field == Field::kTraceEvents) {
        throw ProfileError(fmt::format("\"traceEvents\" is {}, not an array of events", kind_name(value)));
      }
      break;
    case Where::kEvents:
      throw ProfileError(fmt::format("{} is {}, not an event object", event_name(m_index), kind_name(value)));
    case Where::kEvent: {
      if (value.kind == Kind::kNull) break;
      switch (m_field) {
        case Field::kPh: m_event.ph = value.text; break;
        case Field::kName: m_event.name = value.text; break;
        case Field::kPid: m_event.pid = value.text; break;
        case Field::kTid: m_event.tid = value.text; break;
        case Field::kTs: set_number(m_event.ts, value, /*precise=*/true); break;
        case Field::kDur: set_number(m_event.dur, value, /*precise=*/false); break;
        default: break;
      }
      break;
    }
    case Where::kArgs: {
      if (value.kind != Kind::kString && value.kind != Kind::kNumber) break;
      switch (m_field) {
        case Field::kHloOp: m_event.hlo_op = value.text; break;
        case Field::kHloModule: m_event.hlo_module = value.text; break;
        case Field::kProgramId: m_event.program_id = value.text; break;
        case Field::kLongName: m_event.long_name = value.text; break;
        case Field::kArgName: m_event.arg_name = value.text; break;
        default: break;
      }
      break;
    }
    case Where::kDone: break;
  }
}

// A number, or a string holding one (some writers quote timestamps to keep their digits).
void TraceReader::set_number(NumberField& field, const Scalar& value, bool precise) {
  std::optional<long double> number;
  if (value.kind == Kind::kNumber || value.kind == Kind::kString) {
    number = precise ? precise_value(value.text) : double_value(value.text);
  }
  if (number) {
    field.state = NumberField::State::kNumber;
    field.value = *number;
  } else {
    field.state = NumberField::State::kBad;
    field.shown = value.kind == Kind::kString ? fmt::format("\"{}\"", value.text) : std::string(value.text);
  }
}

std::string TraceReader::event_label() const {
  return fmt::format("{} (\"{}\", ph \"{}\")", event_name(m_index - 1), m_event.name, m_event.ph);
}

const std::string& TraceReader::line_key(std::string_view pid, std::string_view tid) {
  m_line_key.clear();
  append_field(m_line_key, pid);
  append_field(m_line_key, tid);
  return m_line_key;
}

LineState& TraceReader::line_state(std::string_view pid, std::string_view tid) {
  const std::string& key = line_key(pid, tid);
  auto it = m_lines.find(key);
  if (it == m_lines.end()) it = m_lines.emplace(key, LineState{}).first;
  return it->second;
}

void TraceReader::finish_event() {
  const std::string_view ph = m_event.ph, what = m_event.name;
  if (ph == "M") {
    if (what == "process_name") m_process_names[m_event.pid] = m_event.arg_name;
    if (what == "thread_name") m_thread_names[line_key(m_event.pid, m_event.tid)] = m_event.arg_name;
    return;
  }
  const bool complete = ph == "X", begin = ph == "B", end = ph == "E";
  if (!complete && !begin && !end) return;  // instant, counter, async, flow, ...: not a kernel's time
  const auto need = [&](const NumberField& field, std::string_view name) {
    if (field.state == NumberField::State::kMissing) {
      throw ProfileError(fmt::format("{}: no \"{}\"", event_label(), name));
    }
    if (field.state == NumberField::State::kBad) {
      throw ProfileError(
          fmt::format("{}: \"{}\" is {}, not a number of microseconds", event_label(), name, field.shown));
    }
  };
  need(m_event.ts, "ts");
  if (complete) {
    need(m_event.dur, "dur");
    if (m_event.dur.value < 0) {
      throw ProfileError(
          fmt::format("{}: \"dur\" is {}, a negative duration", event_label(), static_cast<double>(m_event.dur.value)));
    }
    m_fields.name = m_event.name;
    m_fields.hlo_op = m_event.hlo_op;
    m_fields.hlo_module = m_event.hlo_module;
    m_fields.program_id = m_event.program_id;
    m_fields.long_name = op_of_long_name(m_event.long_name);
    record({m_event.ts.value, m_event.ts.value + m_event.dur.value}, static_cast<double>(m_event.dur.value), m_fields);
    return;
  }
  LineState& line = line_state(m_event.pid, m_event.tid);
  if (begin) {
    line.open.push_back({m_event.ts.value, m_index - 1, m_event.name, m_event.hlo_op, m_event.hlo_module,
                         m_event.program_id, std::string(op_of_long_name(m_event.long_name))});
    return;
  }
  if (line.open.empty()) {  // an E without its B: the trace began inside it
    ++m_unpaired;
    return;
  }
  OpenEvent b = std::move(line.open.back());
  line.open.pop_back();
  if (m_event.ts.value < b.start) {
    throw ProfileError(fmt::format("{}: ends at ts {} before its \"B\" ({}) begins at ts {}", event_label(),
                                   static_cast<double>(m_event.ts.value), event_name(b.index),
                                   static_cast<double>(b.start)));
  }
  // Chrome merges the args of an E into those of its B.
  if (b.hlo_op.empty()) b.hlo_op = m_event.hlo_op;
  if (b.hlo_module.empty()) b.hlo_module = m_event.hlo_module;
  if (b.program_id.empty()) b.program_id = m_event.program_id;
  if (b.long_name.empty()) b.long_name = op_of_long_name(m_event.long_name);
  record({b.start, m_event.ts.value}, static_cast<double>(m_event.ts.value - b.start), b);
}

void TraceReader::record(const Interval& interval, double microseconds, const OpenEvent& fields) {
  const std::string_view pid = m_event.pid, tid = m_event.tid;
  LineState& line = line_state(pid, tid);
  const bool has_op = !fields.hlo_op.empty();
  // Open B events of the line began before this event and end after it: they hold it.
  const bool in_open =
      std::any_of(line.open.begin(), line.open.end(), [&](const OpenEvent& o) { return o.start <= interval.start; });
  const bool in_open_op = std::any_of(line.open.begin(), line.open.end(), [&](const OpenEvent& o) {
    return !o.hlo_op.empty() && o.start <= interval.start;
  });
  const bool nested = nested_in(line.all, interval) || in_open;
  const bool nested_op = has_op && (nested_in(line.with_op, interval) || in_open_op);

  m_key.clear();
  for (std::string_view field :
       {pid, tid, std::string_view(fields.name), std::string_view(fields.hlo_op), std::string_view(fields.hlo_module),
        std::string_view(fields.program_id), std::string_view(fields.long_name)}) {
    append_field(m_key, field);
  }
  auto it = m_sums.find(m_key);
  if (it == m_sums.end()) it = m_sums.emplace(m_key, Sums{}).first;
  Sums& sums = it->second;
  sums.microseconds += microseconds;
  ++sums.events;
  if (!nested) sums.outer_microseconds += microseconds;
  if (has_op && !nested_op) sums.outer_op_microseconds += microseconds;
}

std::string TraceReader::message(const JsonError& error) const {
  if (error.empty) return "empty file, not a trace";
  const std::string byte =
      error.at_end ? fmt::format("at the end, after {} bytes", error.offset) : fmt::format("byte {}", error.offset + 1);
  std::string message = fmt::format("line {}, column {} ({}{}): {}", error.line, error.column, byte,
                                    m_compressed ? " of the decompressed text" : "", error.what);
  return m_where == Where::kStart ? "not JSON: " + message : message;
}

//===----------------------------------------------------------------------===//
// From the sums to the profile
//===----------------------------------------------------------------------===//

// The lines of xprof's device planes that summarise others (xplane_schema.h):
// their events hold the kernels' or ops' time, or overlap it.
bool summary_line(std::string_view name) {
  static constexpr std::string_view k_names[] = {
      // keep sorted
      "Async XLA Ops", "Framework Name Scope",  "Framework Ops",       "Host Offload Ops",
      "Launch Stats",  "Source code",           "Sparse Core Modules", "Sparse Core Steps",
      "Steps",         "TensorFlow Name Scope", "TensorFlow Ops",      "XLA Modules",
      "_counters_"};
  return std::find(std::begin(k_names), std::end(k_names), name) != std::end(k_names);
}

enum class ProcessKind : std::uint8_t { kDevice, kHost, kOther };

ProcessKind process_kind(std::string_view name) {
  if (name.starts_with("/device:")) return ProcessKind::kDevice;
  if (name.starts_with("/host:")) return ProcessKind::kHost;
  return ProcessKind::kOther;
}

/// `jit_f(12)` -> {`jit_f`, `12`}; {name, ""} when there is no `(digits)` suffix.
std::pair<std::string_view, std::string_view> split_program_id(std::string_view name) {
  if (name.size() < 3 || name.back() != ')') return {name, {}};
  const std::size_t open = name.rfind('(');
  if (open == std::string_view::npos || open == 0 || open + 2 > name.size() - 1) return {name, {}};
  const std::string_view digits = name.substr(open + 1, name.size() - open - 2);
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return {name, {}};
  return {name.substr(0, open), digits};
}

struct SumsEntry {
  std::string_view pid, tid, name, hlo_op, hlo_module, program_id, long_name;
  const Sums* sums;
};

Profile TraceReader::finish() {
  Profile profile;
  profile.compressed = m_compressed;
  profile.trace_events = m_index;
  profile.unpaired_events = m_unpaired;
  for (const auto& [key, line] : m_lines) profile.unpaired_events += line.open.size();

  std::vector<SumsEntry> entries;
  entries.reserve(m_sums.size());
  for (const auto& [key, sums] : m_sums) {
    const std::vector<std::string_view> f = split_fields(key);
    entries.push_back({f[0], f[1], f[2], f[3], f[4], f[5], f[6], &sums});
  }
  // A fixed order, so that sums over entries do not depend on the hash table.
  std::sort(entries.begin(), entries.end(), [](const SumsEntry& a, const SumsEntry& b) {
    return std::tie(a.pid, a.tid, a.name, a.hlo_op, a.hlo_module, a.program_id, a.long_name) <
           std::tie(b.pid, b.tid, b.name, b.hlo_op, b.hlo_module, b.program_id, b.long_name);
  });

  const auto process_name = [&](std::string_view pid) -> std::string_view {
    const auto it = m_process_names.find(std::string(pid));
    return it == m_process_names.end() ? std::string_view() : std::string_view(it->second);
  };
  const auto thread_name = [&](std::string_view pid, std::string_view tid) -> std::string_view {
    const auto it = m_thread_names.find(line_key(pid, tid));
    return it == m_thread_names.end() ? std::string_view() : std::string_view(it->second);
  };

  // What the processes are, which of them have XLA Ops lines, the modules of programs.
  bool any_device = false, any_op = false;
  std::unordered_set<std::string_view> with_xla_ops;
  std::unordered_map<std::string_view, std::string_view> module_of_program;
  for (const SumsEntry& e : entries) {
    const std::string_view line = thread_name(e.pid, e.tid);
    if (process_kind(process_name(e.pid)) == ProcessKind::kDevice) any_device = true;
    if (line == "XLA Ops") with_xla_ops.insert(e.pid);
    if (line == "XLA Ops" || !e.hlo_op.empty()) any_op = true;
    if (line == "XLA Modules") {
      const auto [module, program] = split_program_id(e.name);
      if (!program.empty()) module_of_program.emplace(program, module);
    }
  }
  profile.host_only = !any_device;

  // Which entries count, and which of their outer times.
  struct Counted {
    const SumsEntry* entry;
    std::string hlo_op, hlo_module;
    double outer;
  };
  std::vector<Counted> counted;
  for (const SumsEntry& e : entries) {
    const std::string_view line = thread_name(e.pid, e.tid);
    const ProcessKind kind = process_kind(process_name(e.pid));
    const bool on_xla_ops = line == "XLA Ops";
    bool counts = false, op_mode = false;  // op_mode: counted among the events that carry hlo_op
    if (kind == ProcessKind::kDevice) {
      counts = with_xla_ops.contains(e.pid) ? on_xla_ops : !summary_line(line);
    } else if (any_device) {
      counts = op_mode = kind == ProcessKind::kOther && !e.hlo_op.empty();
    } else if (any_op) {
      counts = on_xla_ops || !e.hlo_op.empty();
      op_mode = !on_xla_ops;
    } else {
      counts = !summary_line(line);
    }
    if (!counts) continue;
    Counted c{&e, std::string(e.hlo_op), std::string(e.hlo_module),
              op_mode ? e.sums->outer_op_microseconds : e.sums->outer_microseconds};
    if (c.hlo_op.empty() && on_xla_ops) {
      c.hlo_op = !e.long_name.empty() ? e.long_name : e.name;
      if (c.hlo_op.starts_with('%')) c.hlo_op.erase(0, 1);
    }
    if (c.hlo_module.empty() && !e.program_id.empty()) {
      if (const auto it = module_of_program.find(e.program_id); it != module_of_program.end()) {
        c.hlo_module = it->second;
      }
    }
    counted.push_back(std::move(c));
  }

  // The processes counted, then the kernels.
  const auto shown_process = [&](std::string_view pid) {
    const std::string_view name = process_name(pid);
    return name.empty() ? fmt::format("pid {}", pid) : std::string(name);
  };
  for (const Counted& c : counted) profile.processes.push_back(shown_process(c.entry->pid));
  std::sort(profile.processes.begin(), profile.processes.end());
  profile.processes.erase(std::unique(profile.processes.begin(), profile.processes.end()), profile.processes.end());

  std::map<std::tuple<std::string, std::string, std::string, std::string>, ProfileKernel> kernels;
  double total = 0;
  for (const Counted& c : counted) {
    const SumsEntry& e = *c.entry;
    ProfileKernel& k = kernels[{c.hlo_module, c.hlo_op, std::string(e.name), std::string(e.program_id)}];
    k.hlo_module = c.hlo_module;
    k.hlo_op = c.hlo_op;
    k.name = e.name;
    k.program_id = e.program_id;
    k.microseconds += e.sums->microseconds;
    k.outer_microseconds += c.outer;
    k.events += e.sums->events;
    const std::string process = shown_process(e.pid);
    const auto device = static_cast<std::uint32_t>(
        std::lower_bound(profile.processes.begin(), profile.processes.end(), process) - profile.processes.begin());
    if (std::find(k.devices.begin(), k.devices.end(), device) == k.devices.end()) k.devices.push_back(device);
    total += c.outer;
    profile.total_events += e.sums->events;
  }
  for (auto& [key, kernel] : kernels) {
    std::sort(kernel.devices.begin(), kernel.devices.end());
    profile.kernels.push_back(std::move(kernel));
  }
  profile.total_seconds = total / 1e6;
  return profile;
}

Profile read_text(TextInput& text) {
  TextCursor cursor(text);
  TraceReader reader(text.compressed());
  try {
    JsonReader<TraceReader>(cursor, reader).read();
  } catch (const JsonError& error) {
    if (!reader.may_end_at(error)) throw ProfileError(reader.message(error));
  }
  return reader.finish();
}

//===----------------------------------------------------------------------===//
// Joining
//===----------------------------------------------------------------------===//

/// The program id in a dump file's name (`module_0012.jit_f.sm_8.0_gpu_after_optimizations.txt` -> 12).
std::optional<std::uint64_t> program_id_of_file(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!base.starts_with("module_")) return std::nullopt;
  base.remove_prefix(7);
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(base.data(), base.data() + base.size(), id);
  if (ec != std::errc() || ptr == base.data() || ptr == base.data() + base.size() || *ptr != '.') return std::nullopt;
  return id;
}

std::optional<std::uint64_t> parse_id(std::string_view text) {
  std::uint64_t id = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return id;
}

/// A module's instruction names, and the kernel names they give.
struct ModuleNames {
  const hlo::Module* module = nullptr;
  std::optional<std::uint64_t> program_id;  // from the dump file's name, when the file holds this module alone
  std::unordered_set<std::string_view> names;
  /// Sanitised name -> the instructions that give it (filled on first use).
  std::unordered_map<std::string, std::vector<std::string_view>> kernel_names;
  bool kernel_names_built = false;

  const std::vector<std::string_view>* giving(const std::string& kernel) {
    if (!kernel_names_built) {
      for (std::string_view name : names) kernel_names[sanitized_kernel_name(name)].push_back(name);
      for (auto& [k, list] : kernel_names) std::sort(list.begin(), list.end());
      kernel_names_built = true;
    }
    const auto it = kernel_names.find(kernel);
    return it == kernel_names.end() ? nullptr : &it->second;
  }
};

/// Whether `kernel` may come from `m` by module name and program id.
bool module_matches(const ProfileKernel& kernel, const ModuleNames& m) {
  if (kernel.hlo_module.empty()) return true;
  const auto [name, program] = split_program_id(kernel.hlo_module);
  if (name != m.module->name) return false;
  const std::optional<std::uint64_t> id = parse_id(kernel.program_id.empty() ? program : kernel.program_id);
  return !id || !m.program_id || *id == *m.program_id;
}

/// The instruction of `m` that `kernel` names, or why none: the reason, in `why`.
std::optional<std::string_view> instruction_of(const ProfileKernel& kernel, ModuleNames& m, std::string& why) {
  if (!kernel.hlo_op.empty()) {
    if (const auto it = m.names.find(kernel.hlo_op); it != m.names.end()) return *it;
    why = fmt::format("module '{}' has no instruction '{}'", m.module->name, kernel.hlo_op);
    return std::nullopt;
  }
  if (const auto it = m.names.find(kernel.name); it != m.names.end()) return *it;
  const std::vector<std::string_view>* giving = m.giving(kernel.name);
  if (giving == nullptr) {
    why = fmt::format("no instruction is named '{}' or gives it as a kernel name", kernel.name);
    return std::nullopt;
  }
  if (giving->size() > 1) {
    why = fmt::format("instructions {} of module '{}' all give the kernel name '{}'", fmt::join(*giving, ", "),
                      m.module->name, kernel.name);
    return std::nullopt;
  }
  return giving->front();
}

}  // namespace

std::string sanitized_kernel_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
    if (!keep) c = '_';
  }
  return out;
}

std::optional<MeasuredTime> ProfileJoin::measured(std::size_t module, std::string_view instruction) const {
  if (module >= times.size()) return std::nullopt;
  const auto it = times[module].find(instruction);
  if (it == times[module].end()) return std::nullopt;
  return it->second;
}

ProfileJoin Profile::join(std::span<const hlo::Module> modules) const {
  std::vector<ModuleNames> names(modules.size());
  std::map<const parser::SourceFile*, std::size_t> modules_per_file;
  for (const hlo::Module& module : modules) ++modules_per_file[module.source.get()];
  for (std::size_t i = 0; i < modules.size(); ++i) {
    const hlo::Module& module = modules[i];
    names[i].module = &module;
    if (module.source != nullptr && modules_per_file[module.source.get()] == 1) {
      names[i].program_id = program_id_of_file(module.source->name());
    }
    for (const hlo::Computation& computation : module.computations) {
      for (const hlo::Instruction& instruction : computation.instructions) names[i].names.insert(instruction.name);
    }
  }

  // Per instruction: microseconds, events, devices; summed in kernel order.
  struct Sum {
    double microseconds = 0;
    std::size_t events = 0;
    std::vector<std::uint32_t> devices;
  };
  std::vector<std::map<std::string_view, Sum>> sums(modules.size());
  ProfileJoin join;
  double matched = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const ProfileKernel& kernel = kernels[k];
    std::vector<std::pair<std::size_t, std::string_view>> found;  // (module, instruction)
    std::string why;
    bool any_module = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (!module_matches(kernel, names[i])) continue;
      any_module = true;
      if (const std::optional<std::string_view> instruction = instruction_of(kernel, names[i], why)) {
        found.emplace_back(i, *instruction);
      }
    }
    if (found.size() == 1) {
      Sum& sum = sums[found[0].first][found[0].second];
      sum.microseconds += kernel.microseconds;
      sum.events += kernel.events;
      sum.devices.insert(sum.devices.end(), kernel.devices.begin(), kernel.devices.end());
      matched += kernel.outer_microseconds;
      join.matched_events += kernel.events;
      continue;
    }
    if (found.size() > 1) {
      std::vector<std::string_view> where;
      where.reserve(found.size());
      for (const auto& [i, instruction] : found) where.push_back(modules[i].name);
      why = fmt::format("its instruction is in several modules: {}", fmt::join(where, ", "));
    } else if (modules.empty()) {
      why = "no module to join";
    } else if (!any_module) {
      // Not a structured binding: clang 14 (clang-tidy) cannot capture one.
      const std::pair<std::string_view, std::string_view> split = split_program_id(kernel.hlo_module);
      const std::string_view name = split.first, program = split.second;
      const bool named =
          std::any_of(modules.begin(), modules.end(), [&](const hlo::Module& m) { return m.name == name; });
      why = named ? fmt::format("program {} of module '{}' is not the one read (the dump's file name gives another)",
                                kernel.program_id.empty() ? program : std::string_view(kernel.program_id), name)
                  : fmt::format("module '{}' is not among the modules read", kernel.hlo_module);
    }
    join.unmatched.push_back({k, std::move(why)});
  }

  join.times.resize(modules.size());
  for (std::size_t i = 0; i < modules.size(); ++i) {
    for (auto& [instruction, sum] : sums[i]) {
      std::sort(sum.devices.begin(), sum.devices.end());
      const auto devices =
          static_cast<std::size_t>(std::unique(sum.devices.begin(), sum.devices.end()) - sum.devices.begin());
      join.times[i].emplace(std::string(instruction), MeasuredTime{sum.microseconds / 1e6, sum.events, devices});
    }
  }
  std::sort(join.unmatched.begin(), join.unmatched.end(), [&](const UnmatchedKernel& a, const UnmatchedKernel& b) {
    const ProfileKernel &ka = kernels[a.kernel], &kb = kernels[b.kernel];
    if (ka.microseconds != kb.microseconds) return ka.microseconds > kb.microseconds;
    return std::tie(ka.name, a.kernel) < std::tie(kb.name, b.kernel);
  });
  join.matched_seconds = matched / 1e6;
  join.total_seconds = total_seconds;
  return join;
}

std::optional<MeasuredTime> Profile::measured(const hlo::Module& module, std::string_view instruction) const {
  return join(std::span<const hlo::Module>(&module, 1)).measured(0, instruction);
}

Profile read_profile(const std::string& path) {
  ByteInput bytes(path);
  TextInput text(bytes);
  return read_text(text);
}

Profile parse_profile(std::string_view bytes, std::size_t piece_bytes) {
  ByteInput input(bytes, piece_bytes);
  TextInput text(input);
  return read_text(text);
}

}  // namespace hlo_index::cost

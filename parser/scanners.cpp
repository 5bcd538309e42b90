#include "parser/scanners.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace hlo_index::parser::scan {
namespace {

char closer_of(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }
bool is_opener(char c) { return c == '(' || c == '[' || c == '{'; }
bool is_closer(char c) { return c == ')' || c == ']' || c == '}'; }

// Characters that may stand between a shape's '[' and ']': sizes, '<=', '?', ',' and blanks.
struct DimensionChars {
  bool allowed[256] = {};
  constexpr DimensionChars() {
    for (char c : std::string_view("0123456789,<=? \t")) allowed[static_cast<unsigned char>(c)] = true;
  }
};
constexpr DimensionChars k_dimension_chars{};

const char* skip_comment(const char* p, const char* end) {
  if (p + 1 >= end || p[0] != '/') return nullptr;
  if (p[1] == '/') {
    const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
    return nl ? static_cast<const char*>(nl) : end;
  }
  if (p[1] == '*') {
    for (const char* q = p + 2; q + 1 < end; ++q)
      if (q[0] == '*' && q[1] == '/') return q + 2;
    throw SyntaxError{p, "unterminated comment"};
  }
  return nullptr;
}

// Tracks the open brackets of a balanced span, innermost last.
class BracketStack {
public:
  void push(const char* where) {
    if (m_depth == k_max_nesting)
      throw SyntaxError{where, "nesting deeper than " + std::to_string(k_max_nesting) + " levels"};
    m_open[m_depth++] = where;
  }
  // Pops the bracket `c` closes; throws if it closes a different kind.
  void pop(const char* where) {
    char expected = closer_of(*m_open[m_depth - 1]);
    if (*where != expected)
      throw SyntaxError{where, std::string("expected '") + expected + "' before '" + *where + "'"};
    --m_depth;
  }
  int depth() const { return m_depth; }
  [[noreturn]] void unclosed() const {
    throw SyntaxError{m_open[m_depth - 1], std::string("unclosed '") + *m_open[m_depth - 1] + "'"};
  }

private:
  const char* m_open[k_max_nesting];
  int m_depth = 0;
};

// Characters with no meaning inside a balanced span: skipped in a tight loop.
struct PlainChars {
  bool plain[256] = {};
  constexpr PlainChars() {
    for (int c = 0; c < 256; ++c) plain[c] = true;
    for (char c : {'(', ')', '[', ']', '{', '}', '"', '\'', '/'}) plain[static_cast<unsigned char>(c)] = false;
  }
};
constexpr PlainChars k_plain{};

// From an opener at `p`, returns just past its matching closer.
const char* group_end(const char* p, const char* end) {
  const char* const open = p;
  // Most groups are flat (a layout `{1,0}`, `[0:4]`): when the first character with a meaning
  // after the opener is its closer, that is the end, and the bracket stack is not needed.
  for (++p; p < end && k_plain.plain[static_cast<unsigned char>(*p)];) ++p;
  if (p < end && *p == closer_of(*open)) return p + 1;
  BracketStack stack;
  stack.push(open);
  while (p < end) {
    while (p < end && k_plain.plain[static_cast<unsigned char>(*p)]) ++p;
    if (p == end) break;
    char c = *p;
    if (is_opener(c)) {
      stack.push(p++);
    } else if (is_closer(c)) {
      stack.pop(p++);
      if (stack.depth() == 0) return p;
    } else if (c == '"' || c == '\'') {
      p = quoted(p, end);
    } else if (c == '/' && skip_comment(p, end)) {
      p = skip_comment(p, end);
    } else {
      ++p;
    }
  }
  stack.unclosed();
}

// The end of the run of name characters at `p`. 16 bytes at a time while a whole block is
// left: every instruction names itself and its operands, and a loop over single bytes was a
// twentieth of the parse.
const char* name_chars_end(const char* p, const char* end) {
  using Bytes = unsigned char __attribute__((vector_size(16)));
  static_assert(std::endian::native == std::endian::little, "the first differing byte is the lowest");
  for (; end - p >= 16; p += 16) {
    Bytes b;
    std::memcpy(&b, p, sizeof b);
    // Name characters: letters (either case: b | 0x20), '-', '.' and digits ('/' lies between
    // them), '_'. An unsigned comparison of a difference checks a whole range at once.
    const auto letter = ((b | 0x20) - 'a') <= 'z' - 'a';
    const auto dash_dot_digit = ((b - '-') <= '9' - '-') & (b != '/');
    const auto other = ~(letter | dash_dot_digit | (b == '_'));
    std::uint64_t halves[2];
    std::memcpy(halves, &other, sizeof halves);
    if (halves[0] != 0) return p + __builtin_ctzll(halves[0]) / 8;
    if (halves[1] != 0) return p + 8 + __builtin_ctzll(halves[1]) / 8;
  }
  while (p < end && is_name_char(*p)) ++p;
  return p;
}

}  // namespace

const char* skip_blank_slow(const char* p, const char* end) {
  while (p < end) {
    if (is_space(*p)) {
      ++p;
    } else if (*p == '/') {
      const char* q = skip_comment(p, end);
      if (!q) return p;
      p = q;
    } else {
      return p;
    }
  }
  return p;
}

const char* name(const char* p, const char* end, const char*& name_begin) {
  if (p < end && *p == '%') ++p;
  name_begin = p;
  p = name_chars_end(p, end);
  return p == name_begin ? nullptr : p;
}

const char* quoted(const char* p, const char* end) {
  const char* start = p;
  char quote = *p++;
  while (true) {
    if (p == end || *p == '\n') throw SyntaxError{start, "unterminated string"};
    if (*p == '\\') {
      if (p + 1 == end) throw SyntaxError{start, "unterminated string"};
      p += 2;
    } else if (*p == quote) {
      return p + 1;
    } else {
      ++p;
    }
  }
}

const char* literal_text(const char* p, const char* end) {
  // `p` is at the '(' that opens the literal; the result is just past its ')'.
  return group_end(p, end);
}

const char* attribute_value(const char* p, const char* end) {
  const char* start = p;
  while (p < end) {
    char c = *p;
    if (is_opener(c)) {
      p = group_end(p, end);
    } else if (c == '"' || c == '\'') {
      p = quoted(p, end);
    } else if (is_space(c)) {
      // `replica_groups=mesh[...] {'axis_0'}`: a brace group after blanks continues the value.
      const char* q = skip_blank(p, end);
      if (p == start || q == end || *q != '{') break;
      p = q;
    } else if (c == ',' || is_closer(c) || (c == '/' && skip_comment(p, end))) {
      break;
    } else {
      ++p;
    }
  }
  return p == start ? nullptr : p;
}

const char* shape_text(const char* p, const char* end) {
  if (p == end) return nullptr;
  if (*p == '(') return group_end(p, end);
  if (*p == 'b') {  // a buffer `b(f32[2])`; XLA's lexer allows blanks before the '('
    const char* open = p + 1;
    while (open < end && (*open == ' ' || *open == '\t')) ++open;
    if (open < end && *open == '(') return group_end(open, end);
  }
  const char* q = p;
  while (q < end && ((*q >= 'a' && *q <= 'z') || is_digit(*q))) ++q;
  if (q == p) return nullptr;
  // XLA's lexer allows blanks between the element type and '[' (`s32 [4]`).
  while (q < end && (*q == ' ' || *q == '\t')) ++q;
  if (q == end || *q != '[') return nullptr;
  // Dimensions hold only sizes, '<=', '?', ',' and blanks; anything else ends the extent
  // there, so the shape grammar reports it at its own position.
  for (++q; q < end && *q != ']'; ++q) {
    if (k_dimension_chars.allowed[static_cast<unsigned char>(*q)]) continue;
    if (*q == '-') throw SyntaxError{q, "dimension size must not be negative"};
    throw SyntaxError{q, "expected ']'"};
  }
  if (q == end) throw SyntaxError{q, "expected ']'"};
  ++q;
  // A '{' after the dims starts a layout only if a minor_to_major list or ':' follows
  // (or it is an empty layout '{}'); otherwise it opens a computation body.
  const char* brace = q;
  while (brace < end && (*brace == ' ' || *brace == '\t')) ++brace;
  if (brace < end && *brace == '{') {
    const char* inside = skip_blank(brace + 1, end);
    if (brace + 1 < end && brace[1] == '}') return brace + 2;
    if (inside < end && (is_digit(*inside) || *inside == ':')) return group_end(brace, end);
  }
  return q;
}

const char* integer(const char* p, const char* end, std::int64_t& value) {
  const char* start = p;
  bool negative = false;
  if (p < end && (*p == '-' || *p == '+')) negative = *p++ == '-';
  if (p == end || !is_digit(*p)) return nullptr;
  // Accumulate as a negative number so INT64_MIN is representable.
  std::int64_t acc = 0;
  constexpr std::int64_t k_min = std::numeric_limits<std::int64_t>::min();
  for (; p < end && is_digit(*p); ++p) {
    int digit = *p - '0';
    if (acc < (k_min + digit) / 10) throw SyntaxError{start, "integer is outside the range of a signed 64-bit integer"};
    acc = acc * 10 - digit;
  }
  if (!negative) {
    if (acc == k_min) throw SyntaxError{start, "integer is outside the range of a signed 64-bit integer"};
    acc = -acc;
  }
  value = acc;
  return p;
}

}  // namespace hlo_index::parser::scan

// Hand-written scanners for HLO's lexical pieces: whitespace and comments,
// names, quoted strings, and bracket-balanced spans. The X3 primitives in
// primitives.hpp wrap them; they are plain functions so the hot loops stay
// tight and can be tested on their own. Each returns the end of what it
// consumed, or nullptr if nothing matched; malformed input throws SyntaxError.
#pragma once

#include <cstdint>

#include "parser/syntax_error.hpp"

namespace hlo_index::parser::scan {

// One table lookup per character in the hot loops.
struct CharClasses {
  bool name[256] = {};
  constexpr CharClasses() {
    for (int c = 'a'; c <= 'z'; ++c) name[c] = true;
    for (int c = 'A'; c <= 'Z'; ++c) name[c] = true;
    for (int c = '0'; c <= '9'; ++c) name[c] = true;
    name[static_cast<unsigned char>('_')] = name[static_cast<unsigned char>('.')] =
        name[static_cast<unsigned char>('-')] = true;
  }
};
inline constexpr CharClasses k_char_classes{};

inline bool is_name_char(char c) { return k_char_classes.name[static_cast<unsigned char>(c)]; }
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

const char* skip_blank_slow(const char* p, const char* end);
/// Skips whitespace, /* block */ and // line comments. Returns the new position.
inline const char* skip_blank(const char* p, const char* end) {
  if (p < end && !is_space(*p) && *p != '/') return p;  // the common cases: already at a token,
  if (p + 1 < end && *p == ' ' && !is_space(p[1]) && p[1] != '/') return p + 1;  // or one space before it
  return skip_blank_slow(p, end);
}

/// A name: [%]name-chars+. Sets `name_begin` past the sigil.
const char* name(const char* p, const char* end, const char*& name_begin);

/// "..." or '...' with backslash escapes, on one line.
const char* quoted(const char* p, const char* end);

/// Balanced text up to (not including) an unmatched ')' : constant literals.
const char* literal_text(const char* p, const char* end);

/// An attribute value: adjacent tokens (groups, strings, atoms), plus groups that
/// follow after blanks (`mesh[...] {'x'}`); stops at a top-level ',' or blank.
const char* attribute_value(const char* p, const char* end);

/// The extent of a shape: `(` ... `)` or type[dims] with an optional {layout}.
const char* shape_text(const char* p, const char* end);

/// A signed decimal integer that fits int64_t; throws on overflow.
const char* integer(const char* p, const char* end, std::int64_t& value);

}  // namespace hlo_index::parser::scan

// Hand-written scanners for HLO's lexical pieces: whitespace and comments,
// names, quoted strings, and bracket-balanced spans. The X3 primitives in
// primitives.hpp wrap them; they are plain functions so the hot loops stay
// tight and can be tested on their own. Each returns the end of what it
// consumed, or nullptr if nothing matched; malformed input throws SyntaxError.
#pragma once

#include <cstdint>

#include "parser/syntax_error.hpp"

namespace hlo_index::parser::scan {

inline bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}
inline bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Skips whitespace, /* block */ and // line comments. Returns the new position.
const char* skip_blank(const char* p, const char* end);

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

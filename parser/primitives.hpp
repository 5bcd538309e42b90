// X3 primitive parsers over the hand-written scanners (scanners.hpp), plus the
// skipper. Included only by the *_def.hpp grammar files.
#pragma once

#include <boost/spirit/home/x3.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "parser/scanners.hpp"

namespace hlo_index::parser::grammar {

namespace x3 = boost::spirit::x3;

// Stores a primitive's value into the attribute X3 hands it (or drops it for unused).
template <typename Value, typename Attr>
void store(Value value, Attr& attr) {
  if constexpr (std::is_same_v<Attr, Value>) attr = value;
}

/// Whitespace, /* block */ and // line comments.
struct blank_parser : x3::parser<blank_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    const char* end = scan::skip_blank(first, last);
    if (end == first) return false;
    first = end;
    return true;
  }
};

// Base for primitives that skip, call a scanner returning the end (or nullptr)
// and expose the scanned text as a string_view.
template <typename Derived>
struct text_parser : x3::parser<Derived> {
  using attribute_type = std::string_view;
  static bool const has_attribute = true;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It start = first;
    x3::skip_over(start, last, ctx);  // on failure `first` stays put, so errors point before the blanks
    std::string_view text;
    if (!static_cast<Derived const&>(*this).scan(start, last, text)) return false;
    first = text.data() + text.size() + static_cast<Derived const&>(*this).trailing(start, text);
    store(text, attr);
    return true;
  }
  std::size_t trailing(const char*, std::string_view) const { return 0; }
};

/// `%name` or `name`; the attribute excludes the sigil.
struct name_parser : text_parser<name_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    const char* begin;
    const char* e = scan::name(p, end, begin);
    if (!e) return false;
    text = {begin, static_cast<std::size_t>(e - begin)};
    return true;
  }
};

/// An opcode such as `get-tuple-element`.
struct opcode_parser : text_parser<opcode_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    if (p == end || !(*p >= 'a' && *p <= 'z')) return false;
    const char* q = p;
    while (q < end && scan::is_name_char(*q) && *q != '.') ++q;
    text = {p, static_cast<std::size_t>(q - p)};
    return true;
  }
};

/// The extent of a shape; parsed in full by the shape grammar when first seen.
struct shape_text_parser : text_parser<shape_text_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    const char* e = scan::shape_text(p, end);
    if (!e) return false;
    text = {p, static_cast<std::size_t>(e - p)};
    return true;
  }
};

/// An attribute value, kept as raw text (typed views parse it on demand).
struct attribute_value_parser : text_parser<attribute_value_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    const char* e = scan::attribute_value(p, end);
    if (!e) return false;
    text = {p, static_cast<std::size_t>(e - p)};
    return true;
  }
};

/// `( ... )` of a constant or parameter; the attribute is the text inside.
struct literal_parser : text_parser<literal_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    if (p == end || *p != '(') return false;
    const char* e = scan::literal_text(p, end);
    text = {p + 1, static_cast<std::size_t>(e - p - 2)};
    return true;
  }
  std::size_t trailing(const char*, std::string_view) const { return 1; }  // the ')'
};

/// An inline operand instruction after its shape: `parameter(0)` in `exponential(f32[] parameter(0))`.
struct nested_call_parser : text_parser<nested_call_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    if (p == end || !(*p >= 'a' && *p <= 'z')) return false;
    const char* q = p;
    while (q < end && scan::is_name_char(*q) && *q != '.') ++q;
    if (q == end || *q != '(') return false;
    const char* e = scan::literal_text(q, end);
    text = {p, static_cast<std::size_t>(e - p)};
    return true;
  }
};

/// The value of `literal=s32[] 1` (custom-call): a shape, blanks, then the value.
struct typed_literal_parser : text_parser<typed_literal_parser> {
  bool scan(const char* p, const char* end, std::string_view& text) const {
    const char* e = scan::shape_text(p, end);
    if (!e) return false;
    while (e < end && (*e == ' ' || *e == '\t')) ++e;
    e = scan::attribute_value(e, end);
    if (!e) return false;
    text = {p, static_cast<std::size_t>(e - p)};
    return true;
  }
};

/// A keyword that must not run on into a longer name (`ROOT`, `ENTRY`, ...).
struct keyword_parser : x3::parser<keyword_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;
  constexpr explicit keyword_parser(const char* word) : m_word(word) {}
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    for (const char* w = m_word; *w; ++w, ++p)
      if (p == last || *p != *w) return false;
    if (p != last && scan::is_name_char(*p)) return false;
    first = p;
    return true;
  }
  const char* m_word;
};

/// A signed 64-bit decimal integer; overflow is an error, not a mismatch.
struct int64_parser : x3::parser<int64_parser> {
  using attribute_type = std::int64_t;
  static bool const has_attribute = true;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It start = first;
    x3::skip_over(start, last, ctx);
    std::int64_t value = 0;
    const char* e = scan::integer(start, last, value);
    if (!e) return false;
    first = e;
    store(value, attr);
    return true;
  }
};

inline constexpr blank_parser blank{};
inline constexpr name_parser name{};
inline constexpr opcode_parser opcode{};
inline constexpr shape_text_parser shape_text{};
inline constexpr attribute_value_parser attribute_value{};
inline constexpr literal_parser literal{};
inline constexpr nested_call_parser nested_call{};
inline constexpr typed_literal_parser typed_literal{};
inline constexpr int64_parser int64{};
inline constexpr keyword_parser kw(const char* word) { return keyword_parser(word); }

/// What an expectation failure says was expected. X3 names unnamed composite
/// parsers by their mangled type ("N5boost6spirit..."), which is no use to a user.
inline std::string expected_text(const x3::expectation_failure<const char*>& failure) {
  const std::string& which = failure.which();
  return "expected " + (which.rfind("N5boost", 0) == 0 ? std::string("valid syntax") : which);
}

}  // namespace hlo_index::parser::grammar

// Names X3 uses in expectation_failure::which(); users read them as "expected <name>".
namespace boost::spirit::x3 {
#define HLO_INDEX_X3_INFO(type, text)                                                      \
  template <>                                                                              \
  struct get_info<hlo_index::parser::grammar::type> {                                      \
    using result_type = std::string;                                                       \
    std::string operator()(hlo_index::parser::grammar::type const&) const { return text; } \
  };
HLO_INDEX_X3_INFO(name_parser, "name")
HLO_INDEX_X3_INFO(opcode_parser, "opcode")
HLO_INDEX_X3_INFO(shape_text_parser, "shape")
HLO_INDEX_X3_INFO(attribute_value_parser, "attribute value")
HLO_INDEX_X3_INFO(literal_parser, "'('")
HLO_INDEX_X3_INFO(nested_call_parser, "operand")
HLO_INDEX_X3_INFO(typed_literal_parser, "typed literal")
HLO_INDEX_X3_INFO(int64_parser, "integer")
HLO_INDEX_X3_INFO(blank_parser, "blank")
#undef HLO_INDEX_X3_INFO
// A parser with a semantic action is described by what it wraps.
template <typename Subject, typename Action>
struct get_info<action<Subject, Action>> {
  using result_type = std::string;
  std::string operator()(action<Subject, Action> const& a) const { return what(a.subject); }
};
template <>
struct get_info<hlo_index::parser::grammar::keyword_parser> {
  using result_type = std::string;
  std::string operator()(hlo_index::parser::grammar::keyword_parser const& k) const {
    return std::string("'") + k.m_word + "'";
  }
};
}  // namespace boost::spirit::x3

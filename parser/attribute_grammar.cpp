// The one instantiation unit of the attribute grammars: the parse_* functions
// of attributes.hpp that need X3.
#include <fmt/format.h>

#include "parser/attribute_grammar_def.hpp"
#include "parser/attributes.hpp"
#include "parser/scanners.hpp"
#include "parser/syntax_error.hpp"

namespace hlo_index::parser {
namespace {

namespace x3 = boost::spirit::x3;

// Parses all of `text` with `rule` into `value`; reports the first problem in `error`.
template <typename Rule, typename Value>
bool parse_all(std::string_view text, const Rule& rule, Value& value, AttributeError* error) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto fail = [&](const char* where, std::string message) {
    if (error) *error = {static_cast<std::size_t>(where - text.data()), std::move(message)};
    return false;
  };
  try {
    if (!x3::phrase_parse(first, last, rule, grammar::blank, value))
      return fail(first, fmt::format("expected {}", x3::what(rule)));
  } catch (const x3::expectation_failure<const char*>& e) {
    return fail(e.where(), grammar::expected_text(e));
  } catch (const SyntaxError& e) {
    return fail(e.where, e.message);
  }
  if (first != last) return fail(first, "unexpected text after the value");
  return true;
}

// The common spellings of integers and integer lists, `5`, `-1` and `{1,0}` (no blanks, no '+',
// at most 18 digits), are read here directly: the checker reads the integer attributes of
// every instruction, and X3 took several times as long. Anything else goes to the grammar,
// which also gives the errors; both read the common spellings alike.
const char* plain_integer(const char* p, const char* end, std::int64_t& value) {
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  const char* digits = p;
  std::int64_t v = 0;
  while (p < end && scan::is_digit(*p) && p - digits < 18) v = v * 10 + (*p++ - '0');
  if (p == digits || (p < end && scan::is_digit(*p))) return nullptr;  // no digits, or too many to be sure of
  value = negative ? -v : v;
  return p;
}

// Appends the values of a plain `{...}` list to `out`; false (and `out` partly filled) if
// `text` is not one.
bool plain_int_list(std::string_view text, std::vector<std::int64_t>& out) {
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  const char* p = text.data() + 1;
  const char* end = text.data() + text.size() - 1;
  if (p == end) return true;
  while (true) {
    std::int64_t value = 0;
    p = plain_integer(p, end, value);
    if (p == nullptr) return false;
    out.push_back(value);
    if (p == end) return true;
    if (*p++ != ',') return false;
  }
}

}  // namespace

std::optional<std::int64_t> parse_int(std::string_view text, AttributeError* error) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  if (!text.empty() && plain_integer(text.data(), end, value) == end) return value;
  if (!parse_all(text, grammar::int64, value, error)) return std::nullopt;
  return value;
}

std::optional<std::vector<std::int64_t>> parse_int_list(std::string_view text, AttributeError* error) {
  std::vector<std::int64_t> value;
  if (!parse_int_list(text, value, error)) return std::nullopt;
  return value;
}

bool parse_int_list(std::string_view text, std::vector<std::int64_t>& out, AttributeError* error) {
  out.clear();
  if (plain_int_list(text, out)) return true;
  out.clear();
  return parse_all(text, grammar::int_list, out, error);
}

std::optional<std::vector<std::vector<std::int64_t>>> parse_int_list_list(std::string_view text,
                                                                          AttributeError* error) {
  std::vector<std::vector<std::int64_t>> value;
  if (!parse_all(text, grammar::int_list_list, value, error)) return std::nullopt;
  return value;
}

std::optional<std::vector<SliceDim>> parse_slice(std::string_view text, AttributeError* error) {
  std::vector<SliceDim> value;
  if (!parse_all(text, grammar::slice, value, error)) return std::nullopt;
  return value;
}

std::optional<std::vector<PaddingDim>> parse_padding(std::string_view text, AttributeError* error) {
  std::vector<PaddingDim> value;
  if (!parse_all(text, grammar::padding, value, error)) return std::nullopt;
  return value;
}

std::optional<std::vector<WindowDim>> parse_window(std::string_view text, AttributeError* error) {
  grammar::WindowFields fields;
  if (!parse_all(text, grammar::window, fields, error)) return std::nullopt;
  std::size_t rank = fields.size.size();
  auto check = [&](std::size_t n, const char* what) {
    if (n == 0 || n == rank) return true;
    if (error) *error = {0, fmt::format("window {} has {} entries but size has {}", what, n, rank)};
    return false;
  };
  if (!fields.has_size && !text.empty() && text != "{}") {
    if (error) *error = {0, "window has no size"};
    return std::nullopt;
  }
  if (!check(fields.stride.size(), "stride") || !check(fields.pad.size(), "pad") ||
      !check(fields.lhs_dilate.size(), "lhs_dilate") || !check(fields.rhs_dilate.size(), "rhs_dilate") ||
      !check(fields.reversal.size(), "rhs_reversal"))
    return std::nullopt;
  std::vector<WindowDim> dims(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    dims[d].size = fields.size[d];
    if (!fields.stride.empty()) dims[d].stride = fields.stride[d];
    if (!fields.pad.empty()) std::tie(dims[d].pad_low, dims[d].pad_high) = fields.pad[d];
    if (!fields.lhs_dilate.empty()) dims[d].base_dilation = fields.lhs_dilate[d];
    if (!fields.rhs_dilate.empty()) dims[d].window_dilation = fields.rhs_dilate[d];
    if (!fields.reversal.empty()) dims[d].reversal = fields.reversal[d] != 0;
  }
  return dims;
}

bool parse_computation_list(std::string_view text, std::vector<std::string_view>& out, AttributeError* error) {
  out.clear();
  return parse_all(text, grammar::computation_list, out, error);
}

std::optional<std::vector<std::string_view>> parse_computation_list(std::string_view text, AttributeError* error) {
  std::vector<std::string_view> value;
  if (!parse_all(text, grammar::computation_list, value, error)) return std::nullopt;
  return value;
}

}  // namespace hlo_index::parser

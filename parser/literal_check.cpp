#include "parser/literal_check.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "parser/scanners.hpp"

namespace hlo_index::parser {
namespace {

bool is_float_type(hlo::ElementType t) {
  using E = hlo::ElementType;
  switch (t) {
    case E::kF16:
    case E::kBF16:
    case E::kF32:
    case E::kF64:
    case E::kF8E5M2:
    case E::kF8E4M3:
    case E::kF8E4M3FN:
    case E::kF8E4M3B11FNUZ:
    case E::kF8E5M2FNUZ:
    case E::kF8E4M3FNUZ:
    case E::kF8E3M4:
    case E::kF8E8M0FNU:
    case E::kF6E2M3FN:
    case E::kF6E3M2FN:
    case E::kF4E2M1FN: return true;
    default: return false;
  }
}

bool is_unsigned_type(hlo::ElementType t) {
  using E = hlo::ElementType;
  return t == E::kU1 || t == E::kU2 || t == E::kU4 || t == E::kU8 || t == E::kU16 || t == E::kU32 || t == E::kU64;
}

bool is_token_char(char c) { return scan::is_name_char(c) || c == '+'; }

// Walks a literal, one shape level at a time, stopping at the first problem.
class LiteralChecker {
public:
  LiteralChecker(const char* p, const char* end) : m_p(p), m_end(end) {}

  std::optional<LiteralProblem> run(const hlo::Shape& shape) {
    if (!value(shape)) return m_problem;
    skip();
    if (m_p != m_end) return LiteralProblem{m_p, "unexpected text after the literal"};
    return std::nullopt;
  }

private:
  void skip() { m_p = scan::skip_blank(m_p, m_end); }
  bool fail(const char* where, std::string message) {
    m_problem = LiteralProblem{where, std::move(message)};
    return false;
  }
  bool expect(char c) {
    skip();
    if (m_p < m_end && *m_p == c) {
      ++m_p;
      return true;
    }
    return fail(m_p, fmt::format("expected '{}' in the literal", c));
  }

  bool value(const hlo::Shape& shape) {
    if (shape.is_tuple) return tuple(shape);
    return array(shape, 0);
  }

  bool tuple(const hlo::Shape& shape) {
    if (!expect('(')) return false;
    for (std::size_t k = 0; k < shape.elements.size(); ++k) {
      if (k && !expect(',')) return false;
      if (!value(shape.elements[k])) return false;
    }
    return expect(')');
  }

  // The part of an array literal for dimensions `dim`.. of `shape`.
  bool array(const hlo::Shape& shape, std::size_t dim) {
    skip();
    if (dim == shape.rank()) return scalar(shape.type);
    // XLA also accepts one scalar for a whole array (`f32[3,3] constant(1)`): a broadcast.
    if (dim == 0 && m_p < m_end && *m_p != '{') return scalar(shape.type);
    const char* open = m_p;
    if (!expect('{')) return false;
    skip();
    if (dim == 0 && m_end - m_p >= 4 && std::string_view(m_p, 4) == "...}") {  // elided by XLA's printer
      m_p += 4;
      return true;
    }
    std::int64_t want = shape.dims[dim];
    std::int64_t count = 0;
    skip();
    if (m_p < m_end && *m_p == '}') {
      ++m_p;
    } else {
      while (true) {
        if (!array(shape, dim + 1)) return false;
        ++count;
        skip();
        if (m_p < m_end && *m_p == ',') {
          ++m_p;
          continue;
        }
        if (!expect('}')) return false;
        break;
      }
    }
    if (shape.dim_kinds[dim] == hlo::DimKind::kStatic ? count != want : count > want && want >= 0)
      return fail(open, fmt::format("the literal has {} element{} in dimension {} but the shape has {}", count,
                                    count == 1 ? "" : "s", dim, want));
    return true;
  }

  bool scalar(hlo::ElementType type) {
    using E = hlo::ElementType;
    skip();
    if (type == E::kC64 || type == E::kC128) {
      if (!expect('(') || !number(E::kF64) || !expect(',') || !number(E::kF64)) return false;
      return expect(')');
    }
    if (type == E::kToken || type == E::kOpaque) return fail(m_p, "a token or opaque value has no literal");
    return number(type);
  }

  // One number (or true/false/inf/nan) of `type`.
  bool number(hlo::ElementType type) {
    skip();
    const char* start = m_p;
    while (m_p < m_end && is_token_char(*m_p)) ++m_p;
    std::string_view token(start, static_cast<std::size_t>(m_p - start));
    if (token.empty()) return fail(start, "expected a number in the literal");
    if (token == "true" || token == "false") {
      if (type == hlo::ElementType::kPred) return true;
      return fail(start, fmt::format("'{}' is not a value of {}", token, hlo::element_type_name(type)));
    }
    std::string_view body = token;
    if (body.front() == '-' || body.front() == '+') body.remove_prefix(1);
    if (is_float_type(type)) {
      if (body == "inf" || body == "nan") return true;
      double d;
      auto format = body.starts_with("0x") ? std::chars_format::hex : std::chars_format::general;
      if (body.starts_with("0x")) body.remove_prefix(2);
      auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), d, format);
      if (end == body.data() + body.size() && ec != std::errc::invalid_argument) return true;
      return fail(start, fmt::format("'{}' is not a value of {}", token, hlo::element_type_name(type)));
    }
    // Integers and pred (0/1): whole decimal numbers within the type's range.
    int bits = type == hlo::ElementType::kPred ? 1 : hlo::element_type_bits(type);
    bool ok = false;
    if (is_unsigned_type(type) || type == hlo::ElementType::kPred) {
      std::uint64_t u;
      auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), u);
      ok = token.front() != '-' && end == body.data() + body.size() && ec == std::errc{} &&
           (bits == 64 || u < (std::uint64_t{1} << bits));
    } else {
      std::int64_t i;
      auto [end, ec] = std::from_chars(token.data() + (token.front() == '+'), token.data() + token.size(), i);
      std::int64_t limit = bits == 64 ? 0 : std::int64_t{1} << (bits - 1);
      ok = end == token.data() + token.size() && ec == std::errc{} && (bits == 64 || (i >= -limit && i < limit));
    }
    if (ok) return true;
    return fail(start, fmt::format("'{}' is not a value of {}", token, hlo::element_type_name(type)));
  }

  const char* m_p;
  const char* m_end;
  std::optional<LiteralProblem> m_problem;
};

}  // namespace

std::optional<LiteralProblem> check_literal(std::string_view literal, const hlo::Shape& shape) {
  return LiteralChecker(literal.data(), literal.data() + literal.size()).run(shape);
}

}  // namespace hlo_index::parser

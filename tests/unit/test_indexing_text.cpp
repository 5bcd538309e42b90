// The text form: XLA's one-line layout, the documents' multi-line layout,
// runtime-variable sections, and diagnostics with a caret for bad input.
#include <catch2/catch.hpp>

#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "indexing/maps/count.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_text_cases {

using namespace hlo_index::indexing;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse_map(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(parsed)";
}

}  // namespace

TEST_CASE("one-line printing matches XLA's strings", "[indexing][text]") {
  for (const char* text : {
           "(d0, d1) -> (d1, d0), domain: d0 in [0, 999], d1 in [0, 999]",
           "(d0, d1) -> (d0 - 1, d1), domain: d0 in [1, 2], d1 in [0, 7]",
           "(d0)[s0, s1] -> (d0 * 4 + s0 + s1 - 42), domain: d0 in [0, 31], s0 in [0, 1], s1 in [0, 3], "
           "d0 * 4 + s0 + s1 in [24, 459]",
           "(d0, d1, d2, d3)[s0, s1, s2] -> (0, d1 + s0 * 2, d2 + s1 * 2, s2), domain: d0 in [0, 0], d1 in [0, 7], "
           "d2 in [0, 1], d3 in [0, 7], s0 in [0, 2], s1 in [0, 4], s2 in [0, 3]",
           "(d0, d1)[range]{rt0, rt1} -> (d1, d0, range + rt0, rt1), domain: d0 in [0, 99], d1 in [0, 43], "
           "range in [-99, 99], rt0 in [0, 2], rt1 in [0, 7]",
           "()[s0] -> (s0), domain: s0 in [0, 9]",
           "(d0) -> ((-d0) mod 2), domain: d0 in [0, 127]",
           "() -> ()",
           "(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 2]",
           "KNOWN EMPTY",
           "UNDEFINED",
       }) {
    CHECK(print_map(parse_map(text)) == text);
  }
}

TEST_CASE("constraints print sorted by their text", "[indexing][text]") {
  IndexingMap m = parse_map(
      "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 99], d0 mod 3 in [0, 0], (d0 - 1) mod 2 in [0, 0], "
      "d0 + s0 in [1, 100]");
  CHECK(print_map(m) ==
        "(d0)[s0] -> (d0), domain: d0 in [0, 99], s0 in [0, 99], (d0 - 1) mod 2 in [0, 0], d0 + s0 in [1, 100], "
        "d0 mod 3 in [0, 0]");
}

TEST_CASE("multi-line layout prints and parses", "[indexing][text]") {
  const char* text =
      "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2)\n"
      "domain:\n"
      "d0 in [5, 9]\n"
      "d1 in [3, 17]\n"
      "d2 in [0, 48]\n"
      "(d1 - 3) mod 7 in [0, 0]\n"
      "d2 mod 2 in [0, 0]";
  IndexingMap m = parse_map(text);
  MapPrintOptions multi;
  multi.layout = MapLayout::kMultiLine;
  CHECK(print_map(m, multi) == text);
  CHECK(print_map(m) ==
        "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], d1 in [3, 17], "
        "d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]");
  multi.indent = "  ";
  CHECK(print_map(parse_map("(d0) -> (d0), domain: d0 in [0, 3]"), multi) ==
        "  (d0) -> (d0)\n  domain:\n  d0 in [0, 3]");
}

TEST_CASE("runtime variables round-trip with their sources", "[indexing][text]") {
  const char* text =
      "(d0, d1){rt0, rt1} -> (d0 + rt0, d1 + rt1), domain: d0 in [0, 1], d1 in [0, 4], rt0 in [0, 8], rt1 in [0, 15]\n"
      "runtime variables:\n"
      "  rt0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]\n"
      "  rt1: constant(3); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]";
  IndexingMap m = parse_map(text);
  REQUIRE(m.runtime_sources().size() == 2);
  CHECK(m.runtime_sources()[1].source == "constant(3)");
  CHECK(print_map(m) == text);
  CHECK(parse_map(print_map(m)) == m);
}

TEST_CASE("the documents' spellings parse", "[indexing][text]") {
  // Implicit products, floorDiv, `/` for floordiv, ceildiv.
  CHECK(print_map(parse_map("(d0, d1) -> (100d0 + 10d1 floorDiv 4), domain: d0 in [0, 9], d1 in [0, 9]")) ==
        "(d0, d1) -> (d0 * 100 + (d1 * 5) floordiv 2), domain: d0 in [0, 9], d1 in [0, 9]");
  CHECK(print_map(parse_map("()[s0, s1] -> ((s0 * 128 + s1) / 192), domain: s0 in [0, 3], s1 in [0, 63]")) ==
        "()[s0, s1] -> ((s0 * 128 + s1) floordiv 192), domain: s0 in [0, 3], s1 in [0, 63]");
  CHECK(print_map(parse_map("(d0) -> (d0 ceildiv 4), domain: d0 in [0, 9]")) ==
        "(d0) -> ((d0 + 3) floordiv 4), domain: d0 in [0, 9]");
  // Unary minus before a term negates the whole product.
  CHECK(print_map(parse_map("(d0) -> (-(d0) floordiv 2), domain: d0 in [0, 9]")) ==
        "(d0) -> (-(d0 floordiv 2)), domain: d0 in [0, 9]");
  CHECK(print_map(parse_map("(d0) -> (d0 * -3), domain: d0 in [0, 9]")) == "(d0) -> (d0 * -3), domain: d0 in [0, 9]");
}

TEST_CASE("malformed maps get a diagnostic with a caret", "[indexing][text]") {
  CHECK(error_of("(d0) -> (d1), domain: d0 in [0, 9]") ==
        "<map>:1:10: error: unknown variable 'd1'\n"
        "(d0) -> (d1), domain: d0 in [0, 9]\n"
        "         ^\n");
  CHECK(error_of("(d0, d1) -> (d0 floordiv d1), domain: d0 in [0, 9], d1 in [0, 9]") ==
        "<map>:1:14: error: `d0 floordiv d1` is not supported: its divisor `d1` ranges over [0, 9] over the "
        "variables' intervals, which is not positive (floordiv by an expression is defined only where the divisor is "
        "positive)\n"
        "(d0, d1) -> (d0 floordiv d1), domain: d0 in [0, 9], d1 in [0, 9]\n"
        "             ^\n");
  CHECK(error_of("(d0) -> (d0 mod 0), domain: d0 in [0, 9]").find("error: modulo by zero") != std::string::npos);
  CHECK(error_of("(d0) (d0), domain: d0 in [0, 9]").find("1:6: error: expected '->'") != std::string::npos);
  CHECK(error_of("(d0, d1) -> (d0), domain: d0 in [0, 9]").find("no interval for variable 'd1'") != std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9], d0 in [0, 3]").find("given twice") != std::string::npos);
  CHECK(error_of("(d0, d0) -> (d0), domain: d0 in [0, 9]").find("declared twice") != std::string::npos);
  CHECK(error_of("(d0, floordiv) -> (d0), domain: d0 in [0, 9], floordiv in [0, 1]")
            .find("1:6: error: 'floordiv' is a keyword of the map syntax and cannot name a variable") !=
        std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9] garbage").find("unknown variable 'garbage'") != std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 99999999999999999999]").find("integer out of range") !=
        std::string::npos);
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9] (approximate) x").find("unexpected text after the map") !=
        std::string::npos);
}

TEST_CASE("approximate maps say so in their text", "[indexing][text]") {
  IndexingMap m = parse_map("(d0) -> (d0), domain: d0 in [0, 9] (approximate)");
  CHECK(m.approximate());
  CHECK(print_map(m) == "(d0) -> (d0), domain: d0 in [0, 9] (approximate)");
  CHECK(m.approximation_reason().empty());
}

TEST_CASE("an approximate map's reason round-trips, parentheses included", "[indexing][text]") {
  const std::string one_line =
      "(d0)[s0] -> (s0), domain: d0 in [0, 9], s0 in [0, 9] (approximate: whole arrays (every element) reached)";
  IndexingMap m = parse_map(one_line);
  CHECK(m.approximate());
  CHECK(m.approximation_reason() == "whole arrays (every element) reached");
  CHECK(print_map(m) == one_line);
  MapPrintOptions multi;
  multi.layout = MapLayout::kMultiLine;
  const std::string text = print_map(m, multi);
  CHECK(text.find("\n(approximate: whole arrays (every element) reached)") != std::string::npos);
  CHECK(print_map(parse_map(text)) == one_line);
  // The first reason given stays: it names the step that lost exactness.
  m.mark_approximate("a later step");
  CHECK(m.approximation_reason() == "whole arrays (every element) reached");
  // A reason with unbalanced parentheses is stored with brackets, so its text reads back.
  IndexingMap unbalanced = parse_map("(d0) -> (d0), domain: d0 in [0, 9]");
  unbalanced.mark_approximate("expected ')' here");
  CHECK(unbalanced.approximation_reason() == "expected ']' here");
  CHECK(parse_map(print_map(unbalanced)).approximation_reason() == "expected ']' here");
  // A derived map keeps the reason; an exact one gets none.
  IndexingMap derived = parse_map("(d0) -> (d0 * 2), domain: d0 in [0, 9]");
  derived.inherit_approximation(m);
  CHECK(derived.approximation_reason() == m.approximation_reason());
  IndexingMap exact = parse_map("(d0) -> (d0), domain: d0 in [0, 9]");
  exact.inherit_approximation(parse_map("(d0) -> (d0), domain: d0 in [0, 9]"));
  CHECK_FALSE(exact.approximate());
  // An unclosed reason is an error, not a map that swallows the rest of the text.
  CHECK(error_of("(d0) -> (d0), domain: d0 in [0, 9] (approximate: never closed").find("expected ')'") !=
        std::string::npos);
}

TEST_CASE("products of variables and divisions by variables are read and print back", "[indexing][text]") {
  // XLA's parser accepts these; they are kept as non-affine terms.
  for (const char* text : {
           "(d0)[s0, s1] -> (d0 + s1), domain: d0 in [0, 3], s0 in [0, 3], s1 in [0, 7], s0 * s1 in [0, 20]",
           "(d0)[s0]{rt0} -> (d0 + s0 * rt0), domain: d0 in [0, 3], s0 in [0, 3], rt0 in [0, 4]",
           "(d0)[s0, s1] -> (d0 floordiv s1), domain: d0 in [0, 3], s0 in [0, 3], s1 in [1, 4]",
           "(d0)[s0] -> ((d0 + 1) mod (s0 + 1) + d0), domain: d0 in [0, 3], s0 in [0, 4]",
           "(d0)[s0] -> (d0 ceildiv s0, -(d0 * s0), (d0 * s0) * 3), domain: d0 in [0, 3], s0 in [1, 4]",
           "(th_x, gpu){r0} -> (th_x * r0 + gpu mod r0), domain: th_x in [0, 3], gpu in [0, 7], r0 in [1, 4]",
       }) {
    INFO(text);
    IndexingMap m = parse_map(text);
    CHECK(print_map(m) == text);
    CHECK(parse_map(print_map(m)) == m);
  }
  // Spellings that fold to the canonical form.
  CHECK(print_map(parse_map("(d0)[s0] -> (s0 * d0, 2 * d0 * s0, d0 / s0), domain: d0 in [0, 3], s0 in [1, 4]")) ==
        "(d0)[s0] -> (d0 * s0, (d0 * s0) * 2, d0 floordiv s0), domain: d0 in [0, 3], s0 in [1, 4]");
  // A factor that folds to a constant keeps the product quasi-affine.
  CHECK(print_map(parse_map("(d0, d1) -> ((d1 - d1 + 3) * d0, d1 mod (5 - 3)), domain: d0 in [0, 3], d1 in [0, 4]")) ==
        "(d0, d1) -> (d0 * 3, d1 mod 2), domain: d0 in [0, 3], d1 in [0, 4]");
}

TEST_CASE("a division by an expression whose range is not positive is refused", "[indexing][text]") {
  // Undefined where the divisor is 0 (and XLA's forms assume a positive
  // divisor): the term is named, the caret at its start.
  CHECK(error_of("(d0)[s0] -> (d0 / s0), domain: d0 in [0, 3], s0 in [0, 4]")
            .find("<map>:1:14: error: `d0 / s0` is not supported: its divisor `s0` ranges over [0, 4]") == 0);
  CHECK(error_of("(d0)[s0] -> (d0 + (d0 + 1) mod (s0 - 2)), domain: d0 in [0, 3], s0 in [1, 4]")
            .find("<map>:1:19: error: `(d0 + 1) mod (s0 - 2)` is not supported: its divisor `(s0 - 2)` ranges over "
                  "[-1, 2] over the variables' intervals, which is not positive (mod by an expression") == 0);
  CHECK(error_of("(d0){r0} -> (d0), domain: d0 in [0, 3], r0 in [-3, -1], d0 ceildiv r0 in [0, 0]")
            .find("<map>:1:57: error: `d0 ceildiv r0` is not supported: its divisor `r0` ranges over [-3, -1]") == 0);
  // The variables' intervals decide, not constraints (every point of their
  // box is evaluated when counting).
  CHECK(error_of("(d0)[s0] -> (d0 floordiv (s0 + 1)), domain: d0 in [0, 3], s0 in [-1, 4], s0 + 1 in [1, 5]")
            .find("its divisor `(s0 + 1)` ranges over [0, 5] over the variables' intervals") != std::string::npos);
  CHECK(error_of("(d0)[s0] -> (d0 floordiv (s0 + 1)), domain: d0 in [0, 3], s0 in [0, 4]") == "(parsed)");
  CHECK(error_of("(d0)[s0] -> (d0 floordiv (s0 - s0)), domain: d0 in [0, 3], s0 in [0, 4]").find("division by zero") !=
        std::string::npos);
}

TEST_CASE("written variable names and r0 runtime variables round-trip", "[indexing][text]") {
  for (const char* text : {
           "(th_x, bl_x)[chunk_id]{gpu} -> (bl_x * 4 + th_x + chunk_id + gpu), domain: th_x in [0, 3], "
           "bl_x in [0, 2], chunk_id in [0, 1], gpu in [0, 1]",
           "(d0){r0} -> (d0 + r0), domain: d0 in [0, 3], r0 in [0, 4]",
           "(d0, d1){r0, r1} -> (d0 + r0, d1 + r1), domain: d0 in [0, 1], d1 in [0, 4], r0 in [0, 8], r1 in [0, 15]\n"
           "runtime variables:\n"
           "  r0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]\n"
           "  r1: constant(3); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]",
           "(x.y, _z) -> (x.y + _z), domain: x.y in [0, 3], _z in [0, 5], x.y + _z in [1, 7]",
       }) {
    CHECK(print_map(parse_map(text)) == text);
  }
}

TEST_CASE("written names survive simplification without clashing with default names", "[indexing][text]") {
  IndexingMap m = parse_map("(s0)[x, s1] -> (s0 + s1), domain: s0 in [0, 3], x in [0, 2], s1 in [0, 2]");
  simplify(m, SimplifyPolicy::kExact);
  CHECK(print_map(m) == "(s0)[s1] -> (s0 + s1), domain: s0 in [0, 3], s1 in [0, 2]");
  // Names that would print twice: every variable prints its default name.
  IndexingMap clash = parse_map("(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]");
  clash.domain().variables(VarKind::kDim)[0].name = "s0";
  CHECK(print_map(clash) == "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 3], s0 in [0, 1]");
}

namespace {

// A direct evaluator of the text of an expression (+, -, *, floordiv,
// ceildiv, mod, parentheses, integers and variable names), independent of the map parser,
// for the brute-force check below. Unary minus before a term negates the
// whole product, as the map parser documents.
class TextEvaluator {
public:
  TextEvaluator(std::string_view text, const std::map<std::string, std::int64_t>& values)
      : m_text(text), m_values(values) {}
  std::int64_t value() {
    std::int64_t v = sum();
    skip();
    REQUIRE(m_pos == m_text.size());
    return v;
  }

private:
  void skip() {
    while (m_pos < m_text.size() && m_text[m_pos] == ' ') ++m_pos;
  }
  bool accept(std::string_view token) {
    skip();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    m_pos += token.size();
    return true;
  }
  std::int64_t sum() {
    std::int64_t v = term();
    for (;;) {
      if (accept("+")) {
        v += term();
      } else if (accept("-")) {
        v -= term();
      } else {
        return v;
      }
    }
  }
  std::int64_t term() { return accept("-") ? -term() : product(); }
  std::int64_t product() {
    std::int64_t v = atom();
    for (;;) {
      if (accept("*")) {
        v *= atom();
      } else if (accept("floordiv")) {
        std::int64_t d = atom();
        v = v >= 0 ? v / d : -((-v + d - 1) / d);
      } else if (accept("ceildiv")) {
        std::int64_t d = atom();
        v = v > 0 ? (v + d - 1) / d : -((-v) / d);
      } else if (accept("mod")) {
        std::int64_t d = atom();
        v = ((v % d) + d) % d;
      } else {
        return v;
      }
    }
  }
  std::int64_t atom() {
    skip();
    if (accept("(")) {
      std::int64_t v = sum();
      REQUIRE(accept(")"));
      return v;
    }
    std::size_t start = m_pos;
    if (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
      return std::stoll(std::string(m_text.substr(start, m_pos - start)));
    }
    while (m_pos < m_text.size() &&
           (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_' || m_text[m_pos] == '.')) {
      ++m_pos;
    }
    auto it = m_values.find(std::string(m_text.substr(start, m_pos - start)));
    REQUIRE(it != m_values.end());
    return it->second;
  }

  std::string_view m_text;
  const std::map<std::string, std::int64_t>& m_values;
  std::size_t m_pos = 0;
};

struct NamedVariable {
  std::string name;
  VarKind kind;
  std::int64_t lo, hi;
};

struct TextMap {
  std::vector<NamedVariable> variables;  // dimensions, then symbols, then runtime variables
  std::vector<std::string> results;
  std::vector<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>> constraints;

  std::string text() const {
    std::string out, domain;
    const char* open = "([{";
    const char* close = ")]}";
    for (int k = 0; k < 3; ++k) {
      std::string names;
      for (const NamedVariable& v : variables) {
        if (static_cast<int>(v.kind) != k) continue;
        names += (names.empty() ? "" : ", ") + v.name;
      }
      if (k == 0 || !names.empty()) out += open[k] + names + close[k];
    }
    out += " -> (";
    for (std::size_t i = 0; i < results.size(); ++i) out += (i > 0 ? ", " : "") + results[i];
    out += "), domain: ";
    for (const NamedVariable& v : variables) {
      domain +=
          (domain.empty() ? "" : ", ") + v.name + " in [" + std::to_string(v.lo) + ", " + std::to_string(v.hi) + "]";
    }
    for (const auto& [e, interval] : constraints) {
      domain += ", " + e + " in [" + std::to_string(interval.first) + ", " + std::to_string(interval.second) + "]";
    }
    return out + domain;
  }
};

using Tuple = std::vector<std::int64_t>;

// Calls fn with each point of the box of `bounds`.
void for_each_box_point(const std::vector<std::pair<std::int64_t, std::int64_t>>& bounds,
                        const std::function<void(const Tuple&)>& fn) {
  Tuple p;
  for (const auto& b : bounds) p.push_back(b.first);
  for (;;) {
    fn(p);
    std::size_t i = 0;
    while (i < p.size() && p[i] == bounds[i].second) {
      p[i] = bounds[i].first;
      ++i;
    }
    if (i == p.size()) return;
    ++p[i];
  }
}

// (dimensions..., runtime variables..., results...) of every point of the
// text's domain, evaluated from the text (symbols are existential).
std::set<Tuple> text_relation(const TextMap& t) {
  std::set<Tuple> out;
  std::vector<std::pair<std::int64_t, std::int64_t>> bounds;
  bounds.reserve(t.variables.size());
  for (const NamedVariable& v : t.variables) bounds.emplace_back(v.lo, v.hi);
  for_each_box_point(bounds, [&](const Tuple& p) {
    std::map<std::string, std::int64_t> values;
    for (std::size_t i = 0; i < p.size(); ++i) values[t.variables[i].name] = p[i];
    for (const auto& [e, interval] : t.constraints) {
      std::int64_t v = TextEvaluator(e, values).value();
      if (v < interval.first || v > interval.second) return;
    }
    Tuple tuple;
    for (VarKind kind : {VarKind::kDim, VarKind::kRuntime}) {
      for (std::size_t i = 0; i < p.size(); ++i) {
        if (t.variables[i].kind == kind) tuple.push_back(p[i]);
      }
    }
    for (const std::string& r : t.results) tuple.push_back(TextEvaluator(r, values).value());
    out.insert(tuple);
  });
  return out;
}

// The same tuples from a parsed (and possibly simplified) map.
std::set<Tuple> map_relation(const IndexingMap& m) {
  std::set<Tuple> out;
  const Domain& d = m.domain();
  std::vector<Var> vars = d.all_variables();
  std::vector<std::pair<std::int64_t, std::int64_t>> bounds;
  bounds.reserve(vars.size());
  for (Var v : vars) bounds.emplace_back(d.bounds(v).lo, d.bounds(v).hi);
  for_each_box_point(bounds, [&](const Tuple& p) {
    Tuple split[3];
    for (std::size_t i = 0; i < p.size(); ++i) split[static_cast<int>(vars[i].kind)].push_back(p[i]);
    hlo_index::simplify::VarValues values{split[0], split[1], split[2]};
    for (const Constraint& c : d.constraints()) {
      std::int64_t v = hlo_index::simplify::evaluate(c.expr, values);
      if (v < c.interval.lo || v > c.interval.hi) return;
    }
    Tuple tuple = split[0];
    tuple.insert(tuple.end(), split[2].begin(), split[2].end());
    for (const auto& r : m.results()) tuple.push_back(hlo_index::simplify::evaluate(r, values));
    out.insert(tuple);
  });
  return out;
}

}  // namespace

TEST_CASE("maps with written names have the points of their text", "[indexing][text][bruteforce]") {
  const std::vector<TextMap> maps = {
      {{{"th_x", VarKind::kDim, 0, 5},
        {"bl_x", VarKind::kDim, 0, 2},
        {"chunk_id", VarKind::kRange, 0, 2},
        {"gpu", VarKind::kRuntime, 0, 1}},
       {"bl_x * 4 + th_x + chunk_id * 8 + gpu", "th_x mod 2", "(th_x + bl_x) floordiv 3"},
       {{"th_x + chunk_id", {0, 4}}}},
      {{{"d0", VarKind::kDim, 0, 4}, {"d1", VarKind::kDim, 0, 3}, {"r0", VarKind::kRuntime, 0, 2}},
       {"d0 + r0", "d1 floordiv 2"},
       {{"(d0 + d1) mod 3", {0, 1}}}},
      {{{"s0", VarKind::kDim, 0, 3}, {"x", VarKind::kRange, 0, 2}, {"s1", VarKind::kRange, 0, 2}},
       {"s0 + s1 * 3", "-(s0 - 1) floordiv 2"},
       {}},
      {{{"a", VarKind::kDim, 0, 3}, {"b", VarKind::kDim, 0, 4}},
       {"(b - b + 3) * a", "b * (2 - 1) mod 3", "a - b"},
       {{"a * 2 - b", {-1, 3}}}},
  };
  for (const TextMap& t : maps) {
    const std::string text = t.text();
    INFO(text);
    IndexingMap parsed = parse_map(text);
    const std::set<Tuple> expected = text_relation(t);
    CHECK(map_relation(parsed) == expected);
    IndexingMap simplified = parsed;
    simplify(simplified, SimplifyPolicy::kExact);
    REQUIRE(simplified.dim_count() == parsed.dim_count());
    REQUIRE(simplified.runtime_count() == parsed.runtime_count());
    CHECK(map_relation(simplified) == expected);
    // The names written for the variables that remain are printed back.
    std::string printed = print_map(simplified);
    for (const NamedVariable& v : t.variables) {
      if (v.kind != VarKind::kRange) CHECK(printed.find(v.name + " in [") != std::string::npos);
    }
    CHECK(parse_map(printed) == simplified);
  }
}

TEST_CASE("maps with products and divisions by variables have the points of their text",
          "[indexing][text][bruteforce]") {
  const std::vector<TextMap> maps = {
      {{{"d0", VarKind::kDim, 0, 4}, {"s0", VarKind::kRange, 0, 3}, {"s1", VarKind::kRange, 1, 3}},
       {"d0 * s0", "d0 floordiv s1 + s0", "(d0 + s0) mod s1"},
       {{"s0 * s1", {0, 6}}}},
      {{{"d0", VarKind::kDim, 0, 5}, {"d1", VarKind::kDim, 0, 3}, {"r0", VarKind::kRuntime, 1, 3}},
       {"d0 ceildiv r0", "d1 * r0 - d0", "(d0 * d1) floordiv (r0 + 1)"},
       {{"(d0 + d1) mod r0", {0, 0}}}},
      {{{"x", VarKind::kDim, 0, 3}, {"y", VarKind::kDim, 0, 3}},
       {"(x + 1) * (y - 2) + y", "-(x * y) floordiv 3", "(x mod 2) * (y + y - y)"},
       {{"x * y - x", {0, 5}}}},
      {{{"d0", VarKind::kDim, 0, 6}, {"s0", VarKind::kRange, 1, 2}}, {"d0 * s0 mod (d0 + 1)", "s0 * s0"}, {}},
  };
  for (const TextMap& t : maps) {
    const std::string text = t.text();
    INFO(text);
    IndexingMap parsed = parse_map(text);
    const std::set<Tuple> expected = text_relation(t);
    CHECK(map_relation(parsed) == expected);
    CHECK(parse_map(print_map(parsed)) == parsed);
    IndexingMap simplified = parsed;
    simplify(simplified, SimplifyPolicy::kExact);
    CHECK(!simplified.approximate());
    CHECK(map_relation(simplified) == expected);
    CHECK(parse_map(print_map(simplified)) == simplified);

    // Counts are exact on these small domains.
    std::set<Tuple> image;
    const std::size_t n_inputs = parsed.dim_count() + parsed.runtime_count();
    for (const Tuple& p : expected) image.insert(Tuple(p.begin() + static_cast<std::ptrdiff_t>(n_inputs), p.end()));
    const Count image_count = count_image(parsed), relation_count = count_relation(parsed);
    CHECK(image_count.exact);
    CHECK(image_count.value == static_cast<std::int64_t>(image.size()));
    CHECK(relation_count.exact);
    CHECK(relation_count.value == static_cast<std::int64_t>(expected.size()));
    CHECK(are_equal(parsed, simplified) == std::optional<bool>(true));

    // The inverse (isl cannot represent the terms) is a superset, marked
    // approximate: every (result, input) pair of the text is in it.
    if (parsed.runtime_count() == 0) {
      std::set<Tuple> inverse_pairs;
      bool approximate = false;
      for (const IndexingMap& piece : inverse(parsed)) {
        approximate = approximate || piece.approximate();
        if (!piece.is_defined()) continue;
        for (const Tuple& p : map_relation(piece)) inverse_pairs.insert(p);
      }
      CHECK(approximate);
      for (const Tuple& p : expected) {
        Tuple swapped(p.begin() + static_cast<std::ptrdiff_t>(n_inputs), p.end());
        swapped.insert(swapped.end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(n_inputs));
        CHECK(inverse_pairs.count(swapped) == 1);
      }
    }
  }
}

TEST_CASE("counts of large non-affine maps are sound upper bounds", "[indexing][text][bruteforce]") {
  // 1101 * 1000 points: more than the enumeration limit.
  const TextMap t{{{"d0", VarKind::kDim, 0, 1100}, {"s0", VarKind::kRange, 0, 999}}, {"d0 * s0 floordiv (s0 + 1)"}, {}};
  IndexingMap parsed = parse_map(t.text());
  const std::set<Tuple> relation = text_relation(t);
  std::set<Tuple> image;
  for (const Tuple& p : relation) image.insert({p[1]});
  const Count image_count = count_image(parsed), relation_count = count_relation(parsed);
  CHECK(!image_count.exact);
  CHECK(image_count.value >= static_cast<std::int64_t>(image.size()));
  CHECK(!relation_count.exact);
  CHECK(relation_count.value >= static_cast<std::int64_t>(relation.size()));
}

}  // namespace test_indexing_text_cases

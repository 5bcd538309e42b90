// Recursive-descent parser of the map text form. Unary minus in front of a
// term negates the whole product (`-(x) floordiv 11` is -((x) floordiv 11),
// as the seed document's simplifier example reads); in front of a factor
// (`d0 * -3`) it negates the factor. `floordiv`, `ceildiv` and `mod` are
// case-insensitive, `/` is floordiv (XLA's newer spelling), and `100d0`
// is 100 * d0. After the map (and its runtime variables) a `replica id:`
// section holds a map with the same variables and domain; a runtime
// source's map may carry one on its line (`...; replica id: <map>`).
#include <cctype>
#include <map>
#include <stdexcept>

#include "indexing/maps/map_parser.hpp"
#include "simplify/expr_print.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

struct ParseError {
  std::size_t offset;
  std::string message;
};

// Parentheses and unary minus recurse, and chains of floordiv, ceildiv and mod
// build expressions as deep as they are long, which simplification and printing
// walk recursively; past this depth the map is refused with a diagnostic rather
// than left to overflow the stack (printed maps nest a few levels).
constexpr int k_max_expression_depth = 200;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

// Words the grammar gives a meaning (in any case): a variable named so
// would print maps that read back differently (`d0 floordiv ...`).
bool is_keyword(std::string_view name) {
  for (std::string_view word : {"in", "mod", "floordiv", "ceildiv", "domain"}) {
    if (iequals(name, word)) return true;
  }
  return false;
}

class MapParser {
public:
  explicit MapParser(std::string_view text) : m_text(text) {}

  IndexingMap parse_whole() {
    IndexingMap map = parse_one(/*nested=*/false);
    skip_space();
    if (m_pos != m_text.size()) fail("unexpected text after the map");
    return map;
  }

private:
  [[noreturn]] void fail(std::string message) { throw ParseError{m_pos, std::move(message)}; }
  [[noreturn]] void fail_at(std::size_t offset, std::string message) { throw ParseError{offset, std::move(message)}; }

  void skip_space() {
    while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
  }
  bool at_end() {
    skip_space();
    return m_pos >= m_text.size();
  }
  char peek() {
    skip_space();
    return m_pos < m_text.size() ? m_text[m_pos] : '\0';
  }
  bool accept(std::string_view token) {
    skip_space();
    if (m_text.substr(m_pos, token.size()) != token) return false;
    m_pos += token.size();
    return true;
  }
  void expect(std::string_view token, const char* what) {
    if (!accept(token)) fail(std::string("expected ") + what);
  }
  // Identifier at the cursor without consuming it.
  std::string_view peek_identifier() {
    skip_space();
    std::size_t end = m_pos;
    if (end < m_text.size() && ident_start(m_text[end])) {
      while (end < m_text.size() && ident_char(m_text[end])) ++end;
    }
    return m_text.substr(m_pos, end - m_pos);
  }
  bool accept_keyword(std::string_view word) {
    std::string_view id = peek_identifier();
    if (!iequals(id, word)) return false;
    m_pos += id.size();
    return true;
  }
  std::string_view identifier(const char* what) {
    std::string_view id = peek_identifier();
    if (id.empty()) fail(std::string("expected ") + what);
    m_pos += id.size();
    return id;
  }
  std::int64_t integer() {
    skip_space();
    std::size_t start = m_pos;
    bool negative = false;
    if (m_pos < m_text.size() && m_text[m_pos] == '-') {
      negative = true;
      ++m_pos;
    }
    if (m_pos >= m_text.size() || !std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      m_pos = start;
      fail("expected an integer");
    }
    std::uint64_t magnitude = 0;
    while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
      std::uint64_t digit = static_cast<std::uint64_t>(m_text[m_pos] - '0');
      if (magnitude > (UINT64_C(9223372036854775808) - digit) / 10) fail_at(start, "integer out of range");
      magnitude = magnitude * 10 + digit;
      ++m_pos;
    }
    if (!negative && magnitude > static_cast<std::uint64_t>(INT64_MAX)) fail_at(start, "integer out of range");
    return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  }

  // ----- header
  void name_list(VarKind kind, char close, std::vector<Variable>& vars) {
    if (accept(std::string_view(&close, 1))) return;
    do {
      std::size_t at = (skip_space(), m_pos);
      std::string name(identifier("a variable name"));
      if (is_keyword(name)) fail_at(at, "'" + name + "' is a keyword of the map syntax and cannot name a variable");
      if (m_names.count(name) != 0) fail_at(at, "variable '" + name + "' is declared twice");
      Var v{kind, static_cast<std::uint32_t>(vars.size())};
      m_names[name] = v;
      std::string fallback;
      simplify::default_var_name(v, fallback);
      vars.push_back({Interval{1, 0}, name == fallback ? std::string() : name});
      m_bound_set.push_back(false);
      m_flat.push_back(v);
    } while (accept(","));
    expect(std::string_view(&close, 1), close == ')' ? "',' or ')'" : close == ']' ? "',' or ']'" : "',' or '}'");
  }

  // A map that names one variable its own way (`(th_x, bl_x)[chunk_id]`,
  // `{r0}`) keeps every name as written: a variable left to its default
  // name could otherwise, once simplification drops or renumbers
  // variables, print as a name another variable was given (`(s0)[x, s1]`
  // without x would print `(s0)[s0]`).
  void keep_written_names(std::vector<Variable> (&vars)[3]) {
    bool custom = false;
    for (const auto& kind_vars : vars) {
      for (const Variable& v : kind_vars) custom = custom || !v.name.empty();
    }
    if (!custom) return;
    for (const auto& [name, var] : m_names) vars[static_cast<int>(var.kind)][var.index].name = name;
  }

  // ----- expressions
  Expr expr() {
    Expr e = term();
    for (;;) {
      if (accept("+")) {
        e = guarded([&] { return e + term(); });
      } else if (peek() == '-' && !arrow_ahead()) {
        ++m_pos;
        e = guarded([&] { return e - term(); });
      } else {
        return e;
      }
    }
  }
  bool arrow_ahead() { return m_text.substr(m_pos, 2) == "->"; }

  void enter_level() {
    if (++m_depth > k_max_expression_depth)
      fail("expression nested deeper than " + std::to_string(k_max_expression_depth) + " levels");
  }
  // One level of recursion, refused past k_max_expression_depth.
  class Nesting {
  public:
    explicit Nesting(MapParser& parser) : m_parser(parser) { m_parser.enter_level(); }
    ~Nesting() { --m_parser.m_depth; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

  private:
    MapParser& m_parser;
  };

  Expr term() {
    if (peek() == '-' && !arrow_ahead()) {
      ++m_pos;
      const Nesting nesting(*this);
      Expr t = term();
      return guarded([&] { return -t; });
    }
    return product();
  }

  Expr product() {
    const std::size_t start = (skip_space(), m_pos);
    const int depth_at_start = m_depth;
    Expr e = factor();
    for (;;) {
      std::size_t at = (skip_space(), m_pos);
      Expr (*op)(const Expr&, const Expr&) = nullptr;
      const char* what = nullptr;
      if (accept("*")) {
        op = [](const Expr& a, const Expr& b) { return a * b; };
      } else if (accept("/") || accept_keyword("floordiv")) {
        op = [](const Expr& a, const Expr& b) { return floor_div(a, b); };
        what = "floordiv";
      } else if (accept_keyword("ceildiv")) {
        op = [](const Expr& a, const Expr& b) { return ceil_div(a, b); };
        what = "ceildiv";
      } else if (accept_keyword("mod")) {
        op = [](const Expr& a, const Expr& b) { return mod(a, b); };
        what = "mod";
      } else {
        m_depth = depth_at_start;
        return e;
      }
      // Each floordiv, ceildiv or mod of a chain nests the expression one level deeper
      // (sums and constant factors stay flat), as parentheses do.
      if (what != nullptr) enter_level();
      const std::size_t divisor_at = (skip_space(), m_pos);
      Expr f = factor();
      // A division by a non-constant is checked once the domain gives its range.
      if (what != nullptr && !f.is_constant()) m_divisions.push_back({start, divisor_at, m_pos, f, what});
      e = guarded_at(at, [&] { return op(e, f); });
    }
  }

  // XLA's parser reads any affine expression of MLIR, so it accepts
  // products of variables and divisions by variables; they are kept as
  // non-affine nodes. A floordiv, ceildiv or mod by an expression is
  // defined (XLA and MLIR) only where the divisor is positive, so one whose
  // range over the domain is not positive is refused, naming the term with
  // the caret at its start.
  struct PendingDivision {
    std::size_t start;       // the term
    std::size_t divisor_at;  // the divisor
    std::size_t end;
    Expr divisor;
    const char* what;
  };
  std::string term_text(std::size_t start, std::size_t end) {
    std::string_view text = m_text.substr(start, end - start);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return std::string(text);
  }
  // Over the variables' intervals only, not the constraints: counting and
  // equality evaluate expressions at every point of that box.
  void check_divisions(std::size_t first, const Domain& domain) {
    const simplify::RangeEvaluator ranges(domain, /*use_constraints=*/false);
    for (std::size_t i = first; i < m_divisions.size(); ++i) {
      const PendingDivision& d = m_divisions[i];
      Interval r = ranges(d.divisor);
      if (r.lo > 0) continue;
      fail_at(d.start, "`" + term_text(d.start, d.end) + "` is not supported: its divisor `" +
                           term_text(d.divisor_at, d.end) + "` ranges over " + simplify::to_string(r) +
                           " over the variables' intervals, which is not positive (" + d.what +
                           " by an expression is defined only where the divisor is positive)");
    }
    m_divisions.resize(first);
  }

  // Maps are simplified and counted in int64: a map whose values may leave
  // that range over its variables' intervals is refused, not answered wrongly.
  void check_int64_range(const Domain& domain, const std::vector<Expr>& results, const std::vector<std::size_t>& at,
                         const std::vector<Constraint>& constraints, std::size_t domain_at) {
    const simplify::VarNamer namer = [this](Var v, std::string& out) { out += name_of(v); };
    auto check = [&](const Expr& e, std::size_t offset) {
      if (auto what = simplify::int64_overflow(e, domain, namer)) {
        fail_at(offset, "values past the 64-bit range are not supported: " + *what + " over the variables' intervals");
      }
    };
    for (std::size_t i = 0; i < results.size(); ++i) check(results[i], at[i]);
    for (const Constraint& c : constraints) check(c.expr, domain_at);
  }

  Expr factor() {
    char c = peek();
    if (c == '(') {
      ++m_pos;
      const Nesting nesting(*this);
      Expr e = expr();
      expect(")", "')'");
      return e;
    }
    if (c == '-') {
      ++m_pos;
      const Nesting nesting(*this);
      Expr f = factor();
      return guarded([&] { return -f; });
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      std::int64_t v = integer();
      // `100d0`: a coefficient written against its variable.
      if (m_pos < m_text.size() && ident_start(m_text[m_pos])) {
        Expr var = variable();
        return guarded([&] { return var * v; });
      }
      return Expr::constant(v);
    }
    if (ident_start(c)) return variable();
    fail("expected an expression");
  }

  Expr variable() {
    std::size_t at = (skip_space(), m_pos);
    std::string name(identifier("a variable"));
    auto it = m_names.find(name);
    if (it == m_names.end()) fail_at(at, "unknown variable '" + name + "'");
    return Expr::variable(it->second);
  }

  template <typename F>
  Expr guarded(F&& f) {
    return guarded_at(m_pos, std::forward<F>(f));
  }
  template <typename F>
  Expr guarded_at(std::size_t at, F&& f) {
    try {
      return f();
    } catch (const simplify::NotQuasiAffine& e) {
      fail_at(at, e.what());
    } catch (const simplify::ArithmeticOverflow& e) {
      fail_at(at, e.what());
    }
  }

  // ----- domain
  // An item starts a new runtime-variable entry (`rt0:`) rather than a
  // constraint.
  bool at_runtime_entry() {
    std::size_t save = m_pos;
    std::string_view id = peek_identifier();
    bool entry = false;
    if (!id.empty()) {
      m_pos += id.size();
      entry = accept(":");
    }
    m_pos = save;
    return entry;
  }
  bool at_section_end() {
    if (at_end()) return true;
    if (peek() == ';') return true;  // a runtime source's replica id follows
    if (peek() == '(' && (m_text.substr(m_pos, 13) == "(approximate)" || m_text.substr(m_pos, 13) == "(approximate:"))
      return true;
    std::size_t save = m_pos;
    bool runtime = accept_keyword("runtime") && accept_keyword("variables");
    m_pos = save;
    return runtime || at_replica_id() || at_runtime_entry();
  }
  // `replica id:` starts here.
  bool at_replica_id() {
    std::size_t save = m_pos;
    bool replica = accept_keyword("replica") && accept_keyword("id") && accept(":");
    m_pos = save;
    return replica;
  }
  // Parses `replica id: <map>` (the cursor at `replica`) into map's replica
  // id; the map must have map's variables and domain. Leaves the variable
  // names of `map` in scope.
  void replica_id(IndexingMap& map) {
    std::size_t at = (skip_space(), m_pos);
    if (!(accept_keyword("replica") && accept_keyword("id"))) fail("expected 'replica id:'");
    expect(":", "':'");
    auto names = m_names;
    auto bound_set = m_bound_set;
    auto flat = m_flat;
    std::size_t map_at = (skip_space(), m_pos);
    IndexingMap replica = parse_one(/*nested=*/true);
    m_names = std::move(names);
    m_bound_set = std::move(bound_set);
    m_flat = std::move(flat);
    if (!map.is_defined()) fail_at(at, "only a defined map can have a replica id");
    if (!replica.is_defined()) fail_at(map_at, "the replica id must be a defined map");
    if (replica.runtime_count() != map.runtime_count() || !(replica.domain() == map.domain())) {
      fail_at(map_at, "the replica-id map must have the variables and domain of the map");
    }
    if (replica.results().empty()) fail_at(map_at, "the replica-id map needs a result");
    map.replica_id() = replica.results();
  }

  void domain_items(std::vector<Variable> (&vars)[3], std::vector<Constraint>& constraints) {
    bool first = true;
    while (!at_section_end()) {
      if (!first) accept(",");
      if (at_section_end()) break;
      first = false;
      std::size_t at = (skip_space(), m_pos);
      Expr e = expr();
      if (!accept_keyword("in")) fail("expected 'in'");
      expect("[", "'['");
      std::int64_t lo = integer();
      expect(",", "','");
      std::int64_t hi = integer();
      expect("]", "']'");
      if (e.is_variable() && is_plain_variable(at)) {
        Var v = e.variable();
        std::size_t flat = flat_index(v);
        if (m_bound_set[flat]) fail_at(at, "the interval of '" + name_of(v) + "' is given twice");
        m_bound_set[flat] = true;
        vars[static_cast<int>(v.kind)][v.index].bounds = {lo, hi};
      } else {
        constraints.push_back({e, {lo, hi}});
      }
    }
  }
  // `d0 in [...]` as written, not an expression that folds to a variable.
  bool is_plain_variable(std::size_t at) {
    std::string_view text = m_text.substr(at, m_pos - at);
    std::size_t end = 0;
    while (end < text.size() && ident_char(text[end])) ++end;
    std::size_t rest = end;
    while (rest < text.size() && std::isspace(static_cast<unsigned char>(text[rest]))) ++rest;
    return end > 0 && iequals(text.substr(rest, 2), "in");
  }
  std::size_t flat_index(Var v) {
    for (std::size_t i = 0; i < m_flat.size(); ++i) {
      if (m_flat[i] == v) return i;
    }
    return 0;
  }
  std::string name_of(Var v) {
    for (const auto& [name, var] : m_names) {
      if (var == v) return name;
    }
    return "?";
  }

  IndexingMap parse_one(bool nested) {
    skip_space();
    std::size_t start = m_pos;
    if (accept_keyword("UNDEFINED")) return IndexingMap::undefined();
    if (accept_keyword("KNOWN")) {
      if (!accept_keyword("EMPTY")) fail("expected 'EMPTY' after 'KNOWN'");
      IndexingMap m;
      m.set_known_empty();
      return m;
    }
    m_names.clear();
    m_bound_set.clear();
    m_flat.clear();
    std::vector<Variable> vars[3];
    const std::size_t first_division = m_divisions.size();
    expect("(", "'(' to start a map such as (d0, d1) -> (d1, d0)");
    name_list(VarKind::kDim, ')', vars[0]);
    if (accept("[")) name_list(VarKind::kRange, ']', vars[1]);
    if (accept("{")) name_list(VarKind::kRuntime, '}', vars[2]);
    keep_written_names(vars);
    expect("->", "'->'");
    expect("(", "'(' before the results");
    std::vector<Expr> results;
    std::vector<std::size_t> result_at;
    if (!accept(")")) {
      do {
        result_at.push_back((skip_space(), m_pos));
        results.push_back(expr());
      } while (accept(","));
      expect(")", "',' or ')'");
    }
    std::vector<Constraint> constraints;
    std::size_t domain_at = (skip_space(), m_pos);
    bool has_domain = false;
    {
      std::size_t save = m_pos;
      accept(",");
      if (accept_keyword("domain")) {
        expect(":", "':' after 'domain'");
        has_domain = true;
        domain_items(vars, constraints);
      } else {
        m_pos = save;
      }
    }
    for (std::size_t i = 0; i < m_flat.size(); ++i) {
      if (!m_bound_set[i]) {
        fail_at(has_domain ? domain_at : m_pos, "no interval for variable '" + name_of(m_flat[i]) +
                                                    "': every variable needs `name in [lo, hi]` in the domain");
      }
    }
    (void)start;
    check_divisions(first_division, Domain(vars[0], vars[1], vars[2]));
    check_int64_range(Domain(vars[0], vars[1], vars[2]), results, result_at, constraints, domain_at);
    IndexingMap map(Domain(vars[0], vars[1], vars[2]), std::move(results));
    for (const Constraint& c : constraints) map.add_constraint(c.expr, c.interval);
    if (accept("(approximate")) approximate_marker(map);
    if (!nested && accept_keyword("runtime")) {
      if (!accept_keyword("variables")) fail("expected 'variables'");
      expect(":", "':'");
      runtime_sources(map);
    }
    if (!nested && at_replica_id()) replica_id(map);
    return map;
  }

  // After `(approximate`: `)`, or `: why)` where `why` may hold balanced
  // parentheses (the reasons hlo-index prints do).
  void approximate_marker(IndexingMap& map) {
    if (accept(")")) {
      map.mark_approximate();
      return;
    }
    expect(":", "')' or ': reason)' after '(approximate'");
    skip_space();
    const std::size_t from = m_pos;
    int depth = 0;
    for (; m_pos < m_text.size(); ++m_pos) {
      const char c = m_text[m_pos];
      if (c == '\n' || (c == ')' && depth == 0)) break;
      depth += c == '(' ? 1 : (c == ')' ? -1 : 0);
    }
    if (m_pos >= m_text.size() || m_text[m_pos] != ')') fail("expected ')' closing '(approximate: ...'");
    map.mark_approximate(m_text.substr(from, m_pos - from));
    ++m_pos;
  }

  void runtime_sources(IndexingMap& map) {
    std::vector<RuntimeSource> sources;
    std::size_t count = map.runtime_count();
    auto names = m_names;
    while (!at_end() && !at_replica_id()) {
      std::size_t at = (skip_space(), m_pos);
      std::string name(identifier("a runtime variable name"));
      auto it = names.find(name);
      if (it == names.end() || it->second.kind != VarKind::kRuntime || it->second.index != sources.size()) {
        fail_at(at, "expected the source of runtime variable " + std::to_string(sources.size()));
      }
      expect(":", "':'");
      skip_space();
      std::size_t end = m_text.find_first_of(";\n", m_pos);
      if (end == std::string_view::npos) end = m_text.size();
      std::string source(m_text.substr(m_pos, end - m_pos));
      while (!source.empty() && std::isspace(static_cast<unsigned char>(source.back()))) source.pop_back();
      m_pos = end;
      RuntimeSource s;
      s.source = source;
      if (accept(";")) {
        IndexingMap element = parse_one(/*nested=*/true);
        if (accept(";")) replica_id(element);
        s.map = std::make_shared<const IndexingMap>(std::move(element));
      }
      sources.push_back(std::move(s));
    }
    if (sources.size() != count)
      fail("expected a source for each of the " + std::to_string(count) + " runtime variables");
    if (map.is_defined()) map.runtime_sources() = std::move(sources);
  }

  std::string_view m_text;
  std::size_t m_pos = 0;
  int m_depth = 0;                           // expression nesting, see Nesting
  std::vector<PendingDivision> m_divisions;  // of the maps being parsed
  std::map<std::string, Var> m_names;
  std::vector<bool> m_bound_set;
  std::vector<Var> m_flat;
};

}  // namespace

std::optional<IndexingMap> parse_map(const parser::SourceFile& source, parser::DiagnosticEngine& diagnostics) {
  try {
    return MapParser(source.text()).parse_whole();
  } catch (const ParseError& e) {
    diagnostics.report(parser::Severity::kError, source, e.offset, e.message);
  } catch (const std::invalid_argument& e) {
    diagnostics.report(parser::Severity::kError, source, 0, e.what());
  }
  return std::nullopt;
}

IndexingMap parse_map(std::string_view text) {
  parser::SourceFile source("<map>", std::string(text));
  parser::DiagnosticEngine diagnostics;
  auto map = parse_map(source, diagnostics);
  if (!map) throw std::invalid_argument(parser::render(diagnostics));
  return *map;
}

}  // namespace hlo_index::indexing

#include "indexing/maps/indexing_map.hpp"

#include <functional>
#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace hlo_index::indexing {

bool RuntimeSource::operator==(const RuntimeSource& other) const {
  // The clamp range is part of the value: clamp(o, 0, 6) and clamp(o, 0, 4) differ.
  if (source != other.source || operand != other.operand || feasible != other.feasible || uniform != other.uniform)
    return false;
  if (!map || !other.map) return map == other.map;
  return *map == *other.map;
}

namespace {
void check_variables(const Domain& domain, const Expr& e) {
  simplify::for_each_variable(e, [&](Var v) {
    if (v.index >= domain.count(v.kind)) throw std::invalid_argument("expression uses an undeclared variable");
  });
}
}  // namespace

IndexingMap::IndexingMap(Domain domain, std::vector<Expr> results)
    : m_domain(std::move(domain)), m_results(std::move(results)) {
  for (const Expr& r : m_results) check_variables(m_domain, r);
  for (const Constraint& c : m_domain.constraints()) check_variables(m_domain, c.expr);
  if (m_domain.has_empty_bounds()) set_known_empty();
}

IndexingMap IndexingMap::replica_id_map() const { return IndexingMap(m_domain, m_replica_id); }

IndexingMap IndexingMap::undefined(std::string reason) {
  IndexingMap m;
  m.m_state = State::kUndefined;
  m.m_reason = std::move(reason);
  return m;
}

const std::string& IndexingMap::no_reason() {
  static const std::string empty;
  return empty;
}

namespace {
// The printed `(approximate: why)` is read back up to its matching
// parenthesis: a reason with unbalanced ones gets brackets instead.
std::string balanced(std::string_view why) {
  std::string out(why);
  int depth = 0;
  bool ok = true;
  for (char c : out) {
    depth += c == '(' ? 1 : (c == ')' ? -1 : 0);
    ok = ok && depth >= 0 && c != '\n';
  }
  if (ok && depth == 0) return out;
  for (char& c : out) c = c == '(' ? '[' : (c == ')' ? ']' : (c == '\n' ? ' ' : c));
  return out;
}

// One copy of each reason for the process: maps are copied often, and an
// approximate map's reason is one of a few dozen phrases (those quoting an
// UNDEFINED reason name at most an instruction each).
const std::string* interned_reason(std::string_view why) {
  static std::mutex mutex;
  static std::unordered_set<std::string> reasons;  // nodes: stable addresses
  std::string text = balanced(why);
  const std::lock_guard<std::mutex> lock(mutex);
  return &*reasons.insert(std::move(text)).first;
}
}  // namespace

void IndexingMap::mark_approximate(std::string_view why) {
  m_approximate = true;
  if (m_approximation == nullptr && !is_undefined() && !why.empty()) m_approximation = interned_reason(why);
}

IndexingMap IndexingMap::known_empty(const IndexingMap& shape_of) {
  IndexingMap m = shape_of;
  m.set_known_empty();
  return m;
}

IndexingMap IndexingMap::identity(const std::vector<std::int64_t>& sizes) {
  std::vector<Variable> dims;
  std::vector<Expr> results;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    dims.push_back({{0, sizes[i] - 1}, ""});
    results.push_back(Expr::dim(static_cast<std::uint32_t>(i)));
  }
  return IndexingMap(Domain(std::move(dims), {}, {}), std::move(results));
}

void IndexingMap::add_constraint(const Expr& e, Interval interval) {
  if (!is_defined()) return;
  check_variables(m_domain, e);
  if (!m_domain.add_constraint(e, interval)) set_known_empty();
}

void IndexingMap::set_known_empty() {
  m_state = State::kKnownEmpty;
  for (Expr& r : m_results) r = Expr();
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    for (Variable& v : m_domain.variables(static_cast<VarKind>(k))) v.bounds = {0, -1};
  }
  m_domain.clear_constraints();
  m_replica_id.clear();
}

bool IndexingMap::operator==(const IndexingMap& other) const {
  // The results first: maps in one set mostly differ there (their domains are often equal).
  return m_state == other.m_state && m_approximate == other.m_approximate && m_results == other.m_results &&
         m_domain == other.m_domain && m_runtime_sources == other.m_runtime_sources &&
         m_replica_id == other.m_replica_id;
}

namespace {

void hash_combine(std::size_t& seed, std::size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

void mix_interval(std::size_t& seed, const Interval& interval) {
  hash_combine(seed, std::hash<std::int64_t>()(interval.lo));
  hash_combine(seed, std::hash<std::int64_t>()(interval.hi));
}

}  // namespace

std::size_t IndexingMap::hash() const {
  std::size_t seed = static_cast<std::size_t>(m_state);
  hash_combine(seed, m_approximate);
  for (simplify::VarKind kind : {simplify::VarKind::kDim, simplify::VarKind::kRange, simplify::VarKind::kRuntime}) {
    hash_combine(seed, m_domain.count(kind));
    for (const simplify::Variable& v : m_domain.variables(kind)) mix_interval(seed, v.bounds);
  }
  for (const simplify::Constraint& c : m_domain.constraints()) {
    hash_combine(seed, c.expr.hash());
    mix_interval(seed, c.interval);
  }
  for (const Expr& e : m_results) hash_combine(seed, e.hash());
  for (const Expr& e : m_replica_id) hash_combine(seed, e.hash());
  for (const RuntimeSource& s : m_runtime_sources) hash_combine(seed, std::hash<std::string>()(s.source));
  return seed;
}

}  // namespace hlo_index::indexing

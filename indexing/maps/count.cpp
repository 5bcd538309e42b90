#include "indexing/maps/count.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>

#include "indexing/maps/count_memo.hpp"
#include "indexing/maps/isl_bridge.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/linear_image.hpp"
#include "indexing/maps/non_affine.hpp"
#include "simplify/compiled_expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

// Expression evaluations one count may spend before handing over to isl (ScopedCountEvaluations
// may lower it on a thread).
constexpr std::int64_t k_evaluation_budget = 20'000'000;
thread_local std::int64_t t_evaluation_budget = k_evaluation_budget;
// Largest residue period the closed form walks through.
constexpr std::int64_t k_max_period = 1 << 20;

struct OutOfBudget {};

using simplify::Wide;
using simplify::wide_add;
using simplify::wide_size;

// An upper bound's product: past 2^128 the bound says so by saturating and
// the caller's answer is not exact (no domain of a real module comes near).
Wide mul_bound(Wide a, Wide b, bool& exact) {
  Wide r;
  if (__builtin_mul_overflow(a, b, &r)) {
    exact = false;
    return simplify::k_wide_max;
  }
  return r;
}
Wide add_bound(Wide a, Wide b, bool& exact) {
  Wide r;
  if (__builtin_add_overflow(a, b, &r)) {
    exact = false;
    return simplify::k_wide_max;
  }
  return r;
}

std::int64_t lcm_capped(std::int64_t a, std::int64_t b) {
  std::int64_t g = simplify::gcd(a, b);
  std::int64_t r;
  if (__builtin_mul_overflow(a / g, b, &r) || r > k_max_period) return k_max_period + 1;
  return r;
}

// A step of `period` in variable v changes `e` by a constant.
std::int64_t period_in(const Expr& e, Var v) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
    case Expr::Kind::kVariable: return 1;
    case Expr::Kind::kSum: {
      std::int64_t p = 1;
      for (const simplify::Term& t : e.terms()) p = lcm_capped(p, period_in(t.atom, v));
      return p;
    }
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: {
      if (!simplify::uses_variable(e.operand(), v)) return 1;
      std::int64_t inner = period_in(e.operand(), v);
      std::int64_t r;
      if (__builtin_mul_overflow(inner, e.divisor(), &r) || r > k_max_period) return k_max_period + 1;
      return r;
    }
    case Expr::Kind::kNonAffine:
      // No period in general (s0 * s1, d0 floordiv s0).
      return simplify::uses_variable(e, v) ? k_max_period + 1 : 1;
  }
  return 1;
}

// Counting of one connected group of variables.
class ComponentCounter {
public:
  ComponentCounter(const Domain& domain, std::vector<Var> vars, std::vector<const Constraint*> constraints,
                   std::int64_t& budget)
      : m_domain(domain), m_vars(std::move(vars)), m_constraints(std::move(constraints)), m_budget(budget) {
    for (int k = 0; k < simplify::k_var_kinds; ++k) m_values[k].assign(domain.count(static_cast<VarKind>(k)), 0);
    // Compiled once: the enumeration evaluates them at every point (evaluate()'s arithmetic).
    for (const Constraint* c : m_constraints) m_compiled.emplace_back(c->expr);
  }

  Wide run() {
    // The variable with the widest interval is counted in closed form; the
    // others are enumerated.
    std::size_t inner = 0;
    for (std::size_t i = 1; i < m_vars.size(); ++i) {
      if (m_domain.bounds(m_vars[i]).size() > m_domain.bounds(m_vars[inner]).size()) inner = i;
    }
    std::swap(m_vars[inner], m_vars.back());
    return enumerate(0);
  }

private:
  simplify::VarValues values() const { return {m_values[0], m_values[1], m_values[2]}; }
  std::int64_t& value(Var v) { return m_values[static_cast<int>(v.kind)][v.index]; }

  void spend(std::int64_t n) {
    m_budget -= n;
    if (m_budget < 0) throw OutOfBudget{};
  }

  Wide enumerate(std::size_t depth) {
    if (depth + 1 == m_vars.size()) return count_last();
    Interval b = m_domain.bounds(m_vars[depth]);
    Wide total = 0;
    for (std::int64_t x = b.lo;; ++x) {
      value(m_vars[depth]) = x;
      total = wide_add(total, enumerate(depth + 1));
      if (x == b.hi) break;
    }
    return total;
  }

  bool satisfied() {
    spend(static_cast<std::int64_t>(m_constraints.size()));
    const simplify::VarValues at = values();
    for (std::size_t k = 0; k < m_constraints.size(); ++k) {
      if (!m_constraints[k]->interval.contains(m_compiled[k](at))) return false;
    }
    return true;
  }

  Wide count_last() {
    Var v = m_vars.back();
    Interval b = m_domain.bounds(v);
    // An interval of 2^63 integers or more: isl counts it (arbitrary precision).
    if (b.size() == std::numeric_limits<std::int64_t>::max()) throw OutOfBudget{};
    std::int64_t period = 1;
    for (const Constraint* c : m_constraints) period = lcm_capped(period, period_in(c->expr, v));
    if (b.size() <= 64 || period > k_max_period || b.size() <= 2 * period) {
      spend(b.size());
      Wide n = 0;
      for (std::int64_t x = b.lo;; ++x) {
        value(v) = x;
        if (satisfied()) ++n;
        if (x == b.hi) break;
      }
      return n;
    }
    // Per residue class: every constraint is affine in q where x = x0 + period*q.
    Wide n = 0;
    for (std::int64_t r = 0; r < period; ++r) {
      std::int64_t x0 = b.lo + r;
      std::int64_t steps = (b.hi - x0) / period;  // q in [0, steps]
      Interval q{0, steps};
      spend(2 * static_cast<std::int64_t>(m_constraints.size()));
      for (std::size_t k = 0; k < m_constraints.size(); ++k) {
        const Constraint* c = m_constraints[k];
        value(v) = x0;
        std::int64_t f0 = m_compiled[k](values());
        value(v) = x0 + period;
        // Differences past int64 hand the group to isl (the caller catches the overflow).
        std::int64_t delta = simplify::checked_add(m_compiled[k](values()), simplify::checked_neg(f0));
        const std::int64_t from_lo = simplify::checked_add(c->interval.lo, simplify::checked_neg(f0));
        const std::int64_t from_hi = simplify::checked_add(c->interval.hi, simplify::checked_neg(f0));
        Interval allowed;
        if (delta == 0) {
          allowed = c->interval.contains(f0) ? q : Interval{};
        } else if (delta > 0) {
          allowed = {simplify::ceil_div(from_lo, delta), simplify::floor_div(from_hi, delta)};
        } else {
          allowed = {simplify::ceil_div(from_hi, delta), simplify::floor_div(from_lo, delta)};
        }
        q = q.intersect(allowed);
        if (q.empty()) break;
      }
      n = wide_add(n, wide_size(q));
    }
    return n;
  }

  const Domain& m_domain;
  std::vector<Var> m_vars;
  std::vector<const Constraint*> m_constraints;
  std::vector<simplify::CompiledExpr> m_compiled;  // of m_constraints, in order
  std::int64_t& m_budget;
  std::vector<std::int64_t> m_values[simplify::k_var_kinds];
};

// Groups of variables linked by constraints.
struct Components {
  std::vector<std::size_t> parent;
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
};

// isl's count of a group the closed forms could not finish; out of
// budget, the box (an upper bound).
Count isl_count(const Domain& domain) {
  auto box = [&] {
    Wide n = 1;
    bool exact = true;
    for (Var v : domain.all_variables()) n = mul_bound(n, wide_size(domain.bounds(v)), exact);
    return Count::of(n, false);
  };
  try {
    return within_isl_budget([&] { return Count::of(indexing::count_points(graph_set(domain, {})), true); }, box);
  } catch (const simplify::ArithmeticOverflow&) {
    return box();
  }
}

}  // namespace

namespace {
Count count_points_of(const Domain& domain);
}  // namespace

Count count_points(const Domain& domain) {
  if (domain.has_empty_bounds()) return {0, true};
  // One constrained component or more: counting is the work (enumerated, else isl); a box is a product.
  if (domain.constraints().empty()) return count_points_of(domain);
  return memoised_points(domain, t_evaluation_budget, [&] { return count_points_of(domain); });
}

namespace {

Count count_points_of(const Domain& domain) {
  std::vector<Var> vars = domain.all_variables();
  Components comp{std::vector<std::size_t>(vars.size())};
  std::iota(comp.parent.begin(), comp.parent.end(), 0);
  for (const Constraint& c : domain.constraints()) {
    std::size_t first = SIZE_MAX;
    simplify::for_each_variable(c.expr, [&](Var v) {
      std::size_t i = domain.position(v);
      if (first == SIZE_MAX) {
        first = i;
      } else {
        comp.parent[comp.find(i)] = comp.find(first);
      }
    });
    if (first == SIZE_MAX && !c.interval.contains(c.expr.constant_value())) return {0, true};
  }
  Wide total = 1;
  bool exact = true;
  std::int64_t budget = t_evaluation_budget;
  for (std::size_t root = 0; root < vars.size(); ++root) {
    if (comp.find(root) != root) continue;
    std::vector<Var> members;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (comp.find(i) == root) members.push_back(vars[i]);
    }
    std::vector<const Constraint*> constraints;
    for (const Constraint& c : domain.constraints()) {
      bool mine = false;
      simplify::for_each_variable(c.expr, [&](Var v) { mine = mine || comp.find(domain.position(v)) == root; });
      if (mine) constraints.push_back(&c);
    }
    Wide n;
    bool handed_to_isl = false;
    if (constraints.empty()) {
      n = wide_size(domain.bounds(members[0]));
    } else {
      try {
        n = ComponentCounter(domain, members, constraints, budget).run();
      } catch (const OutOfBudget&) {
        n = 0;
        handed_to_isl = true;
      } catch (const simplify::ArithmeticOverflow&) {
        n = 0;
        handed_to_isl = true;
      }
      if (handed_to_isl) {
        // The component alone, handed to isl.
        Count c = isl_count(domain.restricted_to([&](Var v) { return comp.find(domain.position(v)) == root; }));
        n = c.wide;
        exact = exact && c.wide_exact;
      }
    }
    if (n == 0) return {0, true};
    // Past 2^128 (hundreds of runtime offsets, each a range of its own): a bound, not an error.
    total = mul_bound(total, n, exact);
  }
  return Count::of(total, exact);
}

}  // namespace

Count count_domain(const IndexingMap& map) {
  if (map.is_known_empty()) return {0, true};
  if (map.is_undefined()) return Count::of(0, false);
  Count c = count_points(map.domain());
  c.exact = c.exact && !map.approximate();
  c.wide_exact = c.wide_exact && !map.approximate();
  return c;
}

namespace {

// Results that are `a*v + c` (a != 0) of pairwise distinct variables, and
// the variables' groups closed under constraints: the image is in
// bijection with the projection of the domain onto those variables.
std::optional<Count> count_projection_image(const IndexingMap& map) {
  const Domain& d = map.domain();
  std::vector<Var> projected;
  for (const Expr& r : map.results()) {
    if (r.is_constant()) continue;
    std::vector<simplify::Term> terms;
    std::int64_t constant;
    simplify::decompose_linear(r, terms, constant);
    if (terms.size() != 1 || !terms[0].atom.is_variable()) return std::nullopt;
    Var v = terms[0].atom.variable();
    if (std::find(projected.begin(), projected.end(), v) != projected.end()) return std::nullopt;
    projected.push_back(v);
  }
  auto is_projected = [&](Var v) { return std::find(projected.begin(), projected.end(), v) != projected.end(); };
  for (const Constraint& c : d.constraints()) {
    bool in = false, out = false;
    simplify::for_each_variable(c.expr, [&](Var v) { (is_projected(v) ? in : out) = true; });
    if (in && out) return std::nullopt;
  }
  // The other variables must admit at least one point; then every point
  // of the projection is reached.
  if (count_points(d.restricted_to([&](Var v) { return !is_projected(v); })).wide == 0) return Count{0, true};
  return count_points(d.restricted_to(is_projected));
}

// The image of a map whose results fall in groups over disjoint variables, no constraint
// linking two groups, is the product of the groups' images; equal results and constant ones
// leave its size as it is. Each group is counted on its own (a transfer-unit map of a layer's
// dynamic-slice pairs a small enumeration with variables only a constraint reads: those only
// need a point). nullopt: nothing to factor.
std::optional<Count> factored_image_count(const IndexingMap& map) {
  const Domain& d = map.domain();
  std::vector<Expr> results;
  for (const Expr& r : map.results()) {
    if (!r.is_constant() && std::find(results.begin(), results.end(), r) == results.end()) results.push_back(r);
  }
  // Variables linked by a result or a constraint, as a union-find over their flat positions.
  std::size_t offsets[simplify::k_var_kinds + 1] = {0};
  for (int k = 0; k < simplify::k_var_kinds; ++k) offsets[k + 1] = offsets[k] + d.count(static_cast<VarKind>(k));
  const auto flat = [&offsets](Var v) { return offsets[static_cast<int>(v.kind)] + v.index; };
  std::vector<std::size_t> parent(offsets[simplify::k_var_kinds]);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto find = [&parent](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const auto link = [&](const Expr& e) {
    std::optional<std::size_t> first;
    simplify::for_each_variable(e, [&](Var v) {
      const std::size_t x = find(flat(v));
      if (!first) {
        first = x;
      } else if (x != *first) {
        parent[x] = *first;
      }
    });
  };
  for (const Constraint& c : d.constraints()) link(c.expr);
  for (const Expr& r : results) link(r);
  // The results of each group, by the root of their variables (a result reads at least one).
  std::vector<std::pair<std::size_t, std::vector<Expr>>> groups;
  for (const Expr& r : results) {
    std::size_t root = 0;
    simplify::for_each_variable(r, [&](Var v) { root = find(flat(v)); });
    auto it = std::find_if(groups.begin(), groups.end(), [root](const auto& g) { return g.first == root; });
    if (it == groups.end()) {
      groups.emplace_back(root, std::vector<Expr>{});
      it = std::prev(groups.end());
    }
    it->second.push_back(r);
  }
  const auto in_group = [&](Var v) {
    const std::size_t root = find(flat(v));
    return std::any_of(groups.begin(), groups.end(), [root](const auto& g) { return g.first == root; });
  };
  // Constraints over variables no result reads are left out of the groups' counts too.
  const bool constraints_apart = std::any_of(d.constraints().begin(), d.constraints().end(), [&](const Constraint& c) {
    bool apart = false;
    simplify::for_each_variable(c.expr, [&](Var v) { apart = apart || !in_group(v); });
    return apart;
  });
  // Nor do the bounds of variables nothing reads matter (maps that differ only there count alike).
  const std::vector<Var> all = d.all_variables();
  const bool unread_vary =
      std::any_of(all.begin(), all.end(), [&](Var v) { return !in_group(v) && d.bounds(v).size() > 1; });
  if (groups.size() <= 1 && results.size() == map.results().size() && !constraints_apart && !unread_vary)
    return std::nullopt;
  // Memoised as a whole: a layer's maps repeat, and the groups' enumerations are the cost.
  return memoised_count(std::span(&map, 1), [&] {
    // The variables no result reads only need a point.
    if (count_points(d.restricted_to([&](Var v) { return !in_group(v); })).wide == 0) return Count{0, true};
    Wide n = 1;
    bool exact = true;
    for (const auto& [root, group] : groups) {
      const std::size_t r = root;
      const Count c = count_image(IndexingMap(d.restricted_to([&](Var v) { return find(flat(v)) == r; }), group));
      exact = exact && c.wide_exact;
      n = mul_bound(n, c.wide, exact);
    }
    return Count::of(n, exact);
  });
}

// Images over more symbols than this are bounded, not counted: isl's
// injectivity test and projection grow exponentially with them (a chain of
// 200 dynamic-slices has 400 runtime variables) and do not count as isl
// operations, so no budget stops them.
constexpr std::size_t k_max_exact_image_symbols = 64;

// Images whose results divide (floordiv, mod: a layout's offsets, the units they fall in) can
// take isl minutes to project within its operation budget (a bitcast-copy-bitcast-slice fusion of
// a real GPU dump: 60,000 offsets, 100 s at 2,000,000 operations; time grows faster than the
// operations on them: 0.4 s at 100,000). They get a twentieth of the budget; past it, those over
// at most k_max_enumerated_points points are counted point by point (exact), larger ones bounded.
constexpr unsigned long k_division_image_budget_share = 20;

bool results_divide(const IndexingMap& map) {
  return std::any_of(map.results().begin(), map.results().end(),
                     [](const Expr& r) { return simplify::has_division(r); });
}

Count upper_bound_image(const IndexingMap& map) {
  simplify::RangeEvaluator ranges(map.domain(), true);
  Wide n = 1;
  bool exact = true;
  for (const Expr& r : map.results()) n = mul_bound(n, wide_size(ranges(r)), exact);
  Count dom = count_domain(map);
  return Count::of(std::min(dom.wide, n), false);
}

// A variable that neither a result nor a constraint reads and that takes two values or more: two
// points that differ only there have one image, so the map is not injective. isl's injectivity
// test is most of the time of counting the transfer units a map reaches (offsets floordiv a
// unit), where the dimensions a unit spans are often read by no result at all.
// Whether a result or a constraint of `map` reads `v`.
bool read_by(const IndexingMap& map, Var v) {
  const auto reads = [v](const Expr& e) { return simplify::uses_variable(e, v); };
  return std::any_of(map.results().begin(), map.results().end(), reads) ||
         std::any_of(map.domain().constraints().begin(), map.domain().constraints().end(),
                     [&](const Constraint& c) { return reads(c.expr); });
}

bool visibly_not_injective(const IndexingMap& map) {
  const Domain& d = map.domain();
  const std::vector<Var> vars = d.all_variables();
  return std::any_of(vars.begin(), vars.end(), [&](Var v) { return d.bounds(v).size() >= 2 && !read_by(map, v); });
}

// Images whose variables that matter (those a result or a constraint reads) span at most this
// many points are counted point by point: the transfer units of an array's offsets (an offset
// floordiv a unit, over a few runtime or range variables) take isl a projection and an integer
// program per piece, and the enumeration a few microseconds.
constexpr std::int64_t k_max_enumerated_image_points = 1 << 13;

std::optional<Count> enumerated_image_count(const IndexingMap& map) {
  const Domain& d = map.domain();
  if (d.has_empty_bounds()) return std::nullopt;
  std::vector<Var> read;
  std::int64_t box = 1;
  for (Var v : d.all_variables()) {
    if (!read_by(map, v)) continue;  // any value of it will do
    box = simplify::saturating_mul(box, d.bounds(v).size());
    if (box > k_max_enumerated_image_points) return std::nullopt;
    read.push_back(v);
  }
  std::vector<std::pair<simplify::CompiledExpr, Interval>> constraints;
  for (const Constraint& c : d.constraints()) constraints.emplace_back(simplify::CompiledExpr(c.expr), c.interval);
  std::vector<simplify::CompiledExpr> results;
  for (const Expr& r : map.results()) results.emplace_back(r);
  std::vector<std::int64_t> values[simplify::k_var_kinds];
  for (int k = 0; k < simplify::k_var_kinds; ++k) values[k].assign(d.count(static_cast<VarKind>(k)), 0);
  auto value = [&](Var v) -> std::int64_t& { return values[static_cast<int>(v.kind)][v.index]; };
  for (Var v : d.all_variables()) value(v) = d.bounds(v).lo;
  const std::size_t arity = results.size();
  std::vector<std::int64_t> images;  // flat, `arity` per image
  try {
    for (std::int64_t n = 0; n < box; ++n) {
      const simplify::VarValues at{values[0], values[1], values[2]};
      if (std::all_of(constraints.begin(), constraints.end(),
                      [&](const auto& c) { return c.second.contains(c.first(at)); })) {
        for (const simplify::CompiledExpr& r : results) images.push_back(r(at));
      }
      for (Var v : read) {
        if (++value(v) <= d.bounds(v).hi) break;
        value(v) = d.bounds(v).lo;
      }
    }
  } catch (const simplify::ArithmeticOverflow&) {
    return std::nullopt;
  }
  std::vector<std::size_t> starts(images.size() / arity);
  for (std::size_t k = 0; k < starts.size(); ++k) starts[k] = k * arity;
  const auto tuple = [&](std::size_t start) { return std::span<const std::int64_t>(images.data() + start, arity); };
  std::sort(starts.begin(), starts.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(tuple(a).begin(), tuple(a).end(), tuple(b).begin(), tuple(b).end());
  });
  const auto distinct = std::unique(starts.begin(), starts.end(), [&](std::size_t a, std::size_t b) {
    return std::equal(tuple(a).begin(), tuple(a).end(), tuple(b).begin());
  });
  return Count::of(static_cast<std::int64_t>(distinct - starts.begin()), true);
}

// Via isl: the domain count when the map is injective, else the sum over
// the disjoint pieces of the projected image.
Count image_count_within_budget(const IndexingMap& map) {
  const Domain& d = map.domain();
  const auto n_vars = static_cast<unsigned>(d.variable_count());
  isl::set graph = graph_set(d, map.results());
  // A single result that divides (the transfer unit an offset falls in) is many-to-one but on
  // degenerate domains, and its one-dimensional image is cheap to project: no injectivity test.
  const bool one_divided_result = map.results().size() == 1 && results_divide(map);
  if (!one_divided_result && !visibly_not_injective(map) && is_injective(graph, n_vars)) return count_points(d);
  std::vector<Var> vars;
  for (std::uint32_t k = 0; k < map.results().size(); ++k) vars.push_back({VarKind::kDim, k});
  Wide n = 0;
  bool exact = true;
  for (const Domain& piece : symbolic_pieces(project_out(graph, 0, n_vars), vars)) {
    Count c = count_points(piece);
    exact = exact && c.wide_exact;
    n = add_bound(n, c.wide, exact);
  }
  return Count::of(n, exact);
}

}  // namespace

Count count_image(const IndexingMap& map) {
  if (map.is_known_empty()) return {0, true};
  if (map.is_undefined()) return Count::of(0, false);
  Count out;
  if (map.results().empty()) {
    out = Count::of(count_points(map.domain()).wide > 0 ? 1 : 0, true);
  } else if (auto factored = factored_image_count(map)) {
    out = *factored;
  } else if (auto projection = count_projection_image(map)) {
    out = *projection;
  } else if (has_non_affine(map)) {
    // Beyond isl: enumerated when small, else bounded.
    const std::optional<std::int64_t> image = enumerated_image_size(map);
    out = image ? Count::of(*image, true) : upper_bound_image(map);
  } else if (map.range_count() + map.runtime_count() > k_max_exact_image_symbols) {
    out = upper_bound_image(map);
  } else {
    const bool divides = results_divide(map);
    const unsigned long limit = IslContext::get().operation_limit();
    const ScopedIslOperationLimit share(divides ? std::max(1UL, limit / k_division_image_budget_share) : limit);
    auto past_budget = [&] {
      // enumerated_image_size refuses domains past k_max_enumerated_points.
      if (const std::optional<std::int64_t> image = divides ? enumerated_image_size(map) : std::nullopt)
        return Count::of(*image, true);
      return upper_bound_image(map);
    };
    if (std::optional<Count> small = enumerated_image_count(map)) {
      out = *small;
    } else {
      out = memoised_count(std::span(&map, 1), [&] {
        // One result summing terms of one variable each: its values as a bit set, before isl.
        if (std::optional<Count> linear = linear_image_count(map)) return *linear;
        return within_isl_budget([&] { return image_count_within_budget(map); }, past_budget);
      });
    }
  }
  out.exact = out.exact && !map.approximate();
  out.wide_exact = out.wide_exact && !map.approximate();
  return out;
}

Count count_union_image(std::span<const IndexingMap> maps) {
  std::vector<const IndexingMap*> defined;
  for (const IndexingMap& m : maps) {
    if (m.is_undefined()) return Count::of(0, false);
    if (!m.is_known_empty()) defined.push_back(&m);
  }
  if (defined.empty()) return {0, true};
  if (defined.size() == 1) return count_image(*defined[0]);
  const std::size_t rank = defined[0]->results().size();
  bool approximate = false;
  for (const IndexingMap* m : defined) {
    if (m->results().size() != rank) throw std::invalid_argument("count_union_image: maps of different arities");
    approximate = approximate || m->approximate();
  }
  // Without isl: the images' sizes add up to an upper bound.
  auto upper_bound = [&] {
    Wide sum = 0;
    bool exact = true;
    for (const IndexingMap* m : defined) sum = add_bound(sum, count_image(*m).wide, exact);
    return Count::of(sum, false);
  };
  if (rank == 0) return Count::of(1, !approximate);
  Count out = memoised_count(maps, [&] {
    return within_isl_budget(
        [&] {
          std::optional<isl::set> all;
          for (const IndexingMap* m : defined) {
            const auto n_vars = static_cast<unsigned>(m->domain().variable_count());
            isl::set image = project_out(graph_set(m->domain(), m->results()), 0, n_vars);
            all = all ? all->unite(image) : image;
          }
          std::vector<Var> vars;
          for (std::uint32_t k = 0; k < rank; ++k) vars.push_back({VarKind::kDim, k});
          Wide sum = 0;
          bool exact = true;
          for (const Domain& piece : symbolic_pieces(all->coalesce(), vars)) {
            Count c = count_points(piece);
            exact = exact && c.wide_exact;
            sum = add_bound(sum, c.wide, exact);
          }
          return Count::of(sum, exact);
        },
        upper_bound);
  });
  out.exact = out.exact && !approximate;
  out.wide_exact = out.wide_exact && !approximate;
  return out;
}

Count count_relation(const IndexingMap& map) {
  if (map.is_known_empty()) return {0, true};
  if (map.is_undefined()) return Count::of(0, false);
  if (map.range_count() == 0) return count_domain(map);
  // Pairs ((d, rt), r): the image of (d, s, rt) -> (d, rt, r).
  std::vector<Expr> results;
  for (std::uint32_t i = 0; i < map.dim_count(); ++i) results.push_back(Expr::dim(i));
  for (std::uint32_t i = 0; i < map.runtime_count(); ++i) results.push_back(Expr::runtime(i));
  results.insert(results.end(), map.results().begin(), map.results().end());
  IndexingMap pairs(map.domain(), std::move(results));
  pairs.inherit_approximation(map);
  return count_image(pairs);
}

ScopedCountEvaluations::ScopedCountEvaluations(std::int64_t evaluations) : m_saved(t_evaluation_budget) {
  t_evaluation_budget = std::min(t_evaluation_budget, evaluations);
}

ScopedCountEvaluations::~ScopedCountEvaluations() { t_evaluation_budget = m_saved; }

}  // namespace hlo_index::indexing

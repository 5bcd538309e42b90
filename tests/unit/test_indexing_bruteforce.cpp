// Brute-force property tests of the indexing-map operations: on random small
// maps, simplify, compose, inverse, counting, equality and the text form are
// compared with direct enumeration of every point of the domain box. The
// maps are small (at most a few thousand box points), so enumeration is the
// ground truth; the seeds are fixed so that a failure reproduces, and every
// check prints the maps it was made on.
//
// Semantics checked against: a map is the relation
//   { (d, rt) -> r(d, s, rt) : (d, s, rt) in the box and every constraint }
// with the range variables s existential.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/compose/map_memo.hpp"
#include "indexing/maps/count.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/indexing_map.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "simplify/domain.hpp"
#include "simplify/expr.hpp"
#include "test_rng.hpp"

// LeakSanitizer hooks for the known isl leak (see "an exhausted isl budget
// leaks no memory" below); GCC and Clang spell "ASan is on" differently.
#if defined(__SANITIZE_ADDRESS__)
#define BRUTEFORCE_HAS_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BRUTEFORCE_HAS_LSAN 1
#endif
#endif
#ifdef BRUTEFORCE_HAS_LSAN
#include <fcntl.h>
#include <sanitizer/lsan_interface.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using simplify::Domain;
using simplify::Expr;
using simplify::Interval;
using simplify::Var;
using simplify::Variable;
using simplify::VarKind;

namespace {

using Tuple = std::vector<std::int64_t>;
using TupleSet = std::set<Tuple>;

// ---------------------------------------------------------------------------
// Enumeration: the ground truth.

/// One point of a domain, split by variable kind.
struct Point {
  Tuple dims, ranges, runtimes;
  simplify::VarValues values() const { return {dims, ranges, runtimes}; }
};

// A bigger box means a broken test, not a slow one: stop early and loudly.
// (The generated maps keep their boxes to 1000 points; an inverse piece's box
// is the hull of the results times that box, a few million at most.)
constexpr std::int64_t k_max_box_points = 4'000'000;

std::int64_t box_points(const Domain& d) {
  std::int64_t n = 1;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    for (const Variable& v : d.variables(static_cast<VarKind>(k))) n *= v.bounds.size();
  }
  return n;
}

bool satisfies_constraints(const Domain& d, const Point& p) {
  for (const simplify::Constraint& c : d.constraints()) {
    if (!c.interval.contains(simplify::evaluate(c.expr, p.values()))) return false;
  }
  return true;
}

/// Calls `fn` for every point of the variable box of `d` that satisfies all
/// constraints (an odometer over the variables, the last one fastest).
template <typename Fn>
void for_each_domain_point(const Domain& d, Fn&& fn) {
  REQUIRE(box_points(d) <= k_max_box_points);
  if (d.has_empty_bounds()) return;
  Point p;
  Tuple* coords[simplify::k_var_kinds] = {&p.dims, &p.ranges, &p.runtimes};
  std::vector<Interval> bounds;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    for (const Variable& v : d.variables(static_cast<VarKind>(k))) {
      coords[k]->push_back(v.bounds.lo);
      bounds.push_back(v.bounds);
    }
  }
  // Pointers only after every push_back: the tuples no longer reallocate.
  std::vector<std::int64_t*> digits;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    for (std::int64_t& value : *coords[k]) digits.push_back(&value);
  }
  while (true) {
    if (satisfies_constraints(d, p)) fn(p);
    std::size_t digit = digits.size();
    for (;;) {
      if (digit == 0) return;  // every digit wrapped around: done
      --digit;
      if (*digits[digit] < bounds[digit].hi) {
        ++*digits[digit];
        break;
      }
      *digits[digit] = bounds[digit].lo;
    }
  }
}

/// The domain points of a map: none for KNOWN EMPTY (whose text form may
/// not even have variables).
template <typename Fn>
void for_each_point(const IndexingMap& m, Fn&& fn) {
  if (m.is_defined()) for_each_domain_point(m.domain(), fn);
}

/// Writes the values of `exprs` to `out` from position `at` on.
void evaluate_into(const std::vector<Expr>& exprs, const simplify::VarValues& values, Tuple& out, std::size_t at) {
  for (const Expr& e : exprs) out[at++] = simplify::evaluate(e, values);
}

/// Copies `values` into `out` from position `at` on; returns the next position.
std::size_t place(const Tuple& values, Tuple& out, std::size_t at) {
  std::copy(values.begin(), values.end(), out.begin() + static_cast<std::ptrdiff_t>(at));
  return at + values.size();
}

std::int64_t count_domain_points(const IndexingMap& m) {
  std::int64_t n = 0;
  for_each_point(m, [&](const Point&) { ++n; });
  return n;
}

/// The map as a relation: tuples (d..., rt..., r...) (range variables are
/// existential, so they are not part of a tuple).
TupleSet relation_of(const IndexingMap& m) {
  TupleSet out;
  // One buffer for all points: the set copies it only for a new tuple.
  Tuple tuple(m.dim_count() + m.runtime_count() + m.results().size());
  for_each_point(m, [&](const Point& p) {
    std::size_t at = place(p.runtimes, tuple, place(p.dims, tuple, 0));
    evaluate_into(m.results(), p.values(), tuple, at);
    out.insert(tuple);
  });
  return out;
}

/// The tuples of `relation` (of `m`) reordered to (r..., rt..., d...), the
/// space of an inverse.
TupleSet reversed(const TupleSet& relation, const IndexingMap& m) {
  const auto n_in = static_cast<std::ptrdiff_t>(m.dim_count() + m.runtime_count());
  const auto n_dims = static_cast<std::ptrdiff_t>(m.dim_count());
  TupleSet out;
  for (const Tuple& t : relation) {
    Tuple r(t.begin() + n_in, t.end());
    r.insert(r.end(), t.begin() + n_dims, t.begin() + n_in);
    r.insert(r.end(), t.begin(), t.begin() + n_dims);
    out.insert(std::move(r));
  }
  return out;
}

/// The result tuples of `relation` (of `m`): the image.
TupleSet results_part(const TupleSet& relation, const IndexingMap& m) {
  const auto n_in = static_cast<std::ptrdiff_t>(m.dim_count() + m.runtime_count());
  TupleSet out;
  for (const Tuple& t : relation) out.insert(Tuple(t.begin() + n_in, t.end()));
  return out;
}

TupleSet image_of(const IndexingMap& m) { return results_part(relation_of(m), m); }

/// True if the relation of `m` has the tuple (d..., rt..., r...): only the
/// range variables are enumerated, so this works on maps whose whole box is
/// too big to enumerate (over-approximations).
bool relation_contains(const IndexingMap& m, const Tuple& t) {
  if (!m.is_defined()) return false;
  Domain at = m.domain();
  std::size_t column = 0;
  for (VarKind kind : {VarKind::kDim, VarKind::kRuntime}) {
    for (std::uint32_t i = 0; i < at.count(kind); ++i, ++column) {
      if (!at.bounds({kind, i}).contains(t[column])) return false;
      at.set_bounds({kind, i}, Interval::point(t[column]));
    }
  }
  const Tuple wanted(t.begin() + static_cast<std::ptrdiff_t>(column), t.end());
  Tuple r(wanted.size());
  bool found = false;
  for_each_domain_point(at, [&](const Point& p) {
    if (found) return;
    evaluate_into(m.results(), p.values(), r, 0);
    found = r == wanted;
  });
  return found;
}

/// `first` then `second`, point by point, in the composed map's space:
/// (d_first..., rt_second..., rt_first..., r_second...).
TupleSet composed_relation_of(const IndexingMap& first, const IndexingMap& second) {
  TupleSet out;
  if (!second.is_defined()) return out;
  // second's symbols are enumerated over its box with a placeholder for the
  // dimensions: those are first's results.
  Domain symbols_of_second = second.domain();
  for (Variable& v : symbols_of_second.variables(VarKind::kDim)) v.bounds = Interval::point(0);
  symbols_of_second.clear_constraints();

  Tuple tuple(first.dim_count() + second.runtime_count() + first.runtime_count() + second.results().size());
  Point at;
  at.dims.resize(first.results().size());
  for_each_point(first, [&](const Point& p) {
    evaluate_into(first.results(), p.values(), at.dims, 0);
    for (std::uint32_t i = 0; i < at.dims.size(); ++i) {
      if (!second.domain().bounds({VarKind::kDim, i}).contains(at.dims[i])) return;
    }
    for_each_domain_point(symbols_of_second, [&](const Point& q) {
      at.ranges = q.ranges;
      at.runtimes = q.runtimes;
      if (!satisfies_constraints(second.domain(), at)) return;
      std::size_t next = place(p.runtimes, tuple, place(q.runtimes, tuple, place(p.dims, tuple, 0)));
      evaluate_into(second.results(), at.values(), tuple, next);
      out.insert(tuple);
    });
  });
  return out;
}

/// Removes the tuple columns at `columns` (sorted).
TupleSet without_columns(const TupleSet& set, const std::vector<std::size_t>& columns) {
  TupleSet out;
  for (const Tuple& t : set) {
    Tuple kept;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (!std::binary_search(columns.begin(), columns.end(), i)) kept.push_back(t[i]);
    }
    out.insert(std::move(kept));
  }
  return out;
}

std::string to_string(const Tuple& t) {
  std::string out = "(";
  for (std::size_t i = 0; i < t.size(); ++i) out.append(i > 0 ? ", " : "").append(std::to_string(t[i]));
  return out.append(")");
}

/// Up to three tuples of each side that the other lacks, for failure
/// messages (printing whole sets would drown the maps that caused them).
std::string difference(const TupleSet& expected, const TupleSet& actual) {
  auto some_of = [](const TupleSet& a, const TupleSet& b) {
    std::string out;
    int shown = 0;
    for (const Tuple& t : a) {
      if (b.count(t) != 0) continue;
      if (shown++ == 3) return out + " ...";
      out.append(" ").append(to_string(t));  // not `" " + ...`: GCC 12 -Wrestrict misfires
    }
    return out;
  };
  return "expected " + std::to_string(expected.size()) + " tuples, got " + std::to_string(actual.size()) +
         "; missing:" + some_of(expected, actual) + "; extra:" + some_of(actual, expected);
}

/// "" when the relations are equal, else a short description of the
/// difference (for CHECK(... == ""), whose expansion then shows it).
std::string relation_mismatch(const TupleSet& expected, const TupleSet& actual) {
  return expected == actual ? std::string() : difference(expected, actual);
}

/// Index sets of size `k` from {0, ..., n-1}, each in increasing order.
std::vector<std::vector<std::size_t>> subsets_of_size(std::size_t n, std::size_t k) {
  std::vector<std::vector<std::size_t>> out;
  for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
    std::vector<std::size_t> chosen;
    for (std::size_t i = 0; i < n; ++i) {
      if ((mask >> i) & 1u) chosen.push_back(i);
    }
    if (chosen.size() == k) out.push_back(std::move(chosen));
  }
  return out;
}

/// "" when `after`, a rewrite of `before` whose relation is
/// `before_relation`, has the same relation. A rewrite may drop runtime
/// variables nothing depends on when asked to (XLA's RemoveUnusedSymbols),
/// keeping the order of the others: a dropped one carried no information
/// about the results, so the relations agree once its column is removed
/// from `before`'s tuples. Which variables went is not recorded, so every
/// order-preserving choice is tried (the maps here have at most two).
std::string rewrite_mismatch(const IndexingMap& before, const TupleSet& before_relation, const IndexingMap& after,
                             const TupleSet& actual) {
  if (after.is_known_empty()) return relation_mismatch(before_relation, actual);
  if (after.dim_count() != before.dim_count()) return "the rewrite changed the number of dimensions";
  if (after.results().size() != before.results().size()) return "the rewrite changed the number of results";
  if (after.runtime_count() > before.runtime_count()) return "the rewrite added runtime variables";
  std::string first_mismatch;
  for (const auto& dropped : subsets_of_size(before.runtime_count(), before.runtime_count() - after.runtime_count())) {
    std::vector<std::size_t> columns;
    columns.reserve(dropped.size());
    for (std::size_t r : dropped) columns.push_back(before.dim_count() + r);
    std::string mismatch = relation_mismatch(without_columns(before_relation, columns), actual);
    if (mismatch.empty()) return mismatch;
    if (first_mismatch.empty()) first_mismatch = mismatch;
  }
  return first_mismatch;
}

std::string rewrite_mismatch(const IndexingMap& before, const TupleSet& before_relation, const IndexingMap& after) {
  return rewrite_mismatch(before, before_relation, after, relation_of(after));
}

std::string rewrite_mismatch(const IndexingMap& before, const IndexingMap& after) {
  return rewrite_mismatch(before, relation_of(before), after);
}

// ---------------------------------------------------------------------------
// Random maps.

struct GeneratorOptions {
  int min_dims = 1, max_dims = 3;
  int max_ranges = 2;
  int max_runtimes = 1;
  int min_results = 1, max_results = 3;
  int max_constraints = 2;
  int max_depth = 2;  // nesting of floordiv / mod / ceildiv
  // Division nodes in a whole map: each is an existential variable for isl,
  // whose cost grows quickly with them, so the isl-heavy properties (count,
  // inverse) use fewer.
  int max_divisions = 3;
  // Range and runtime intervals shrink until the box has at most this many
  // points, so that enumeration (also of compositions) stays cheap in Debug
  // and sanitizer builds.
  std::int64_t max_box_points = 1000;
};

class MapGenerator {
public:
  explicit MapGenerator(std::uint32_t seed, GeneratorOptions options = {}) : m_rng(seed), m_options(options) {}

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) { return m_rng.uniform(lo, hi); }
  bool one_in(std::int64_t n) { return uniform(1, n) == 1; }

  /// 1-3 dimensions with intervals [lo, lo + size - 1], lo in [-3, 3], size
  /// in [1, 7]; 0-2 range and 0-1 runtime variables alike; 1-3 results;
  /// 0-2 constraints.
  IndexingMap map() {
    std::vector<Interval> dims(static_cast<std::size_t>(uniform(m_options.min_dims, m_options.max_dims)));
    for (Interval& b : dims) b = random_interval();
    return map_with_dims(dims);
  }

  /// A random map whose dimension intervals are `dims`.
  IndexingMap map_with_dims(const std::vector<Interval>& dims) {
    Domain d = box(dims);
    m_divisions_left = m_options.max_divisions;
    std::vector<Expr> results(static_cast<std::size_t>(uniform(m_options.min_results, m_options.max_results)));
    for (Expr& r : results) r = expr(d, m_options.max_depth);
    IndexingMap m(std::move(d), std::move(results));
    for (std::int64_t c = uniform(0, m_options.max_constraints); c > 0 && m.is_defined(); --c) add_random_constraint(m);
    return m;
  }

  /// A random quasi-affine expression over the variables of `d`: a sum of
  /// 1-3 atoms times coefficients in [-3, 3] plus a constant in [-3, 3]; an
  /// atom is a variable or (`depth` > 0, while the map's division budget
  /// lasts) a floordiv / mod / ceildiv by 2-5 of such a sum.
  Expr expr(const Domain& d, int depth) {
    Expr e = Expr::constant(uniform(-3, 3));
    for (std::int64_t t = uniform(1, 3); t > 0; --t) {
      Expr atom;
      if (depth > 0 && m_divisions_left > 0 && one_in(3)) {
        --m_divisions_left;
        Expr operand = expr(d, depth - 1);
        std::int64_t divisor = uniform(2, 5);
        switch (uniform(0, 4)) {
          case 0:
          case 1: atom = simplify::floor_div(operand, divisor); break;
          case 2:
          case 3: atom = simplify::mod(operand, divisor); break;
          default: atom = simplify::ceil_div(operand, divisor); break;
        }
      } else {
        atom = variable(d);
      }
      e = e + atom * uniform(-3, 3);
    }
    return e;
  }

  /// A point of the box of `d` (constraints ignored).
  Point box_point(const Domain& d) {
    Point p;
    Tuple* coords[simplify::k_var_kinds] = {&p.dims, &p.ranges, &p.runtimes};
    for (int k = 0; k < simplify::k_var_kinds; ++k) {
      for (const Variable& v : d.variables(static_cast<VarKind>(k)))
        coords[k]->push_back(uniform(v.bounds.lo, v.bounds.hi));
    }
    return p;
  }

  /// A constraint on `m`: usually one that holds somewhere (its interval is
  /// placed around the value at a random box point), sometimes an equality
  /// (which eliminate_determined_symbols looks for), `s mod c in [r, r]`
  /// (a residue the rules and isl must keep), or an arbitrary interval that
  /// may make the domain empty.
  void add_random_constraint(IndexingMap& m) {
    const Domain& d = m.domain();
    if (d.count(VarKind::kRange) > 0 && one_in(6)) {
      auto s = static_cast<std::uint32_t>(uniform(0, static_cast<std::int64_t>(d.count(VarKind::kRange)) - 1));
      std::int64_t c = uniform(2, 4);
      m.add_constraint(simplify::mod(Expr::range(s), c), Interval::point(uniform(0, c - 1)));
      return;
    }
    Expr e = expr(d, 1);
    if (one_in(8)) {
      std::int64_t lo = uniform(-10, 10);
      m.add_constraint(e, {lo, lo + uniform(0, 5)});
      return;
    }
    std::int64_t v = simplify::evaluate(e, box_point(d).values());
    if (one_in(4)) {
      m.add_constraint(e, Interval::point(v));
    } else {
      m.add_constraint(e, {v - uniform(0, 3), v + uniform(0, 3)});
    }
  }

private:
  Interval random_interval() {
    std::int64_t lo = uniform(-3, 3);
    return {lo, lo + uniform(1, 7) - 1};
  }

  std::vector<Variable> random_variables(int max_count) {
    std::vector<Variable> vars(static_cast<std::size_t>(uniform(0, max_count)));
    for (Variable& v : vars) v.bounds = random_interval();
    return vars;
  }

  /// `dims` plus random range and runtime variables, the symbols shrunk
  /// until the box is small enough.
  Domain box(const std::vector<Interval>& dims) {
    std::vector<Variable> dim_vars;
    dim_vars.reserve(dims.size());
    for (const Interval& b : dims) dim_vars.push_back({b, ""});
    Domain d(std::move(dim_vars), random_variables(m_options.max_ranges), random_variables(m_options.max_runtimes));
    while (box_points(d) > m_options.max_box_points) {
      Variable* widest = nullptr;
      for (VarKind kind : {VarKind::kRange, VarKind::kRuntime}) {
        for (Variable& v : d.variables(kind)) {
          if (widest == nullptr || v.bounds.size() > widest->bounds.size()) widest = &v;
        }
      }
      if (widest == nullptr || widest->bounds.size() == 1) break;
      --widest->bounds.hi;
    }
    return d;
  }

  Expr variable(const Domain& d) {
    std::vector<Var> vars;
    for (int k = 0; k < simplify::k_var_kinds; ++k) {
      for (std::uint32_t i = 0; i < d.count(static_cast<VarKind>(k)); ++i) vars.push_back({static_cast<VarKind>(k), i});
    }
    return Expr::variable(vars[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(vars.size()) - 1))]);
  }

  test::Rng m_rng;  // portable: the seeds reproduce everywhere
  GeneratorOptions m_options;
  int m_divisions_left = 0;
};

GeneratorOptions with_divisions(int max_divisions) {
  GeneratorOptions options;
  options.max_divisions = max_divisions;
  return options;
}

// ---------------------------------------------------------------------------
// Operations under test, in the forms the properties need.

IndexingMap simplified(IndexingMap m, const indexing::MapSimplifyOptions& options = {}) {
  indexing::simplify(m, options);
  return m;
}

/// The switches that change what simplify produces, at random: each
/// combination has to keep the relation.
indexing::MapSimplifyOptions random_simplify_options(MapGenerator& gen, bool use_isl) {
  indexing::MapSimplifyOptions options;
  options.replace_points = !gen.one_in(3);
  options.remove_unused_symbols = !gen.one_in(4);
  options.remove_unused_runtime_variables = gen.one_in(3);
  options.use_isl = use_isl;
  return options;
}

std::string text_of(const std::vector<IndexingMap>& maps) {
  std::string out;
  for (const IndexingMap& m : maps) out += "\n  " + indexing::print_map(m);
  return out;
}

/// Allocations in its scope are not reported as leaks: isl objects leaked
/// when a budget runs out (the [!mayfail] leak test below) would otherwise
/// fail every sanitizer run of the suite at exit.
#ifdef BRUTEFORCE_HAS_LSAN
using IgnoreKnownIslLeaks = __lsan::ScopedDisabler;
#else
struct IgnoreKnownIslLeaks {
  IgnoreKnownIslLeaks() {}  // NOLINT(modernize-use-equals-default): user-provided, so no unused-variable warning
};
#endif

/// Sets the isl operation limit of this thread for a scope and restores the
/// previous one, also when a REQUIRE leaves the scope early.
class IslLimitScope {
public:
  explicit IslLimitScope(unsigned long limit) : m_previous(indexing::IslContext::get().operation_limit()) {
    indexing::IslContext::get().set_operation_limit(limit);
  }
  ~IslLimitScope() { indexing::IslContext::get().set_operation_limit(m_previous); }
  IslLimitScope(const IslLimitScope&) = delete;
  IslLimitScope& operator=(const IslLimitScope&) = delete;

private:
  unsigned long m_previous;
};

/// Dimension intervals for a second map that cover most of `first`'s image
/// (so that most compositions are not empty), cut by up to two at each end to
/// exercise the constraints compose adds on first's results.
std::vector<Interval> dims_around_image(MapGenerator& gen, const IndexingMap& first) {
  TupleSet image = image_of(first);
  std::vector<Interval> dims;
  for (std::size_t k = 0; k < first.results().size(); ++k) {
    Interval hull{0, 0};
    if (!image.empty()) {
      hull = {INT64_MAX, INT64_MIN};
      for (const Tuple& t : image) hull = {std::min(hull.lo, t[k]), std::max(hull.hi, t[k])};
    }
    std::int64_t lo = hull.lo + std::min(gen.uniform(0, 2), hull.size() - 1);
    dims.push_back({lo, std::max(lo, hull.hi - gen.uniform(0, 2))});
  }
  return dims;
}

}  // namespace

// ---------------------------------------------------------------------------
// 1. simplify and the symbol clean-ups keep the relation.

TEST_CASE("simplify keeps the relation of random maps and finds every empty one", "[bruteforce]") {
  MapGenerator gen(101);
  for (int i = 0; i < 250; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    IndexingMap s = simplified(m, random_simplify_options(gen, true));
    INFO("simplified: " << indexing::print_map(s));
    TupleSet relation = relation_of(m);
    TupleSet simplified_relation = relation_of(s);
    CHECK(rewrite_mismatch(m, relation, s, simplified_relation) == "");
    // With isl, emptiness is decided exactly.
    bool empty = relation.empty();
    CHECK(s.is_known_empty() == empty);
    CHECK(indexing::is_empty(m) == std::optional<bool>(empty));
    // Simplified maps are inputs too (rescaled symbols, tightened intervals).
    CHECK(rewrite_mismatch(s, simplified_relation, simplified(s)) == "");
  }
}

TEST_CASE("the rule-based simplifier alone keeps the relation of random maps", "[bruteforce]") {
  MapGenerator gen(102);
  for (int i = 0; i < 300; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    IndexingMap s = simplified(m, random_simplify_options(gen, false));
    INFO("simplified: " << indexing::print_map(s));
    TupleSet relation = relation_of(m);
    CHECK(rewrite_mismatch(m, relation, s) == "");
    // Without isl, emptiness is found only sometimes, but never wrongly.
    if (s.is_known_empty()) CHECK(relation.empty());
  }
}

TEST_CASE("simplify with verify accepts what simplify produces", "[bruteforce]") {
  MapGenerator gen(103, with_divisions(2));
  for (int i = 0; i < 100; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    IndexingMap s = simplified(m);
    INFO("simplified: " << indexing::print_map(s));
    indexing::MapSimplifyOptions options;
    options.verify = true;
    IndexingMap verified;
    CHECK_NOTHROW(verified = simplified(m, options));
    CHECK(verified == s);
  }
}

// With remove_unused_runtime_variables (XLA's behaviour) simplify drops an
// unused or single-valued runtime variable; `verify` must then compare the
// relations over the dimensions alone (a regression: it used to throw).
TEST_CASE("simplify with verify accepts dropping a runtime variable", "[bruteforce]") {
  indexing::MapSimplifyOptions options;
  options.remove_unused_runtime_variables = true;
  for (const char* text : {"(d0){rt0} -> (d0), domain: d0 in [0, 3], rt0 in [0, 3]",
                           "(d0){rt0} -> (d0 + rt0), domain: d0 in [0, 3], rt0 in [2, 2]"}) {
    IndexingMap m = indexing::parse_map(text);
    INFO("map: " << text);
    IndexingMap s = simplified(m, options);
    INFO("simplified: " << indexing::print_map(s));
    CHECK(rewrite_mismatch(m, s) == "");  // the rewrite itself is right
    indexing::MapSimplifyOptions verifying = options;
    verifying.verify = true;
    CHECK_NOTHROW(simplified(m, verifying));
  }
}

TEST_CASE("the symbol clean-ups keep the relation of random maps", "[bruteforce]") {
  MapGenerator gen(104);
  for (int i = 0; i < 200; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    TupleSet relation = relation_of(m);
    IndexingMap unused = m;
    indexing::remove_unused_symbols(unused, gen.one_in(2));
    INFO("remove_unused_symbols: " << indexing::print_map(unused));
    CHECK(rewrite_mismatch(m, relation, unused) == "");
    IndexingMap determined = m;
    indexing::eliminate_determined_symbols(determined);
    INFO("eliminate_determined_symbols: " << indexing::print_map(determined));
    CHECK(rewrite_mismatch(m, relation, determined) == "");
  }
}

// ---------------------------------------------------------------------------
// 2. compose

TEST_CASE("compose maps points like applying one map after the other", "[bruteforce]") {
  MapGenerator gen(201, with_divisions(2));
  for (int i = 0; i < 100; ++i) {
    IndexingMap first = gen.map();
    IndexingMap second = gen.map_with_dims(dims_around_image(gen, first));
    INFO("first: " << indexing::print_map(first));
    INFO("second: " << indexing::print_map(second));
    IndexingMap composed = indexing::compose(first, second);
    INFO("composed: " << indexing::print_map(composed));
    // Symbols: [second's ranges, first's ranges], [second's runtimes, first's runtimes].
    REQUIRE(composed.dim_count() == first.dim_count());
    REQUIRE(composed.range_count() == first.range_count() + second.range_count());
    REQUIRE(composed.runtime_count() == first.runtime_count() + second.runtime_count());
    TupleSet expected = composed_relation_of(first, second);
    CHECK(relation_mismatch(expected, relation_of(composed)) == "");
    IndexingMap s = simplified(composed);
    INFO("simplified: " << indexing::print_map(s));
    CHECK(rewrite_mismatch(composed, expected, s) == "");
  }
}

// ---------------------------------------------------------------------------
// 3. counting

TEST_CASE("count_domain, count_image and count_relation match enumeration", "[bruteforce]") {
  MapGenerator gen(301, with_divisions(1));
  for (int i = 0; i < 100; ++i) {
    IndexingMap m = gen.map();
    for (const IndexingMap& map : {m, simplified(m)}) {
      INFO("map: " << indexing::print_map(map));
      TupleSet pairs = relation_of(map);
      indexing::Count domain = indexing::count_domain(map);
      CHECK(domain.exact);
      CHECK(domain.value == count_domain_points(map));
      indexing::Count image = indexing::count_image(map);
      CHECK(image.exact);
      CHECK(image.value == static_cast<std::int64_t>(results_part(pairs, map).size()));
      indexing::Count relation = indexing::count_relation(map);
      CHECK(relation.exact);
      CHECK(relation.value == static_cast<std::int64_t>(pairs.size()));
    }
  }
}

// ---------------------------------------------------------------------------
// 4. inverse

TEST_CASE("the inverse pieces together are the reversed relation", "[bruteforce]") {
  MapGenerator gen(401, with_divisions(1));
  for (int i = 0; i < 100; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    const bool simplify_pieces = !gen.one_in(3);
    INFO("simplified pieces: " << simplify_pieces);
    std::vector<IndexingMap> pieces = indexing::inverse(m, simplify_pieces);
    INFO("inverse:" << text_of(pieces));
    TupleSet inverse_relation;
    for (const IndexingMap& piece : pieces) {
      INFO("piece: " << indexing::print_map(piece));
      CHECK_FALSE(piece.approximate());
      if (piece.is_known_empty()) continue;
      // Dimensions: the original results; runtimes stay; results: the original dimensions.
      CHECK(piece.dim_count() == m.results().size());
      CHECK(piece.runtime_count() == m.runtime_count());
      CHECK(piece.results().size() == m.dim_count());
      TupleSet rel = relation_of(piece);
      inverse_relation.insert(rel.begin(), rel.end());
    }
    CHECK(relation_mismatch(reversed(relation_of(m), m), inverse_relation) == "");
  }
}

// Found by the property above: the inverse of a map whose domain is empty
// but not yet KNOWN EMPTY used to be an over-approximation with points,
// marked approximate (inverse() took "no bound for a result" for an
// exhausted budget).
TEST_CASE("the inverse of an empty map is exact and empty", "[bruteforce]") {
  IndexingMap m = indexing::parse_map("(d0) -> (d0), domain: d0 in [0, 3], d0 * 2 in [7, 7]");
  REQUIRE(m.is_defined());
  REQUIRE(count_domain_points(m) == 0);
  std::vector<IndexingMap> pieces = indexing::inverse(m);
  INFO("inverse:" << text_of(pieces));
  for (const IndexingMap& piece : pieces) {
    CHECK_FALSE(piece.approximate());
    CHECK(relation_of(piece).empty());
  }
}

// ---------------------------------------------------------------------------
// 5. text form

TEST_CASE("print_map and parse_map round-trip random maps", "[bruteforce]") {
  MapGenerator gen(501);
  indexing::MapPrintOptions multi_line;
  multi_line.layout = indexing::MapLayout::kMultiLine;
  for (int i = 0; i < 300; ++i) {
    IndexingMap m = gen.map();
    for (const IndexingMap& map : {m, simplified(m)}) {
      for (const indexing::MapPrintOptions& layout : {indexing::MapPrintOptions{}, multi_line}) {
        std::string text = indexing::print_map(map, layout);
        INFO("map: " << text);
        IndexingMap parsed = indexing::parse_map(text);
        INFO("parsed: " << indexing::print_map(parsed));
        if (map.is_known_empty()) {
          // `KNOWN EMPTY` does not spell out the variable counts the map
          // keeps, so only the state can come back.
          CHECK(parsed.is_known_empty());
        } else {
          CHECK(parsed == map);
        }
      }
    }
  }
}

// Found by the property above: the constructors folded
// `(x floordiv a) floordiv b` into `x floordiv (a * b)` except after pulling
// a constant out of the outer operand, so equal expressions built in
// different ways were different trees and the text form did not round-trip
// (`(d0 floordiv 2) floordiv 2 + 1` parsed as `d0 floordiv 4 + 1`).
TEST_CASE("nested floordivs fold however they are built", "[bruteforce]") {
  const Expr d0 = Expr::dim(0);
  CHECK(simplify::floor_div(simplify::floor_div(d0, 2) + 2, 2) == simplify::floor_div(d0, 4) + 1);
  CHECK(simplify::ceil_div(simplify::ceil_div(d0 * 3 + 1, 5), 2) == simplify::floor_div(d0 * 3, 10) + 1);
  IndexingMap m(Domain({{{0, 9}, ""}}, {}, {}), {simplify::floor_div(simplify::floor_div(d0, 2) + 2, 2)});
  INFO("map: " << indexing::print_map(m));
  CHECK(indexing::parse_map(indexing::print_map(m)) == m);
}

// ---------------------------------------------------------------------------
// 6. semantic equality

TEST_CASE("are_equal agrees with enumeration", "[bruteforce]") {
  MapGenerator gen(601, with_divisions(2));
  for (int i = 0; i < 100; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    TupleSet relation = relation_of(m);

    IndexingMap s = simplified(m);
    INFO("simplified: " << indexing::print_map(s));
    CHECK(indexing::are_equal(m, s) == std::optional<bool>(true));

    // One result moved by one: a different relation unless the map is empty.
    IndexingMap shifted = m;
    if (shifted.is_defined()) {
      auto k = static_cast<std::size_t>(gen.uniform(0, static_cast<std::int64_t>(m.results().size()) - 1));
      shifted.results()[k] = shifted.results()[k] + 1;
    }
    INFO("shifted: " << indexing::print_map(shifted));
    bool same = relation == relation_of(shifted);
    CHECK(indexing::are_equal(m, shifted) == std::optional<bool>(same));
    CHECK(indexing::are_equal(shifted, s) == std::optional<bool>(same));

    // One more constraint: equal exactly when no tuple is lost with the
    // points it removes.
    IndexingMap narrowed = m;
    if (narrowed.is_defined()) {
      Expr e = gen.expr(m.domain(), 1);
      std::int64_t v = simplify::evaluate(e, gen.box_point(m.domain()).values());
      narrowed.add_constraint(e, {v - gen.uniform(0, 4), v + gen.uniform(0, 4)});
    }
    INFO("narrowed: " << indexing::print_map(narrowed));
    CHECK(indexing::are_equal(m, narrowed) == std::optional<bool>(relation == relation_of(narrowed)));
  }
}

namespace {

// `m` with one result moved by 0 or 1 and, half the time, one more constraint near a point of its
// box: often the same relation, often one that differs in a few points.
IndexingMap nearby_map(MapGenerator& gen, const IndexingMap& m) {
  IndexingMap other = m;
  if (!other.is_defined()) return other;
  auto k = static_cast<std::size_t>(gen.uniform(0, static_cast<std::int64_t>(m.results().size()) - 1));
  other.results()[k] = other.results()[k] + gen.uniform(0, 1);
  Expr e = gen.expr(m.domain(), 1);
  std::int64_t v = simplify::evaluate(e, gen.box_point(m.domain()).values());
  if (gen.one_in(2)) other.add_constraint(e, {v - gen.uniform(0, 4), v + gen.uniform(0, 4)});
  return other;
}

}  // namespace

TEST_CASE("differ_at_a_corner and differ_at_a_sample only prove what enumeration sees", "[bruteforce]") {
  MapGenerator gen(607, with_divisions(2));
  int corner_fired = 0, sample_fired = 0;
  for (int i = 0; i < 150; ++i) {
    IndexingMap m = gen.map();
    IndexingMap other = nearby_map(gen, m);
    INFO("map: " << indexing::print_map(m));
    INFO("other: " << indexing::print_map(other));
    const bool same = relation_of(m) == relation_of(other);
    for (std::int64_t limit : {1, 256, 4096}) {
      if (indexing::differ_at_a_corner(m, other, limit)) {
        CHECK_FALSE(same);
        ++corner_fired;
      }
      if (indexing::differ_at_a_sample(m, other, limit)) {
        CHECK_FALSE(same);
        ++sample_fired;
      }
    }
  }
  CHECK(corner_fired > 0);
  CHECK(sample_fired > 0);
}

TEST_CASE("image_signature: maps of equal relations have equal signatures", "[bruteforce]") {
  MapGenerator gen(619, with_divisions(2));
  int told_apart = 0, same_relations = 0;
  for (int i = 0; i < 200; ++i) {
    IndexingMap m = gen.map();
    IndexingMap other = gen.one_in(3) ? m : nearby_map(gen, m);
    // The same relation written otherwise: simplified, or with a constraint that always holds.
    if (gen.one_in(3) && other.is_defined()) indexing::simplify(other, indexing::SimplifyPolicy::kExact);
    INFO("map: " << indexing::print_map(m));
    INFO("other: " << indexing::print_map(other));
    const bool same = relation_of(m) == relation_of(other);
    const auto x = indexing::image_signature(m, 4096);
    const auto y = indexing::image_signature(other, 4096);
    if (same) {
      ++same_relations;
      if (x && y) CHECK(*x == *y);
    } else if (x && y && *x != *y) {
      ++told_apart;
    }
  }
  CHECK(same_relations > 0);
  CHECK(told_apart > 0);
  // It fires on a difference at the fixed points and not on one elsewhere.
  const IndexingMap a = indexing::parse_map("(d0) -> (d0 + 3), domain: d0 in [0, 7]");
  const IndexingMap b = indexing::parse_map("(d0) -> (5), domain: d0 in [0, 7]");
  const IndexingMap c = indexing::parse_map("(d0) -> (d0 + 3), domain: d0 in [0, 7], d0 + 1 in [1, 7]");
  CHECK(*indexing::image_signature(a, 256) != *indexing::image_signature(b, 256));
  CHECK(*indexing::image_signature(a, 256) == *indexing::image_signature(c, 256));
  CHECK(indexing::are_equal(a, c) == std::optional<bool>(false));
  // Nothing past the enumeration limit, for UNDEFINED maps or maps with replica ids.
  const IndexingMap wide =
      indexing::parse_map("(d0)[s0, s1] -> (s0 + s1), domain: d0 in [0, 3], s0 in [0, 99], s1 in [0, 99]");
  CHECK_FALSE(indexing::image_signature(wide, 256));
  CHECK(indexing::image_signature(wide, 20000));
  CHECK_FALSE(indexing::image_signature(IndexingMap::undefined("no maps"), 256));
}

TEST_CASE("differ_at_a_sample: pieces that differ inside the box, where the corners see nothing") {
  // Two pieces of a chain of dynamic-update-slices (a real GPU dump): each corner of the box lies
  // outside both domains, so only a point inside one of them tells them apart.
  const IndexingMap a = indexing::parse_map(
      "(d0, d1){rt0, rt1, rt2} -> (), domain: d0 in [0, 3], d1 in [0, 3], rt0 in [0, 91], rt1 in [1, 95], "
      "rt2 in [5, 96], d0 - rt0 + rt1 in [4, 98], d0 - rt2 + rt1 in [-95, -1]");
  const IndexingMap b = indexing::parse_map(
      "(d0, d1){rt0, rt1, rt2} -> (), domain: d0 in [0, 3], d1 in [0, 3], rt0 in [5, 96], rt1 in [1, 95], "
      "rt2 in [0, 91], d0 - rt0 + rt1 in [-95, -1], d0 - rt2 + rt1 in [4, 98]");
  CHECK_FALSE(indexing::differ_at_a_corner(a, b, 256));
  CHECK(indexing::differ_at_a_sample(a, b, 256));
  CHECK(indexing::are_equal(a, b) == std::optional<bool>(false));
  // Equal relations written differently: no point tells them apart.
  const IndexingMap c = indexing::parse_map("(d0) -> (d0), domain: d0 in [0, 7], d0 mod 2 in [0, 0]");
  const IndexingMap d =
      indexing::parse_map("(d0)[s0] -> (s0 * 2), domain: d0 in [0, 7], s0 in [0, 3], d0 - s0 * 2 in [0, 0]");
  CHECK_FALSE(indexing::differ_at_a_sample(c, d, 256));
  CHECK_FALSE(indexing::differ_at_a_sample(a, a, 256));
  CHECK(indexing::are_equal(c, d) == std::optional<bool>(true));
}

TEST_CASE("the final-map memo answers like simplify and insert_unique", "[bruteforce]") {
  MapGenerator gen(613, with_divisions(2));
  indexing::FinalMapMemo memo;
  for (int round = 0; round < 20; ++round) {
    // Sets drawn from a small pool, so that maps and pairs repeat.
    std::vector<IndexingMap> pool;
    pool.reserve(6);
    for (int i = 0; i < 6; ++i) pool.push_back(gen.map_with_dims({{0, 3}, {0, 2}}));
    std::vector<IndexingMap> sequence;
    sequence.reserve(12);
    for (int i = 0; i < 12; ++i) sequence.push_back(pool[static_cast<std::size_t>(gen.uniform(0, 5))]);
    // Twice, like two outputs of a call reading an operand through the same maps.
    for (int pass = 0; pass < 2; ++pass) {
      indexing::MapSet expected, got;
      std::vector<std::uint32_t> ids;
      for (const IndexingMap& m : sequence) {
        IndexingMap a = m, b = m;
        indexing::simplify(a, indexing::SimplifyPolicy::kExact);
        memo.simplify(b, indexing::SimplifyPolicy::kExact);
        CHECK(indexing::MapIdentical()(a, b));
        indexing::insert_unique(expected, a, true);
        memo.insert_unique(got, ids, b);
      }
      REQUIRE(expected.size() == got.size());
      CHECK(ids.size() == got.size());
      for (std::size_t k = 0; k < got.size(); ++k) CHECK(indexing::MapIdentical()(expected[k], got[k]));
    }
  }
  CHECK(memo.simplify_hits() > 0);
  CHECK(memo.verdict_hits() > 0);
}

TEST_CASE("the composition-pair memo answers a pair only for the same two maps, field by field") {
  using Step = indexing::ComposedPairMemo::Step;
  indexing::ComposedPairMemo memo;
  const IndexingMap a = indexing::parse_map("(d0) -> (d0 * 2), domain: d0 in [0, 7]");
  const IndexingMap b = indexing::parse_map("(d0) -> (d0 + 1), domain: d0 in [0, 15]");
  IndexingMap b_approximate = b;
  b_approximate.mark_approximate("a reason");
  const auto hash = [](const IndexingMap& m) { return indexing::MapIdentityHash()(m); };
  CHECK(memo.find(a, hash(a), b, hash(b)) == nullptr);
  IndexingMap composed = indexing::compose(a, b);
  memo.insert(a, hash(a), b, hash(b), Step{composed, false});
  const Step* known = memo.find(a, hash(a), b, hash(b));
  REQUIRE(known != nullptr);
  CHECK(indexing::MapIdentical()(known->map, composed));
  // Another order, or a map equal as a relation but approximate: not the same step.
  CHECK(memo.find(b, hash(b), a, hash(a)) == nullptr);
  CHECK(memo.find(a, hash(a), b_approximate, hash(b_approximate)) == nullptr);
  // A step over the caps is remembered as such.
  memo.insert(b, hash(b), a, hash(a), Step{IndexingMap(), true});
  REQUIRE(memo.find(b, hash(b), a, hash(a)) != nullptr);
  CHECK(memo.find(b, hash(b), a, hash(a))->over_caps);
  {
    // Another isl budget may simplify otherwise: everything is forgotten.
    const indexing::ScopedIslOperationLimit smaller(indexing::IslContext::get().operation_limit() / 2);
    CHECK(memo.find(a, hash(a), b, hash(b)) == nullptr);
  }
  memo.insert(a, hash(a), b, hash(b), Step{composed, false});
  memo.clear();
  CHECK(memo.find(a, hash(a), b, hash(b)) == nullptr);
}

TEST_CASE("the final-map memo keeps each map's approximation reason", "[bruteforce]") {
  // One relation, approximate for two reasons: the memo must not answer the
  // second from the first (the printed reason would depend on analysis order).
  indexing::FinalMapMemo memo;
  IndexingMap first = indexing::parse_map("(d0) -> ((d0 floordiv 4) * 4 + d0 mod 4), domain: d0 in [0, 15]");
  IndexingMap second = first;
  first.mark_approximate("first reason");
  second.mark_approximate("second reason");
  memo.simplify(first, indexing::SimplifyPolicy::kExact);
  memo.simplify(second, indexing::SimplifyPolicy::kExact);
  CHECK(indexing::print_map(first) == "(d0) -> (d0), domain: d0 in [0, 15] (approximate: first reason)");
  CHECK(indexing::print_map(second) == "(d0) -> (d0), domain: d0 in [0, 15] (approximate: second reason)");
}

// ---------------------------------------------------------------------------
// The isl budget: out of operations, every answer is still sound: marked as
// an over-approximation (or an inexact count) that contains the exact one.

TEST_CASE("an exhausted isl budget gives sound over-approximations", "[bruteforce]") {
  MapGenerator gen(701);
  for (int i = 0; i < 80; ++i) {
    IndexingMap m = gen.map();
    INFO("map: " << indexing::print_map(m));
    IndexingMap shifted = m;
    if (shifted.is_defined()) shifted.results()[0] = shifted.results()[0] + 1;
    std::vector<IndexingMap> pieces;
    IndexingMap s;
    indexing::Count domain, image, relation;
    std::optional<bool> equal_to_shifted;
    {
      IgnoreKnownIslLeaks known_leak;
      IslLimitScope tiny(1);
      pieces = indexing::inverse(m);
      s = simplified(m);
      domain = indexing::count_domain(m);
      image = indexing::count_image(m);
      relation = indexing::count_relation(m);
      equal_to_shifted = indexing::are_equal(m, shifted);
    }
    INFO("inverse:" << text_of(pieces));
    INFO("simplified: " << indexing::print_map(s));
    TupleSet exact_relation = relation_of(m);
    // Simplify falls back to its exact symbolic rules.
    CHECK(rewrite_mismatch(m, exact_relation, s) == "");
    // Counts are upper bounds, equal to the truth when they say exact.
    auto check_count = [](indexing::Count count, std::size_t truth) {
      CHECK(count.value >= static_cast<std::int64_t>(truth));
      if (count.exact) CHECK(count.value == static_cast<std::int64_t>(truth));
    };
    check_count(domain, static_cast<std::size_t>(count_domain_points(m)));
    check_count(image, results_part(exact_relation, m).size());
    check_count(relation, exact_relation.size());
    // are_equal may give up, but not answer wrongly.
    if (equal_to_shifted.has_value()) CHECK(*equal_to_shifted == (exact_relation == relation_of(shifted)));

    if (m.is_known_empty()) continue;  // no isl needed: an exact empty inverse
    REQUIRE(pieces.size() == 1);
    CHECK(pieces[0].approximate());
    for (const Tuple& t : reversed(exact_relation, m)) {
      INFO("reversed tuple " << to_string(t));
      CHECK(relation_contains(pieces[0], t));
    }
  }
}

TEST_CASE("count_image falls back to an upper bound and recovers with the budget", "[bruteforce]") {
  // Neither injective nor a projection, too many points to enumerate, two results over the same
  // variables (no sum of one-variable terms): the image needs isl.
  IndexingMap sum = indexing::parse_map("(d0, d1) -> (d0 + d1, d0 * 2 + d1 * 2), domain: d0 in [0, 99], d1 in [0, 99]");
  const unsigned long before = indexing::IslContext::get().operation_limit();
  indexing::Count bounded;
  {
    IgnoreKnownIslLeaks known_leak;
    IslLimitScope tiny(1);
    bounded = indexing::count_image(sum);
  }
  CHECK(indexing::IslContext::get().operation_limit() == before);
  CHECK_FALSE(bounded.exact);
  CHECK(bounded.value >= 199);
  // The budget is back, and the isl context still answers exactly.
  indexing::Count exact = indexing::count_image(sum);
  CHECK(exact.exact);
  CHECK(exact.value == 199);
}

TEST_CASE("count_image enumerates an image whose variables that matter span few points, without isl") {
  // 4 x 4 points: counted point by point, so even a budget of one isl operation answers exactly.
  const IndexingMap small = indexing::parse_map("(d0, d1) -> (d0 + d1), domain: d0 in [0, 3], d1 in [0, 3]");
  // 10^6 points, but the result reads only rt0 and s0 (d0 and d1 may take any value): 40 x 25.
  const IndexingMap units = indexing::parse_map(
      "(d0, d1)[s0]{rt0} -> ((rt0 * 64 + s0) floordiv 8), domain: d0 in [0, 999], d1 in [0, 999], s0 in [0, 24], "
      "rt0 in [0, 39]");
  // Every variable read and 10^4 points: left to isl, which the budget stops.
  const IndexingMap large =
      indexing::parse_map("(d0, d1) -> (d0 + d1, d0 * 2 + d1 * 2), domain: d0 in [0, 99], d1 in [0, 99]");
  indexing::Count a, b, c;
  {
    IgnoreKnownIslLeaks known_leak;
    IslLimitScope tiny(1);
    a = indexing::count_image(small);
    b = indexing::count_image(units);
    c = indexing::count_image(large);
  }
  CHECK(a.exact);
  CHECK(a.value == 7);
  CHECK(b.exact);
  std::set<std::int64_t> unit_values;
  for (std::int64_t rt0 = 0; rt0 <= 39; ++rt0)
    for (std::int64_t s0 = 0; s0 <= 24; ++s0) unit_values.insert((rt0 * 64 + s0) / 8);
  CHECK(b.value == static_cast<std::int64_t>(unit_values.size()));
  CHECK_FALSE(c.exact);
}

namespace {

// An exact count of `expected`'s elements.
template <typename Set>
void check_counts(const indexing::Count& count, const Set& expected) {
  CHECK(count.exact);
  CHECK(count.value == static_cast<std::int64_t>(expected.size()));
}

// The images' counts of `maps` under a budget of one isl operation: exact only where isl was not needed.
std::vector<indexing::Count> counts_without_isl(const std::vector<IndexingMap>& maps) {
  IgnoreKnownIslLeaks known_leak;
  IslLimitScope tiny(1);
  std::vector<indexing::Count> out;
  out.reserve(maps.size());
  for (const IndexingMap& m : maps) out.push_back(indexing::count_image(m));
  return out;
}

}  // namespace

TEST_CASE("count_image multiplies the images of results over unlinked variables, without isl") {
  // 125,000 points, every variable read, but each result over its own: 25 x 13 x 3 images.
  const IndexingMap groups = indexing::parse_map(
      "(d0, d1, d2) -> (d0 floordiv 2, d1 floordiv 4, d2 mod 3), domain: d0 in [0, 49], d1 in [0, 49], "
      "d2 in [0, 49]");
  // Equal and constant results leave the size as it is: 200 x 200 images of 4 results.
  const IndexingMap repeated =
      indexing::parse_map("(d0, d1) -> (d0, d1 floordiv 3, d0, 7), domain: d0 in [0, 199], d1 in [0, 199]");
  // A layer's dynamic-slice: d1 and rt0 only meet in a constraint, the result reads s0 alone.
  const IndexingMap slice = indexing::parse_map(
      "(d0, d1)[s0]{rt0} -> ((s0 * 2) floordiv 8), domain: d0 in [0, 999], d1 in [0, 999], s0 in [0, 4095], "
      "rt0 in [0, 999], d1 - rt0 in [0, 0]");
  const std::vector<indexing::Count> counts = counts_without_isl({groups, repeated, slice});
  std::set<std::vector<std::int64_t>> group_images, repeated_images;
  for (std::int64_t d0 = 0; d0 <= 49; ++d0)
    for (std::int64_t d1 = 0; d1 <= 49; ++d1)
      for (std::int64_t d2 = 0; d2 <= 49; ++d2) group_images.insert({d0 / 2, d1 / 4, d2 % 3});
  for (std::int64_t d0 = 0; d0 <= 199; ++d0)
    for (std::int64_t d1 = 0; d1 <= 199; ++d1) repeated_images.insert({d0, d1 / 3, d0, 7});
  std::set<std::int64_t> slice_images;
  for (std::int64_t s0 = 0; s0 <= 4095; ++s0) slice_images.insert(s0 * 2 / 8);
  check_counts(counts[0], group_images);
  check_counts(counts[1], repeated_images);
  check_counts(counts[2], slice_images);
}

TEST_CASE("count_image counts a sum of one-variable terms as a bit set, without isl") {
  // A convolution window's transfer units: 40 x 40 x 7 x 7 x 3 points, the sum divided by 8.
  const IndexingMap window = indexing::parse_map(
      "(d0, d1)[s0, s1, s2] -> ((d0 * 1380 + d1 * 6 + s0 * 690 + s1 * 3 + s2) floordiv 8), domain: d0 in [0, 39], "
      "d1 in [0, 39], s0 in [0, 6], s1 in [0, 6], s2 in [0, 2]");
  // A term that divides its variable, and a negative coefficient; then the remainders of a sum.
  const IndexingMap rows = indexing::parse_map(
      "(d0, d1, d2) -> (d0 * 1824 - d1 * 16 + d2 floordiv 8), domain: d0 in [0, 55], d1 in [0, 55], d2 in [0, 63]");
  const IndexingMap remainders = indexing::parse_map(
      "(d0, d1, d2) -> ((d0 * 24 + d1 * 10 + d2) mod 97), domain: d0 in [0, 29], d1 in [0, 29], d2 in [0, 29]");
  const std::vector<indexing::Count> counts = counts_without_isl({window, rows, remainders});
  std::set<std::int64_t> window_units, row_values, remainder_values;
  for (std::int64_t d0 = 0; d0 <= 39; ++d0)
    for (std::int64_t d1 = 0; d1 <= 39; ++d1)
      for (std::int64_t s0 = 0; s0 <= 6; ++s0)
        for (std::int64_t s1 = 0; s1 <= 6; ++s1)
          for (std::int64_t s2 = 0; s2 <= 2; ++s2)
            window_units.insert((d0 * 1380 + d1 * 6 + s0 * 690 + s1 * 3 + s2) / 8);
  for (std::int64_t d0 = 0; d0 <= 55; ++d0)
    for (std::int64_t d1 = 0; d1 <= 55; ++d1)
      for (std::int64_t d2 = 0; d2 <= 63; ++d2) row_values.insert(d0 * 1824 - d1 * 16 + d2 / 8);
  for (std::int64_t d0 = 0; d0 <= 29; ++d0)
    for (std::int64_t d1 = 0; d1 <= 29; ++d1)
      for (std::int64_t d2 = 0; d2 <= 29; ++d2) remainder_values.insert((d0 * 24 + d1 * 10 + d2) % 97);
  check_counts(counts[0], window_units);
  check_counts(counts[1], row_values);
  check_counts(counts[2], remainder_values);
}

TEST_CASE("count_image leaves to isl a sum whose terms share a variable") {
  // d0 in two terms: the values are no sum of independent sets (the bit set would over-count).
  // 1.08 million points: past what the budget's fallback enumerates (2^20).
  const IndexingMap shared =
      indexing::parse_map("(d0, d1) -> (d0 * 3 + d0 floordiv 2 + d1 * 7), domain: d0 in [0, 1199], d1 in [0, 899]");
  CHECK_FALSE(counts_without_isl({shared})[0].exact);
  std::set<std::int64_t> values;
  for (std::int64_t d0 = 0; d0 <= 1199; ++d0)
    for (std::int64_t d1 = 0; d1 <= 899; ++d1) values.insert(d0 * 3 + d0 / 2 + d1 * 7);
  check_counts(indexing::count_image(shared), values);
}

TEST_CASE("count_image does not multiply results a constraint links") {
  // The product of the two results' images would be 50 x 25; the constraint leaves fewer pairs.
  const IndexingMap linked = indexing::parse_map(
      "(d0, d1) -> (d0 floordiv 2, d1 floordiv 4), domain: d0 in [0, 99], d1 in [0, 99], d0 + d1 in [0, 50]");
  std::set<std::pair<std::int64_t, std::int64_t>> images;
  for (std::int64_t d0 = 0; d0 <= 99; ++d0)
    for (std::int64_t d1 = 0; d0 + d1 <= 50 && d1 <= 99; ++d1) images.insert({d0 / 2, d1 / 4});
  const indexing::Count n = indexing::count_image(linked);
  check_counts(n, images);
  CHECK(n.value < 50 * 25);
}

#ifdef BRUTEFORCE_HAS_LSAN
namespace {
/// Runs `fn` in a forked child and tells whether LeakSanitizer found leaks
/// there: a leak in this process would fail the whole run at exit, not
/// just one test.
template <typename Fn>
bool leaks_in_child(Fn&& fn) {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    fn();
    // The report would look like a failure of the whole run: keep it quiet.
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
    _exit(__lsan_do_recoverable_leak_check() != 0 ? 1 : 0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
}  // namespace
#endif

// Regression: the isl bridge once held local spaces in raw pointers, so a
// budget running out half-way through building a set leaked them. Found by
// running this file with HLO_INDEX_SANITIZE=ON.
TEST_CASE("an exhausted isl budget leaks no memory", "[bruteforce]") {
#ifdef BRUTEFORCE_HAS_LSAN
  IndexingMap sum = indexing::parse_map("(d0, d1) -> (d0 + d1), domain: d0 in [0, 3], d1 in [0, 3]");
  CHECK_FALSE(leaks_in_child([&] {
    IslLimitScope tiny(1);
    (void)indexing::count_image(sum);
  }));
#else
  SUCCEED("needs LeakSanitizer: configure with -DHLO_INDEX_SANITIZE=ON");
#endif
}

TEST_CASE("count: domains past 2^63 points are counted exactly in 128 bits") {
  using simplify::Wide;
  // 2^32 * 2^31 points: 2^63, one more than int64 holds.
  const indexing::Count c = indexing::count_domain(
      indexing::parse_map("(d0, d1) -> (d0, d1), domain: d0 in [0, 4294967295], d1 in [0, 2147483647]"));
  CHECK(c.wide == Wide{1} << 63);
  CHECK(c.wide_exact);
  CHECK(c.value == std::numeric_limits<std::int64_t>::max());
  CHECK_FALSE(c.exact);  // the int64 value is saturated
  // The whole int64 range of one variable: 2^64 points; with a constraint the
  // closed form counts per residue class: every other point.
  const indexing::Count all = indexing::count_domain(
      indexing::parse_map("(d0) -> (d0), domain: d0 in [-9223372036854775808, 9223372036854775807]"));
  CHECK(all.wide == Wide{1} << 64);
  const indexing::Count even = indexing::count_domain(indexing::parse_map(
      "(d0) -> (d0 floordiv 2), domain: d0 in [-9223372036854775808, 9223372036854775807], d0 mod 2 in [0, 0]"));
  CHECK(even.wide == Wide{1} << 63);
  CHECK(even.wide_exact);
  CHECK(simplify::to_string(even.wide) == "9223372036854775808");
}

}  // namespace test_indexing_bruteforce_cases

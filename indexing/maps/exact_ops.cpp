#include "indexing/maps/exact_ops.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "indexing/maps/isl_answer_memo.hpp"
#include "indexing/maps/isl_bridge.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/non_affine.hpp"
#include "indexing/maps/shared_memo.hpp"
#include "simplify/compiled_expr.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

// The variables of a domain, without its constraints.
Domain variables_of(const Domain& d) {
  return Domain(d.variables(VarKind::kDim), d.variables(VarKind::kRange), d.variables(VarKind::kRuntime));
}

// All constraints but `skip`.
std::vector<Constraint> constraints_except(const Domain& d, const Constraint& skip) {
  std::vector<Constraint> out;
  for (const Constraint& c : d.constraints()) {
    if (!(c == skip)) out.push_back(c);
  }
  return out;
}

// Bounded: past it the memo starts over.
constexpr std::size_t k_max_memoised_emptiness = 1 << 15;

unsigned count_of(const IndexingMap& m, VarKind k) { return static_cast<unsigned>(m.domain().count(k)); }

// { (d, rt, r) } with the range variables projected out.
isl::set relation_set(const IndexingMap& m) {
  isl::set graph = graph_set(m.domain(), m.results());
  return project_out(graph, count_of(m, VarKind::kDim), count_of(m, VarKind::kRange));
}

}  // namespace

std::optional<bool> is_empty(const IndexingMap& map) {
  if (map.is_known_empty()) return true;
  if (map.is_undefined()) return std::nullopt;
  if (map.domain().has_empty_bounds()) return true;
  if (map.domain().constraints().empty()) return false;
  // Kept for the process: the simplification of every composition step asks whether a domain is
  // empty, and the steps of a wide call's outputs share their domains.
  struct Key {
    IndexingMap domain_only;  // the question is about the domain alone
    unsigned long operation_limit;
    bool operator==(const Key& other) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const { return MapHash()(key.domain_only) ^ key.operation_limit; }
  };
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<Key, IslAnswer<std::optional<bool>>, KeyHash>(k_max_memoised_emptiness);
  return recall_isl_answer(memo, Key{IndexingMap(map.domain(), {}), IslContext::get().operation_limit()}, [&] {
    return within_isl_budget([&] { return std::optional<bool>(graph_set(map.domain(), {}).is_empty()); },
                             [] { return std::optional<bool>(); });
  });
}

namespace {

// A map's constraints and results compiled once (CompiledExpr): the proofs below evaluate them
// at every combination of the range variables (625 for two 25-element ones) at several points.
class CompiledMap {
public:
  explicit CompiledMap(const IndexingMap& m) {
    for (const Constraint& c : m.domain().constraints())
      m_constraints.emplace_back(simplify::CompiledExpr(c.expr), c.interval);
    for (const Expr& r : m.results()) m_results.emplace_back(r);
  }
  bool inside(const simplify::VarValues& values) const {
    return std::all_of(m_constraints.begin(), m_constraints.end(),
                       [&](const auto& c) { return c.second.contains(c.first(values)); });
  }
  std::int64_t result(std::size_t i, const simplify::VarValues& values) const { return m_results[i](values); }

private:
  std::vector<std::pair<simplify::CompiledExpr, Interval>> m_constraints;
  std::vector<simplify::CompiledExpr> m_results;
};

// Every image of (d, rt) under `m`, found by enumerating the range variables
// (at most `limit` combinations), handed to `visit` with repeats until it
// returns true. nullopt when there are more combinations; true when `visit`
// stopped the enumeration; false when every image was visited (none when
// (d, rt) is not in the domain). One buffer for every image: the proofs of
// inequality below ask this for each pair a deduplication compares.
// `compiled`: `m` compiled, or null to evaluate its trees.
template <typename Visit>
std::optional<bool> visit_images_at(const IndexingMap& m, const CompiledMap* compiled,
                                    const std::vector<std::int64_t>& d, const std::vector<std::int64_t>& rt,
                                    std::int64_t limit, Visit visit) {
  const Domain& domain = m.domain();
  for (Var v : domain.all_variables()) {
    if (v.kind == VarKind::kRange) continue;
    const std::int64_t x = v.kind == VarKind::kDim ? d[v.index] : rt[v.index];
    if (!domain.bounds(v).contains(x)) return false;
  }
  const auto& ranges = domain.variables(VarKind::kRange);
  std::int64_t combinations = 1;
  for (const Variable& r : ranges) {
    combinations = simplify::saturating_mul(combinations, r.bounds.size());
    if (combinations > limit) return std::nullopt;
  }
  std::vector<std::int64_t> s;
  s.reserve(ranges.size());
  for (const Variable& r : ranges) s.push_back(r.bounds.lo);
  std::vector<std::int64_t> image(m.results().size());
  for (std::int64_t n = 0; n < combinations; ++n) {
    const simplify::VarValues values{d, s, rt};
    const bool inside =
        compiled != nullptr
            ? compiled->inside(values)
            : std::all_of(domain.constraints().begin(), domain.constraints().end(),
                          [&](const Constraint& c) { return c.interval.contains(simplify::evaluate(c.expr, values)); });
    if (inside) {
      for (std::size_t i = 0; i < image.size(); ++i)
        image[i] = compiled != nullptr ? compiled->result(i, values) : simplify::evaluate(m.results()[i], values);
      if (visit(std::as_const(image))) return true;
    }
    for (std::size_t k = 0; k < s.size(); ++k) {
      if (++s[k] <= ranges[k].bounds.hi) break;
      s[k] = ranges[k].bounds.lo;
    }
  }
  return false;
}

// Whether enumerating `m`'s range variables at a point takes enough steps to compile it first.
bool worth_compiling(const IndexingMap& m) {
  constexpr std::int64_t k_min_compiled_combinations = 8;
  std::int64_t combinations = 1;
  for (const Variable& r : m.domain().variables(VarKind::kRange))
    combinations = simplify::saturating_mul(combinations, r.bounds.size());
  return combinations >= k_min_compiled_combinations;
}

// A set of result tuples of one arity: sorted, without repeats, stored flat.
struct ImageSet {
  std::vector<std::int64_t> flat;
  bool any = false;  // a map without results has one empty image or none
  bool operator==(const ImageSet& other) const = default;
};

// The images of (d, rt) under `m` (visit_images_at); nullopt past `limit`.
std::optional<ImageSet> images_at(const IndexingMap& m, const CompiledMap* compiled, const std::vector<std::int64_t>& d,
                                  const std::vector<std::int64_t>& rt, std::int64_t limit) {
  ImageSet out;
  const auto visited = visit_images_at(m, compiled, d, rt, limit, [&](const std::vector<std::int64_t>& image) {
    out.any = true;
    out.flat.insert(out.flat.end(), image.begin(), image.end());
    return false;
  });
  if (!visited) return std::nullopt;
  const std::size_t arity = m.results().size();
  if (arity == 0 || out.flat.size() <= arity) return out;
  std::vector<std::vector<std::int64_t>> tuples;
  for (auto it = out.flat.begin(); it != out.flat.end(); it += static_cast<std::ptrdiff_t>(arity))
    tuples.emplace_back(it, it + static_cast<std::ptrdiff_t>(arity));
  std::sort(tuples.begin(), tuples.end());
  tuples.erase(std::unique(tuples.begin(), tuples.end()), tuples.end());
  out.flat.clear();
  for (const auto& t : tuples) out.flat.insert(out.flat.end(), t.begin(), t.end());
  return out;
}

}  // namespace

bool differ_at_a_corner(const IndexingMap& a, const IndexingMap& b, std::int64_t limit) {
  if (!a.is_defined() || !b.is_defined() || a.dim_count() != b.dim_count() || a.runtime_count() != b.runtime_count()) {
    return false;
  }
  try {
    const std::optional<CompiledMap> ca = worth_compiling(a) ? std::optional<CompiledMap>(a) : std::nullopt;
    const std::optional<CompiledMap> cb = worth_compiling(b) ? std::optional<CompiledMap>(b) : std::nullopt;
    for (const IndexingMap* m : {&a, &b}) {
      for (bool upper : {false, true}) {
        std::vector<std::int64_t> d, rt;
        for (const Variable& v : m->domain().variables(VarKind::kDim)) d.push_back(upper ? v.bounds.hi : v.bounds.lo);
        for (const Variable& v : m->domain().variables(VarKind::kRuntime))
          rt.push_back(upper ? v.bounds.hi : v.bounds.lo);
        auto x = images_at(a, ca ? &*ca : nullptr, d, rt, limit), y = images_at(b, cb ? &*cb : nullptr, d, rt, limit);
        if (x && y && *x != *y) return true;
      }
    }
  } catch (const simplify::ArithmeticOverflow&) {
    return false;
  }
  return false;
}

namespace {

std::optional<bool> are_equal_uncached(const IndexingMap& a, const IndexingMap& b);

// Relations between spaces of other ranks, or whose runtime values come from elsewhere, differ
// (defined maps without replica ids): no isl question, and no memo entry either.
bool of_other_structure(const IndexingMap& a, const IndexingMap& b) {
  if (a.dim_count() != b.dim_count() || a.runtime_count() != b.runtime_count() ||
      a.results().size() != b.results().size() || a.runtime_sources().size() != b.runtime_sources().size()) {
    return true;
  }
  for (std::size_t i = 0; i < a.runtime_sources().size(); ++i) {
    const RuntimeSource& x = a.runtime_sources()[i];
    const RuntimeSource& y = b.runtime_sources()[i];
    if (x.source != y.source || x.operand != y.operand || x.feasible != y.feasible ||
        (x.map == nullptr) != (y.map == nullptr))
      return true;
  }
  return false;
}

// Bounded: past it the memo starts over.
constexpr std::size_t k_max_memoised_equalities = 1 << 15;
constexpr std::size_t k_max_memoised_samples = 1 << 15;

// An integer point of the map's domain as values of [d, s, rt] (Domain::position order); nullopt
// when it is empty, beyond isl (non-affine) or past isl's budget. Kept for the process: the
// deduplication of a set asks for each member's point against every other member.
std::optional<std::vector<std::int64_t>> domain_sample(const IndexingMap& map) {
  const Domain& domain = map.domain();
  if (domain.has_empty_bounds() || has_non_affine(map)) return std::nullopt;
  if (domain.constraints().empty()) {
    std::vector<std::int64_t> corner;
    for (Var v : domain.all_variables()) corner.push_back(domain.bounds(v).lo);
    return corner;
  }
  struct Key {
    IndexingMap domain_only;
    unsigned long operation_limit;
    bool operator==(const Key& other) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const { return MapHash()(key.domain_only) ^ key.operation_limit; }
  };
  using Sample = std::optional<std::vector<std::int64_t>>;
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<Key, IslAnswer<Sample>, KeyHash>(k_max_memoised_samples);
  return recall_isl_answer(memo, Key{IndexingMap(domain, {}), IslContext::get().operation_limit()}, [&] {
    return within_isl_budget([&] { return sample_point(graph_set(domain, {})); }, [] { return Sample(); });
  });
}

// Whether `x` relates a point (its domain's sample and the image there) that `y` does not.
bool image_missing_in(const IndexingMap& x, const IndexingMap& y, std::int64_t limit) {
  const std::optional<std::vector<std::int64_t>> point = domain_sample(x);
  if (!point) return false;
  const auto dims = static_cast<std::ptrdiff_t>(x.dim_count());
  const auto ranges = static_cast<std::ptrdiff_t>(x.domain().count(VarKind::kRange));
  const std::vector<std::int64_t> d(point->begin(), point->begin() + dims);
  const std::vector<std::int64_t> s(point->begin() + dims, point->begin() + dims + ranges);
  const std::vector<std::int64_t> rt(point->begin() + dims + ranges, point->end());
  const simplify::VarValues values{d, s, rt};
  std::vector<std::int64_t> image;
  for (const Expr& e : x.results()) image.push_back(simplify::evaluate(e, values));
  const std::optional<CompiledMap> compiled = worth_compiling(y) ? std::optional<CompiledMap>(y) : std::nullopt;
  const auto found = visit_images_at(y, compiled ? &*compiled : nullptr, d, rt, limit,
                                     [&](const std::vector<std::int64_t>& at) { return at == image; });
  return found.has_value() && !*found;
}

}  // namespace

bool differ_at_a_sample(const IndexingMap& a, const IndexingMap& b, std::int64_t limit) {
  if (!a.is_defined() || !b.is_defined() || a.dim_count() != b.dim_count() || a.runtime_count() != b.runtime_count() ||
      a.results().size() != b.results().size()) {
    return false;
  }
  try {
    return image_missing_in(a, b, limit) || image_missing_in(b, a, limit);
  } catch (const simplify::ArithmeticOverflow&) {
    return false;
  }
}

std::optional<std::uint64_t> image_signature(const IndexingMap& map, std::int64_t limit) {
  if (!map.is_defined() || map.is_known_empty() || map.has_replica_id()) return std::nullopt;
  auto mix = [](std::uint64_t& seed, std::uint64_t value) {
    seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
  };
  std::uint64_t signature = 0;
  mix(signature, map.dim_count());
  mix(signature, map.runtime_count());
  mix(signature, map.results().size());
  try {
    const std::optional<CompiledMap> compiled = worth_compiling(map) ? std::optional<CompiledMap>(map) : std::nullopt;
    for (const std::int64_t value : {0, 1}) {
      const std::vector<std::int64_t> d(map.dim_count(), value), rt(map.runtime_count(), value);
      const std::optional<ImageSet> images = images_at(map, compiled ? &*compiled : nullptr, d, rt, limit);
      if (!images) return std::nullopt;
      mix(signature, images->any ? 1 : 0);
      mix(signature, images->flat.size());
      for (const std::int64_t x : images->flat) mix(signature, static_cast<std::uint64_t>(x));
    }
  } catch (const simplify::ArithmeticOverflow&) {
    return std::nullopt;
  }
  return signature;
}

std::optional<bool> are_equal(const IndexingMap& a, const IndexingMap& b) {
  if (a == b) return are_equal_uncached(a, b);  // no isl question
  if (a.is_defined() && b.is_defined() && !a.is_known_empty() && !b.is_known_empty() && !a.has_replica_id() &&
      !b.has_replica_id() && of_other_structure(a, b))
    return false;
  // Kept for the process: the deduplication of a fused body's reads asks for every pair of a set,
  // and the sets of its outputs and of the fusions of one layer share most pairs (a chain of
  // selects on a real GPU dump: 13 pieces per operand, 3 s per fusion).
  struct Key {
    IndexingMap a, b;
    unsigned long operation_limit;  // a smaller budget may leave unknown what a larger one decides
    bool operator==(const Key& other) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const {
      return MapHash()(key.a) * 31 + MapHash()(key.b) + key.operation_limit;
    }
  };
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<Key, IslAnswer<std::optional<bool>>, KeyHash>(k_max_memoised_equalities);
  // Equality is symmetric: one entry for both orders.
  const bool swap = MapHash()(b) < MapHash()(a);
  return recall_isl_answer(memo, Key{swap ? b : a, swap ? a : b, IslContext::get().operation_limit()},
                           [&] { return are_equal_uncached(a, b); });
}

namespace {

std::optional<bool> are_equal_uncached(const IndexingMap& a, const IndexingMap& b) {
  if (a.is_undefined() || b.is_undefined()) return a.is_undefined() && b.is_undefined();
  if (a.is_known_empty() || b.is_known_empty()) {
    auto ea = is_empty(a), eb = is_empty(b);
    if (!ea.has_value() || !eb.has_value()) return std::nullopt;
    return *ea && *eb;
  }
  // The replica id is part of the relation: (index) -> (element, replica).
  if (a.replica_id().size() != b.replica_id().size()) return false;
  if (a.has_replica_id()) return are_equal(replica_id_as_results(a), replica_id_as_results(b));
  if (of_other_structure(a, b)) return false;
  for (std::size_t i = 0; i < a.runtime_sources().size(); ++i) {
    const RuntimeSource& x = a.runtime_sources()[i];
    const RuntimeSource& y = b.runtime_sources()[i];
    if (x.map) {
      auto same = are_equal(*x.map, *y.map);
      if (!same.has_value() || !*same) return same;
    }
  }
  if (a == b) return true;
  // A cheap proof of inequality before asking isl.
  if (differ_at_a_corner(a, b, 256) || differ_at_a_sample(a, b, 256)) return false;
  if (has_non_affine(a) || has_non_affine(b)) {
    // Beyond isl: compared point by point when small, else unknown.
    auto pa = enumerate_relation(a, /*with_inputs=*/true);
    auto pb = pa ? enumerate_relation(b, /*with_inputs=*/true) : std::nullopt;
    if (!pa || !pb) return std::nullopt;
    return *pa == *pb;
  }
  return within_isl_budget([&] { return std::optional<bool>(relation_set(a).is_equal(relation_set(b))); },
                           [] { return std::optional<bool>(); });
}

}  // namespace

namespace {

// Bounded: past it the memo starts over.
constexpr std::size_t k_max_memoised_tightenings = 1 << 14;

// `v mod c in [a, b]` on a bare variable: the rules already keep v's
// interval exact for it (merge_mod_constraints aligns the bounds), and
// interval evaluation already drops it when it is implied.
bool rules_keep_exact(const Constraint& c) {
  return c.expr.kind() == Expr::Kind::kMod && c.expr.operand().is_variable();
}

bool tighten_domain_within_budget(IndexingMap& map) {
  Domain& domain = map.domain();
  // Variables whose interval isl may narrow: those in a constraint the
  // rules do not handle exactly. The others are exact already.
  std::vector<Var> linked;
  std::vector<Var> with_mod;
  for (const Constraint& c : domain.constraints()) {
    if (rules_keep_exact(c)) {
      // Two residue constraints on one variable interact: isl decides.
      Var v = c.expr.operand().variable();
      if (std::find(with_mod.begin(), with_mod.end(), v) != with_mod.end()) linked.push_back(v);
      with_mod.push_back(v);
      continue;
    }
    simplify::for_each_variable(c.expr, [&](Var v) {
      if (std::find(linked.begin(), linked.end(), v) == linked.end()) linked.push_back(v);
    });
  }
  if (linked.empty()) return false;
  // One isl set per constraint, built once: dropping a constraint to test
  // whether it is redundant is then an intersection, not a rebuild.
  std::vector<isl::set> parts;
  for (const Constraint& c : domain.constraints()) parts.push_back(constraint_set(domain, c));
  // Whether constraint i is redundant is asked of the intersection of the
  // others that are still kept: the earlier ones (a prefix, intersected once
  // for all i) and the later ones that survived (built up as i goes down).
  // That is one intersection per constraint, not one per pair.
  std::vector<isl::set> before{box_set(domain)};
  for (const isl::set& part : parts) before.push_back(before.back().intersect(part));
  const isl::set full = before.back();
  if (full.is_empty()) {
    map.set_known_empty();
    return true;
  }
  bool changed = false;
  std::optional<isl::set> kept_after;
  for (std::size_t i = parts.size(); i-- > 0;) {
    // Within the others, constraint i holds everywhere: a subtraction of one small set.
    const bool redundant = !rules_keep_exact(domain.constraints()[i]) &&
                           (kept_after ? before[i].intersect(*kept_after) : before[i]).is_subset(parts[i]);
    if (redundant) {
      domain.remove_constraint(i);
      changed = true;
    } else {
      kept_after = kept_after ? kept_after->intersect(parts[i]) : parts[i];
    }
  }
  for (Var v : linked) {
    auto b = dimension_bounds(full, static_cast<unsigned>(domain.position(v)));
    if (b && *b != domain.bounds(v)) {
      domain.set_bounds(v, *b);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool tighten_domain(IndexingMap& map) {
  if (!map.is_defined() || map.domain().constraints().empty()) return false;
  auto tighten = [&] {
    return within_isl_budget([&] { return tighten_domain_within_budget(map); }, [] { return false; });
  };
  // Kept for the process: a file of many modules and the layers of one module ask for the same
  // maps again, and isl is the cost of simplifying them.
  struct Tightened {
    bool empty;
    Domain domain;
    bool changed;
  };
  struct Key {
    IndexingMap domain_only;        // the tightening reads the domain alone: maps into other operands share it
    unsigned long operation_limit;  // a smaller budget may stop where a larger one tightens
    bool operator==(const Key& other) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const { return MapHash()(key.domain_only) ^ key.operation_limit; }
  };
  // Never destroyed (shared_memo.hpp).
  static auto& memo = *new SharedMemo<Key, IslAnswer<Tightened>, KeyHash>(k_max_memoised_tightenings);
  const Tightened tightened =
      recall_isl_answer(memo, Key{IndexingMap(map.domain(), {}), IslContext::get().operation_limit()}, [&] {
        const bool changed = tighten();
        return Tightened{map.is_known_empty(), map.domain(), changed};
      });
  // The domain only (a recalled answer; a computed one is already in place): equal maps may differ
  // in what operator== leaves out (a runtime source's instruction).
  if (tightened.empty) {
    map.set_known_empty();
  } else {
    // The same variables, bounds tightened: this map's marks (Variable::contracted, not part of
    // equality) stay its own, whichever map first stored the answer.
    Domain domain = tightened.domain;
    for (int k = 0; k < simplify::k_var_kinds; ++k) {
      const auto kind = static_cast<VarKind>(k);
      const std::vector<Variable>& own = map.domain().variables(kind);
      std::vector<Variable>& into = domain.variables(kind);
      for (std::size_t i = 0; i < own.size() && i < into.size(); ++i) into[i].contracted = own[i].contracted;
    }
    map.domain() = std::move(domain);
  }
  return tightened.changed;
}

namespace {

// Per variable kind, per variable: whether the map needs it.
using UsedVariables = std::array<std::vector<bool>, simplify::k_var_kinds>;

bool is_used(const UsedVariables& used, Var v) { return used[static_cast<std::size_t>(v.kind)][v.index]; }

// Dimensions (and runtime variables unless `runtime_too`) always; the
// variables of the results and the replica id; then every variable of a
// constraint that involves a used one, until nothing grows.
UsedVariables used_variables(const IndexingMap& map, bool runtime_too) {
  const Domain& domain = map.domain();
  UsedVariables used;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    bool kept = k == static_cast<int>(VarKind::kDim) || (k == static_cast<int>(VarKind::kRuntime) && !runtime_too);
    used[static_cast<std::size_t>(k)].assign(domain.count(static_cast<VarKind>(k)), kept);
  }
  auto mark = [&](Var v) { used[static_cast<std::size_t>(v.kind)][v.index] = true; };
  for (const Expr& r : map.results()) simplify::for_each_variable(r, mark);
  for (const Expr& r : map.replica_id()) simplify::for_each_variable(r, mark);
  for (bool grew = true; grew;) {
    grew = false;
    for (const Constraint& c : domain.constraints()) {
      bool touches_used = false, touches_unused = false;
      simplify::for_each_variable(c.expr, [&](Var v) { (is_used(used, v) ? touches_used : touches_unused) = true; });
      if (touches_used && touches_unused) {
        simplify::for_each_variable(c.expr, mark);
        grew = true;
      }
    }
  }
  return used;
}

bool any_unused_symbol(const UsedVariables& used) {
  for (int k = 1; k < simplify::k_var_kinds; ++k) {
    for (bool u : used[static_cast<std::size_t>(k)])
      if (!u) return true;
  }
  return false;
}

// The constraints that mention unused variables only.
std::vector<Constraint> unused_only_constraints(const Domain& domain, const UsedVariables& used) {
  std::vector<Constraint> unused_only;
  for (const Constraint& c : domain.constraints()) {
    bool touches_used = false;
    simplify::for_each_variable(c.expr, [&](Var v) { touches_used = touches_used || is_used(used, v); });
    if (!touches_used) unused_only.push_back(c);
  }
  return unused_only;
}

// Whether `constraints` cannot hold over the variables of `domain`.
std::optional<bool> cannot_hold(const Domain& domain, const std::vector<Constraint>& constraints) {
  Domain probe(domain.variables(VarKind::kDim), domain.variables(VarKind::kRange), domain.variables(VarKind::kRuntime));
  for (const Constraint& c : constraints) (void)probe.add_constraint(c.expr, c.interval);
  return is_empty(IndexingMap(probe, {}));
}

// The map over its used variables only, renumbered, without `dropped`.
IndexingMap without_unused(const IndexingMap& map, const UsedVariables& used, const std::vector<Constraint>& dropped) {
  const Domain& domain = map.domain();
  std::vector<std::uint32_t> new_index[simplify::k_var_kinds];
  Domain kept;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    auto kind = static_cast<VarKind>(k);
    const auto& vars = domain.variables(kind);
    const std::vector<bool>& used_k = used[static_cast<std::size_t>(k)];
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < vars.size(); ++i) {
      new_index[k].push_back(used_k[i] ? next++ : UINT32_MAX);
      if (used_k[i]) kept.variables(kind).push_back(vars[i]);
    }
  }
  std::vector<Constraint> constraints;
  for (const Constraint& c : domain.constraints()) {
    if (std::find(dropped.begin(), dropped.end(), c) == dropped.end()) constraints.push_back(c);
  }
  std::vector<RuntimeSource> sources;
  const auto& old_sources = map.runtime_sources();
  const std::vector<bool>& used_runtime = used[static_cast<std::size_t>(VarKind::kRuntime)];
  for (std::size_t i = 0; i < old_sources.size() && i < used_runtime.size(); ++i) {
    if (used_runtime[i]) sources.push_back(old_sources[i]);
  }
  IndexingMap out = rewritten(map, std::move(kept), constraints, [&](Var v) {
    return Expr::variable({v.kind, new_index[static_cast<int>(v.kind)][v.index]});
  });
  out.runtime_sources() = std::move(sources);
  return out;
}

}  // namespace

bool remove_unused_symbols(IndexingMap& map, bool runtime_too) {
  if (!map.is_defined()) return false;
  const UsedVariables used = used_variables(map, runtime_too);
  if (!any_unused_symbol(used)) return false;
  // Constraints on unused variables only: the map is empty if they cannot hold.
  const std::vector<Constraint> unused_only = unused_only_constraints(map.domain(), used);
  if (!unused_only.empty()) {
    auto empty = cannot_hold(map.domain(), unused_only);
    if (!empty.has_value()) return false;  // cannot decide: keep everything
    if (*empty) {
      map.set_known_empty();
      return true;
    }
  }
  map = without_unused(map, used, unused_only);
  return true;
}

bool eliminate_determined_symbols(IndexingMap& map) {
  if (!map.is_defined()) return false;
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    const auto constraints = map.domain().constraints();
    for (const Constraint& c : constraints) {
      if (!c.interval.is_point()) continue;
      std::vector<simplify::Term> terms;
      std::int64_t constant;
      simplify::decompose_linear(c.expr, terms, constant);
      for (const simplify::Term& t : terms) {
        if (!t.atom.is_variable() || t.atom.variable().kind != VarKind::kRange) continue;
        if (t.coefficient != 1 && t.coefficient != -1) continue;
        Var s = t.atom.variable();
        Expr rest = c.expr - t.atom * t.coefficient;
        if (simplify::uses_variable(rest, s)) continue;
        // t.coefficient * s + rest == value  =>  s == (value - rest) / coefficient.
        Expr value = (Expr::constant(c.interval.lo) - rest) * t.coefficient;
        Interval bounds = map.domain().bounds(s);
        IndexingMap next = rewritten(map, variables_of(map.domain()), constraints_except(map.domain(), c),
                                     [&](Var v) { return v == s ? value : Expr::variable(v); });
        next.add_constraint(value, bounds);  // s's interval, now on its value
        map = std::move(next);
        changed = again = true;
        break;
      }
      if (again) break;
    }
  }
  if (changed) remove_unused_symbols(map);
  return changed;
}

}  // namespace hlo_index::indexing

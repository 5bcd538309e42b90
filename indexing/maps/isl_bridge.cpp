#include "indexing/maps/isl_bridge.hpp"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <string>
#include <tuple>

#include "simplify/constraint_rules.hpp"
#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

isl_ctx* raw_ctx() { return IslContext::get().raw(); }

// Every raw isl call that can fail goes through here: a null result is
// either the operation budget or the deadline (IslLimitReached) or a bug.
template <typename T>
T* check(T* p) {
  if (p != nullptr) return p;
  isl_ctx* ctx = raw_ctx();
  const isl_error error = isl_ctx_last_error(ctx);
  const bool quota = error == isl_error_quota || error == isl_error_abort;  // abort: the deadline
  const char* msg = isl_ctx_last_error_msg(ctx);
  std::string text = msg != nullptr ? msg : "unknown isl error";
  isl_ctx_reset_error(ctx);
  if (quota) throw IslLimitReached();
  throw std::runtime_error("isl: " + text);
}

void check_ok(isl_stat s) {
  if (s == isl_stat_error) check<void>(nullptr);
}
isl_size check_size(isl_size n) {
  if (n < 0) check<void>(nullptr);
  return n;
}
bool check_bool(isl_bool b) {
  if (b == isl_bool_error) check<void>(nullptr);
  return b == isl_bool_true;
}

// C++ exceptions must not unwind through isl's C frames: callbacks catch
// everything, stop the iteration, and the caller rethrows.
template <typename F>
isl_stat guarded(std::exception_ptr& error, F&& body) {
  try {
    return body();
  } catch (...) {
    error = std::current_exception();
    return isl_stat_error;
  }
}

void rethrow_or_check(const std::exception_ptr& error, isl_stat status) {
  if (error) std::rethrow_exception(error);
  check_ok(status);
}

isl_val* val(std::int64_t v) { return check(isl_val_int_from_si(raw_ctx(), v)); }

std::optional<std::int64_t> to_int64(isl_val* v) {
  std::optional<std::int64_t> out;
  if (isl_val_is_int(v) == isl_bool_true) {
    // isl_val_get_num_si is exact only when the value fits a long.
    isl_val* big = isl_val_int_from_si(raw_ctx(), std::numeric_limits<long>::max());
    isl_val* small = isl_val_int_from_si(raw_ctx(), std::numeric_limits<long>::min());
    if (isl_val_le(v, big) == isl_bool_true && isl_val_ge(v, small) == isl_bool_true) out = isl_val_get_num_si(v);
    isl_val_free(big);
    isl_val_free(small);
  }
  isl_val_free(v);
  return out;
}

std::int64_t rational_times(isl_val* v, isl_val* den) {
  auto r = to_int64(check(isl_val_mul(v, isl_val_copy(den))));
  if (!r) throw simplify::ArithmeticOverflow("isl coefficient out of range");
  return *r;
}

// Set dimensions of a graph: the domain's variables in Domain::position
// order, then one per result.
unsigned position_of(const Domain& domain, Var v) { return static_cast<unsigned>(domain.position(v)); }

// Owned local space: freed on every path, exceptions included.
struct LocalSpaceDeleter {
  void operator()(isl_local_space* ls) const { isl_local_space_free(ls); }
};
using LocalSpace = std::unique_ptr<isl_local_space, LocalSpaceDeleter>;

LocalSpace local_space_of(const isl::set& set) {
  return LocalSpace(check(isl_local_space_from_space(check(isl_set_get_space(set.get())))));
}

isl::aff constant_aff(const LocalSpace& ls, std::int64_t v) {
  return isl::manage(check(isl_aff_val_on_domain(isl_local_space_copy(ls.get()), val(v))));
}

// Nested floordiv/mod deeper than this are not given to isl: some of its
// routines on integer divisions (isl_basic_map_div_is_known) recurse through
// every dependent division without counting operations or checking for an
// abort, so their time grows exponentially with the nesting depth and neither
// the budget nor the deadline stops them (a chain of 14 ceildiv/mod pairs took
// 18 s past a 2 s deadline). Real maps nest a few levels; deeper ones are
// answered as when the budget runs out: soundly, marked approximate.
// (k_max_isl_division_depth, isl_bridge.hpp)

isl::aff to_aff(const Expr& e, const LocalSpace& ls, const Domain& domain, int division_depth = 0) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return constant_aff(ls, e.constant_value());
    case Expr::Kind::kVariable:
      return isl::manage(
          check(isl_aff_var_on_domain(isl_local_space_copy(ls.get()), isl_dim_set, position_of(domain, e.variable()))));
    case Expr::Kind::kSum: {
      isl::aff acc = constant_aff(ls, e.sum_constant());
      for (const simplify::Term& t : e.terms())
        acc = acc.add(to_aff(t.atom, ls, domain, division_depth).scale(t.coefficient));
      return acc;
    }
    case Expr::Kind::kFloorDiv:
    case Expr::Kind::kMod: {
      if (division_depth >= k_max_isl_division_depth) throw IslLimitReached();
      isl::aff operand = to_aff(e.operand(), ls, domain, division_depth + 1);
      return e.kind() == Expr::Kind::kMod ? operand.mod(e.divisor()) : operand.scale_down(e.divisor()).floor();
    }
    case Expr::Kind::kNonAffine:
      // isl has no such term; callers abstract the node first
      // (abstract_non_affine), and a path that does not is answered as when
      // isl's budget runs out: soundly, marked approximate.
      throw IslLimitReached();
  }
  return constant_aff(ls, 0);
}

isl::set constrain(const isl::set& set, const isl::aff& aff, Interval i, const LocalSpace& ls) {
  return set.intersect(aff.ge_set(constant_aff(ls, i.lo))).intersect(aff.le_set(constant_aff(ls, i.hi)));
}

// The universe of `n` set dimensions and its local space.
std::pair<isl::set, LocalSpace> universe(unsigned n) {
  isl::set set = isl::manage(check(isl_set_universe(check(isl_space_set_alloc(raw_ctx(), 0, n)))));
  LocalSpace ls = local_space_of(set);
  return {set, std::move(ls)};
}

isl::set build_graph(const Domain& domain, std::span<const Expr> results, bool with_constraints) {
  const auto n_vars = static_cast<unsigned>(domain.variable_count());
  auto [set, ls] = universe(n_vars + static_cast<unsigned>(results.size()));
  for (Var v : domain.all_variables()) {
    unsigned p = position_of(domain, v);
    set = isl::manage(check(isl_set_lower_bound_val(set.release(), isl_dim_set, p, val(domain.bounds(v).lo))));
    set = isl::manage(check(isl_set_upper_bound_val(set.release(), isl_dim_set, p, val(domain.bounds(v).hi))));
  }
  if (with_constraints) {
    for (const simplify::Constraint& c : domain.constraints()) {
      set = constrain(set, to_aff(c.expr, ls, domain), c.interval, ls);
    }
  }
  for (std::size_t k = 0; k < results.size(); ++k) {
    isl::aff r = isl::manage(
        check(isl_aff_var_on_domain(isl_local_space_copy(ls.get()), isl_dim_set, n_vars + static_cast<unsigned>(k))));
    set = set.intersect(to_aff(results[k], ls, domain).eq_set(r));
  }
  return set;
}

// Expression of an aff over `vars` (one per input dimension); divs of the
// aff's local space become floordivs.
Expr aff_to_expr(isl_aff* aff, std::span<const Var> vars);

// The numerator of a (possibly rational) aff, times its denominator.
Expr aff_numerator(isl_aff* aff, std::span<const Var> vars, std::int64_t& denominator) {
  isl_val* den = check(isl_aff_get_denominator_val(aff));
  auto d = to_int64(isl_val_copy(den));
  if (!d) throw simplify::ArithmeticOverflow("isl denominator out of range");
  denominator = *d;
  std::vector<simplify::Term> terms;
  isl_size n_in = isl_aff_dim(aff, isl_dim_in);
  for (isl_size i = 0; i < n_in; ++i) {
    std::int64_t c = rational_times(check(isl_aff_get_coefficient_val(aff, isl_dim_in, i)), den);
    if (c != 0) terms.push_back({Expr::variable(vars[static_cast<std::size_t>(i)]), c});
  }
  isl_size n_div = isl_aff_dim(aff, isl_dim_div);
  for (isl_size j = 0; j < n_div; ++j) {
    std::int64_t c = rational_times(check(isl_aff_get_coefficient_val(aff, isl_dim_div, j)), den);
    if (c == 0) continue;
    isl_aff* div = check(isl_aff_get_div(aff, j));
    Expr div_expr = aff_to_expr(div, vars);
    isl_aff_free(div);
    terms.push_back({div_expr, c});
  }
  std::int64_t constant = rational_times(check(isl_aff_get_constant_val(aff)), den);
  isl_val_free(den);
  return simplify::linear_combination(terms, constant);
}

Expr aff_to_expr(isl_aff* aff, std::span<const Var> vars) {
  std::int64_t den = 1;
  Expr num = aff_numerator(aff, vars, den);
  return simplify::floor_div(num, den);
}

}  // namespace

isl::set graph_set(const Domain& domain, std::span<const Expr> results) { return build_graph(domain, results, true); }

isl::set box_set(const Domain& domain) { return build_graph(domain, {}, false); }

isl::set constraint_set(const Domain& domain, const simplify::Constraint& constraint) {
  auto [set, ls] = universe(static_cast<unsigned>(domain.variable_count()));
  return constrain(set, to_aff(constraint.expr, ls, domain), constraint.interval, ls);
}

isl::set project_out(const isl::set& set, unsigned first, unsigned n) {
  if (n == 0) return set;
  return isl::manage(check(isl_set_project_out(set.copy(), isl_dim_set, first, n)));
}

std::optional<Interval> dimension_bounds(const isl::set& set, unsigned pos) {
  // An integer program per bound: much cheaper than isl_set_dim_min_val,
  // which projects out every other dimension first.
  LocalSpace ls = local_space_of(set);
  isl::aff var = isl::manage(check(isl_aff_var_on_domain(isl_local_space_copy(ls.get()), isl_dim_set, pos)));
  auto lo = to_int64(check(isl_set_min_val(set.get(), var.get())));
  auto hi = to_int64(check(isl_set_max_val(set.get(), var.get())));
  if (!lo || !hi) return std::nullopt;
  return Interval{*lo, *hi};
}

std::optional<std::vector<std::int64_t>> sample_point(const isl::set& set) {
  const std::unique_ptr<isl_point, decltype(&isl_point_free)> point(check(isl_set_sample_point(set.copy())),
                                                                    &isl_point_free);
  if (isl_point_is_void(point.get()) == isl_bool_true) return std::nullopt;
  const isl_size n = isl_set_dim(set.get(), isl_dim_set);
  std::vector<std::int64_t> out;
  for (isl_size k = 0; k < n; ++k) {
    const std::optional<std::int64_t> x = to_int64(check(isl_point_get_coordinate_val(point.get(), isl_dim_set, k)));
    if (!x) return std::nullopt;
    out.push_back(*x);
  }
  return out;
}

simplify::Wide count_points(const isl::set& set) {
  // isl counts in arbitrary precision; its decimal digits carry the count past 64 bits.
  isl_val* n = check(isl_set_count_val(set.get()));
  char* text =
      isl_val_is_int(n) == isl_bool_true && isl_val_is_nonneg(n) == isl_bool_true ? isl_val_to_str(n) : nullptr;
  isl_val_free(n);
  if (text == nullptr) throw simplify::ArithmeticOverflow("isl gave no point count");
  simplify::Wide out = 0;
  try {
    for (const char* c = text; *c != '\0'; ++c)
      out = simplify::wide_add(simplify::wide_mul(out, 10), static_cast<simplify::Wide>(*c - '0'));
  } catch (...) {
    free(text);  // NOLINT(cppcoreguidelines-no-malloc): isl allocates it
    throw;
  }
  free(text);  // NOLINT(cppcoreguidelines-no-malloc): isl allocates it
  return out;
}

bool is_injective(const isl::set& graph, unsigned n_in) {
  isl_map* map = check(isl_map_from_range(graph.copy()));
  map = check(isl_map_move_dims(map, isl_dim_in, 0, isl_dim_out, 0, n_in));
  isl_bool injective = isl_map_is_injective(map);
  isl_map_free(map);
  return check_bool(injective);
}

namespace {

// The variables `vars` name, as a domain with the given intervals: each
// kind has as many variables as its largest index in `vars` asks for.
Domain domain_over(std::span<const Var> vars, std::span<const Interval> bounds) {
  std::vector<simplify::Variable> by_kind[simplify::k_var_kinds];
  for (std::size_t i = 0; i < vars.size(); ++i) {
    auto& v = by_kind[static_cast<int>(vars[i].kind)];
    if (v.size() <= vars[i].index) v.resize(vars[i].index + 1, {Interval{0, 0}, ""});
    v[vars[i].index] = {bounds[i], ""};
  }
  return Domain(by_kind[0], by_kind[1], by_kind[2]);
}

// One isl constraint `sum + k >= 0` (or `== 0`) as `expr in interval`, with
// the canonical sign; the open side of an inequality is closed with the
// range of the expression over `box`.
simplify::Constraint symbolic_constraint(isl_constraint* c, std::span<const Var> vars, const std::vector<Expr>& divs,
                                         const simplify::RangeEvaluator& box) {
  std::vector<simplify::Term> terms;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    auto v = to_int64(check(isl_constraint_get_coefficient_val(c, isl_dim_set, static_cast<int>(i))));
    if (!v) throw simplify::ArithmeticOverflow("isl coefficient out of range");
    if (*v != 0) terms.push_back({Expr::variable(vars[i]), *v});
  }
  for (std::size_t j = 0; j < divs.size(); ++j) {
    auto v = to_int64(check(isl_constraint_get_coefficient_val(c, isl_dim_div, static_cast<int>(j))));
    if (!v) throw simplify::ArithmeticOverflow("isl coefficient out of range");
    if (*v != 0) terms.push_back({divs[j], *v});
  }
  auto k = to_int64(check(isl_constraint_get_constant_val(c)));
  if (!k) throw simplify::ArithmeticOverflow("isl constant out of range");
  Expr linear = simplify::linear_combination(terms, 0);
  if (isl_constraint_is_equality(c) == isl_bool_true) return {linear, Interval::point(-*k)};
  if (simplify::leads_negative(linear)) {
    Expr flipped = -linear;  // -linear <= k
    return {flipped, {box(flipped).lo, *k}};
  }
  return {linear, {-*k, box(linear).hi}};  // linear >= -k
}

Domain symbolic_piece(isl_basic_set* bset, std::span<const Var> vars) {
  isl::set as_set = isl::manage(check(isl_set_from_basic_set(isl_basic_set_copy(bset))));
  std::vector<Interval> bounds;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    auto b = dimension_bounds(as_set, static_cast<unsigned>(i));
    if (!b) throw std::runtime_error("isl: a piece of a bounded set is unbounded");
    bounds.push_back(*b);
  }
  Domain piece = domain_over(vars, bounds);
  // Divs first: each may use the ones before it.
  std::vector<Expr> divs;
  isl_size n_div = isl_basic_set_dim(bset, isl_dim_div);
  for (isl_size j = 0; j < n_div; ++j) {
    isl::aff div = isl::manage(check(isl_basic_set_get_div(bset, j)));
    divs.push_back(aff_to_expr(div.get(), vars));
  }
  struct State {
    std::span<const Var> vars;
    const std::vector<Expr>& divs;
    simplify::RangeEvaluator box;
    std::vector<simplify::Constraint> constraints;
    std::exception_ptr error;
  } state{vars, divs, simplify::RangeEvaluator(piece, false), {}, nullptr};
  isl_stat status = isl_basic_set_foreach_constraint(
      bset,
      [](isl_constraint* raw, void* user) -> isl_stat {
        auto& st = *static_cast<State*>(user);
        std::unique_ptr<isl_constraint, isl_constraint* (*)(isl_constraint*)> c(raw, isl_constraint_free);
        return guarded(st.error, [&] {
          st.constraints.push_back(symbolic_constraint(c.get(), st.vars, st.divs, st.box));
          return isl_stat_ok;
        });
      },
      &state);
  rethrow_or_check(state.error, status);
  // Added after the walk: the box above must not change under it.
  for (const simplify::Constraint& c : state.constraints) (void)piece.add_constraint(c.expr, c.interval);
  return piece;
}

}  // namespace

std::vector<Domain> symbolic_pieces(const isl::set& set, std::span<const Var> vars) {
  isl::set disjoint = isl::manage(check(isl_set_make_disjoint(check(isl_set_compute_divs(set.copy())))));
  struct State {
    std::span<const Var> vars;
    std::vector<Domain> pieces;
    std::exception_ptr error;
  } state{vars, {}, nullptr};
  isl_stat status = isl_set_foreach_basic_set(
      disjoint.get(),
      [](isl_basic_set* raw, void* user) -> isl_stat {
        auto& st = *static_cast<State*>(user);
        isl::basic_set bset = isl::manage(raw);  // freed on every path
        return guarded(st.error, [&] {
          st.pieces.push_back(symbolic_piece(bset.get(), st.vars));
          return isl_stat_ok;
        });
      },
      &state);
  rethrow_or_check(state.error, status);
  return std::move(state.pieces);
}

std::optional<std::vector<FunctionPiece>> function_pieces(const isl::set& graph, unsigned n_in,
                                                          std::span<const Var> vars) {
  isl_map* map = check(isl_map_from_range(graph.copy()));
  map = check(isl_map_move_dims(map, isl_dim_in, 0, isl_dim_out, 0, n_in));
  if (!check_bool(isl_map_is_single_valued(map))) {
    isl_map_free(map);
    return std::nullopt;
  }
  isl_pw_multi_aff* pma = check(isl_map_as_pw_multi_aff(map));
  struct State {
    std::span<const Var> vars;
    std::vector<FunctionPiece> pieces;
    std::exception_ptr error;
  } state{vars, {}, nullptr};
  isl_stat status = isl_pw_multi_aff_foreach_piece(
      pma,
      [](isl_set* set, isl_multi_aff* ma, void* user) -> isl_stat {
        auto& st = *static_cast<State*>(user);
        return guarded(st.error, [&]() -> isl_stat {
          FunctionPiece piece;
          piece.domain = isl::manage(set);
          isl_size n = isl_multi_aff_size(ma);
          for (isl_size k = 0; k < n; ++k) {
            isl_aff* aff = isl_multi_aff_get_at(ma, k);
            piece.results.push_back(aff_to_expr(aff, st.vars));
            isl_aff_free(aff);
          }
          isl_multi_aff_free(ma);
          st.pieces.push_back(std::move(piece));
          return isl_stat_ok;
        });
      },
      &state);
  isl_pw_multi_aff_free(pma);
  rethrow_or_check(state.error, status);
  return std::move(state.pieces);
}

namespace {

std::string leaf_tuple_name(std::size_t leaf) {
  std::string name = "L";  // appended: GCC 12's -Wrestrict misfires on "L" + std::to_string(...)
  return name.append(std::to_string(leaf));
}

std::size_t leaf_of_tuple_name(const char* name) {
  if (name == nullptr || name[0] != 'L') throw std::runtime_error("isl: a loop relation without its leaf");
  return static_cast<std::size_t>(std::stoull(name + 1));
}

}  // namespace

std::vector<LeafRelation> leaf_relation_power(std::span<const LeafRelation> step, std::int64_t power,
                                              std::span<const LeafElements> start) {
  if (power < 1) throw std::invalid_argument("leaf_relation_power: the power must be positive");
  isl_union_map* all = check(isl_union_map_empty(check(isl_space_params_alloc(raw_ctx(), 0))));
  for (const LeafRelation& r : step) {
    isl_map* map = check(isl_map_from_range(r.graph.copy()));
    map = check(isl_map_move_dims(map, isl_dim_in, 0, isl_dim_out, 0, r.n_in));
    map = check(isl_map_set_tuple_name(map, isl_dim_in, leaf_tuple_name(r.from).c_str()));
    map = check(isl_map_set_tuple_name(map, isl_dim_out, leaf_tuple_name(r.to).c_str()));
    all = check(isl_union_map_add_map(all, map));
  }
  isl::union_map powered =
      isl::manage(check(isl_union_map_fixed_power_val(check(isl_union_map_coalesce(all)), val(power))));
  isl_union_set* from = check(isl_union_set_empty(check(isl_space_params_alloc(raw_ctx(), 0))));
  for (const LeafElements& e : start) {
    isl_set* named = check(isl_set_set_tuple_name(e.elements.copy(), leaf_tuple_name(e.leaf).c_str()));
    from = check(isl_union_set_add_set(from, named));
  }
  powered = isl::manage(check(isl_union_map_intersect_domain(powered.release(), from)));
  powered = isl::manage(check(isl_union_map_coalesce(powered.release())));
  struct State {
    std::vector<LeafRelation> out;
    std::exception_ptr error;
  } state;
  isl_stat status = isl_union_map_foreach_map(
      powered.get(),
      [](isl_map* raw, void* user) -> isl_stat {
        auto& st = *static_cast<State*>(user);
        isl::map map = isl::manage(raw);  // freed on every path
        return guarded(st.error, [&] {
          LeafRelation r;
          r.from = leaf_of_tuple_name(isl_map_get_tuple_name(map.get(), isl_dim_in));
          r.to = leaf_of_tuple_name(isl_map_get_tuple_name(map.get(), isl_dim_out));
          r.n_in = static_cast<unsigned>(check_size(isl_map_dim(map.get(), isl_dim_in)));
          isl_set* flat = check(isl_set_flatten(check(isl_map_wrap(map.copy()))));
          r.graph = isl::manage(check(isl_set_reset_tuple_id(flat)));
          if (!check_bool(isl_set_is_empty(r.graph.get()))) st.out.push_back(std::move(r));
          return isl_stat_ok;
        });
      },
      &state);
  rethrow_or_check(state.error, status);
  std::sort(state.out.begin(), state.out.end(), [](const LeafRelation& a, const LeafRelation& b) {
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
  });
  return std::move(state.out);
}

Expr isl_canonical_form(const Expr& e, const Domain& domain) {
  isl::set set = graph_set(domain, {});
  LocalSpace ls = local_space_of(set);
  isl::aff aff = to_aff(e, ls, domain).gist(set);
  return aff_to_expr(aff.get(), domain.all_variables());
}

}  // namespace hlo_index::indexing

#include "indexing/isl_bridge.hpp"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/ctx.h>
#include <isl/ilp.h>
#include <isl/local_space.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <exception>
#include <memory>
#include <limits>
#include <string>

#include "simplify/range.hpp"

namespace hlo_index::indexing {

namespace {

isl_ctx* raw_ctx() { return IslContext::get().raw(); }

// Every raw isl call that can fail goes through here: a null result is
// either the operation budget (IslLimitReached) or a bug.
template <typename T>
T* check(T* p) {
  if (p != nullptr) return p;
  isl_ctx* ctx = raw_ctx();
  bool quota = isl_ctx_last_error(ctx) == isl_error_quota;
  const char* msg = isl_ctx_last_error_msg(ctx);
  std::string text = msg != nullptr ? msg : "unknown isl error";
  isl_ctx_reset_error(ctx);
  if (quota) throw IslLimitReached();
  throw std::runtime_error("isl: " + text);
}

void check_ok(isl_stat s) {
  if (s == isl_stat_error) check<void>(nullptr);
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

// Positions of variables in a graph set: [d, s, rt, r] or, for inversion,
// [r, rt, d, s].
struct Positions {
  unsigned dims, ranges, runtimes, results;
  unsigned dim_base, range_base, runtime_base, result_base;
  unsigned total() const { return dims + ranges + runtimes + results; }
  unsigned of(Var v) const {
    switch (v.kind) {
      case simplify::VarKind::kDim: return dim_base + v.index;
      case simplify::VarKind::kRange: return range_base + v.index;
      case simplify::VarKind::kRuntime: return runtime_base + v.index;
    }
    return 0;
  }
};

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

isl::aff to_aff(const Expr& e, const LocalSpace& ls, const Positions& pos) {
  switch (e.kind()) {
    case Expr::Kind::kConstant: return constant_aff(ls, e.constant_value());
    case Expr::Kind::kVariable:
      return isl::manage(check(isl_aff_var_on_domain(isl_local_space_copy(ls.get()), isl_dim_set, pos.of(e.variable()))));
    case Expr::Kind::kSum: {
      isl::aff acc = constant_aff(ls, e.sum_constant());
      for (const simplify::Term& t : e.terms()) acc = acc.add(to_aff(t.atom, ls, pos).scale(t.coefficient));
      return acc;
    }
    case Expr::Kind::kFloorDiv: return to_aff(e.operand(), ls, pos).scale_down(e.divisor()).floor();
    case Expr::Kind::kMod: return to_aff(e.operand(), ls, pos).mod(e.divisor());
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

isl::set build_graph(const Domain& domain, std::span<const Expr> results, const Positions& pos) {
  auto [set, ls] = universe(pos.total());
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    auto kind = static_cast<simplify::VarKind>(k);
    const auto& vars = domain.variables(kind);
    for (std::uint32_t i = 0; i < vars.size(); ++i) {
      unsigned p = pos.of({kind, i});
      set = isl::manage(check(isl_set_lower_bound_val(set.release(), isl_dim_set, p, val(vars[i].bounds.lo))));
      set = isl::manage(check(isl_set_upper_bound_val(set.release(), isl_dim_set, p, val(vars[i].bounds.hi))));
    }
  }
  for (const simplify::Constraint& c : domain.constraints()) set = constrain(set, to_aff(c.expr, ls, pos), c.interval, ls);
  for (std::size_t k = 0; k < results.size(); ++k) {
    isl::aff r = isl::manage(check(isl_aff_var_on_domain(isl_local_space_copy(ls.get()), isl_dim_set,
                                                         pos.result_base + static_cast<unsigned>(k))));
    set = set.intersect(to_aff(results[k], ls, pos).eq_set(r));
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

isl::set graph_set(const Domain& domain, std::span<const Expr> results) {
  Positions pos{};
  pos.dims = static_cast<unsigned>(domain.count(simplify::VarKind::kDim));
  pos.ranges = static_cast<unsigned>(domain.count(simplify::VarKind::kRange));
  pos.runtimes = static_cast<unsigned>(domain.count(simplify::VarKind::kRuntime));
  pos.results = static_cast<unsigned>(results.size());
  pos.dim_base = 0;
  pos.range_base = pos.dims;
  pos.runtime_base = pos.dims + pos.ranges;
  pos.result_base = pos.dims + pos.ranges + pos.runtimes;
  return build_graph(domain, results, pos);
}

namespace {
Positions domain_positions(const Domain& domain) {
  Positions pos{};
  pos.dims = static_cast<unsigned>(domain.count(simplify::VarKind::kDim));
  pos.ranges = static_cast<unsigned>(domain.count(simplify::VarKind::kRange));
  pos.runtimes = static_cast<unsigned>(domain.count(simplify::VarKind::kRuntime));
  pos.range_base = pos.dims;
  pos.runtime_base = pos.dims + pos.ranges;
  pos.result_base = pos.total();
  return pos;
}
}  // namespace

isl::set box_set(const Domain& domain) {
  Domain box(domain.variables(simplify::VarKind::kDim), domain.variables(simplify::VarKind::kRange),
             domain.variables(simplify::VarKind::kRuntime));
  return build_graph(box, {}, domain_positions(box));
}

isl::set constraint_set(const Domain& domain, const simplify::Constraint& constraint) {
  Positions pos = domain_positions(domain);
  auto [set, ls] = universe(pos.total());
  return constrain(set, to_aff(constraint.expr, ls, pos), constraint.interval, ls);
}

isl::set project_out(const isl::set& set, unsigned first, unsigned n) {
  if (n == 0) return set;
  return isl::manage(check(isl_set_project_out(set.copy(), isl_dim_set, first, n)));
}

isl::set project_onto(const isl::set& set, unsigned first, unsigned n) {
  isl_size total = isl_set_dim(set.get(), isl_dim_set);
  isl::set out = project_out(set, first + n, static_cast<unsigned>(total) - first - n);
  return project_out(out, 0, first);
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

std::int64_t count_points(const isl::set& set) {
  auto n = to_int64(check(isl_set_count_val(set.get())));
  if (!n) throw simplify::ArithmeticOverflow("point count out of range");
  return *n;
}

bool is_box(const isl::set& set) { return check_bool(isl_set_is_box(set.get())); }

bool is_injective(const isl::set& graph, unsigned n_in) {
  isl_map* map = check(isl_map_from_range(graph.copy()));
  map = check(isl_map_move_dims(map, isl_dim_in, 0, isl_dim_out, 0, n_in));
  isl_bool injective = isl_map_is_injective(map);
  isl_map_free(map);
  return check_bool(injective);
}

std::vector<SymbolicPiece> symbolic_pieces(const isl::set& set, std::span<const Var> vars) {
  isl_set* disjoint = check(isl_set_make_disjoint(check(isl_set_compute_divs(set.copy()))));
  struct State {
    std::span<const Var> vars;
    std::vector<SymbolicPiece> pieces;
    std::exception_ptr error;
  } state{vars, {}, nullptr};
  isl_stat status = isl_set_foreach_basic_set(
      disjoint,
      [](isl_basic_set* raw_bset, void* user) -> isl_stat {
        auto& st = *static_cast<State*>(user);
        isl::basic_set owned = isl::manage(raw_bset);  // freed on every path
        isl_basic_set* bset = owned.get();
        return guarded(st.error, [&]() -> isl_stat {
        SymbolicPiece piece;
        isl::set as_set = isl::manage(check(isl_set_from_basic_set(isl_basic_set_copy(bset))));
        for (std::size_t i = 0; i < st.vars.size(); ++i) {
          auto b = dimension_bounds(as_set, static_cast<unsigned>(i));
          if (!b) return isl_stat_error;
          piece.bounds.push_back(*b);
        }
        // Divs first: each may use the ones before it.
        std::vector<Expr> divs;
        isl_size n_div = isl_basic_set_dim(bset, isl_dim_div);
        for (isl_size j = 0; j < n_div; ++j) {
          isl_aff* div = isl_basic_set_get_div(bset, j);
          divs.push_back(aff_to_expr(div, st.vars));
          isl_aff_free(div);
        }
        // Domain of just the bounds, to close one-sided inequalities.
        Domain box;
        std::vector<simplify::Variable> dims;
        for (const Interval& b : piece.bounds) dims.push_back({b, ""});
        // vars may be of any kind; evaluate with a domain laid out by kind.
        std::vector<simplify::Variable> by_kind[simplify::k_var_kinds];
        for (std::size_t i = 0; i < st.vars.size(); ++i) {
          auto& v = by_kind[static_cast<int>(st.vars[i].kind)];
          if (v.size() <= st.vars[i].index) v.resize(st.vars[i].index + 1, {Interval{0, 0}, ""});
          v[st.vars[i].index] = {piece.bounds[i], ""};
        }
        box = Domain(by_kind[0], by_kind[1], by_kind[2]);
        simplify::RangeEvaluator ranges(box, false);
        struct ConstraintState {
          std::span<const Var> vars;
          const std::vector<Expr>& divs;
          const simplify::RangeEvaluator& ranges;
          std::vector<simplify::Constraint>& out;
          std::exception_ptr error;
        } cs{st.vars, divs, ranges, piece.constraints, nullptr};
        isl_stat s = isl_basic_set_foreach_constraint(
            bset,
            [](isl_constraint* c, void* user2) -> isl_stat {
              auto& cst = *static_cast<ConstraintState*>(user2);
              return guarded(cst.error, [&]() -> isl_stat {
              std::vector<simplify::Term> terms;
              for (std::size_t i = 0; i < cst.vars.size(); ++i) {
                auto v = to_int64(isl_constraint_get_coefficient_val(c, isl_dim_set, static_cast<int>(i)));
                if (v && *v != 0) terms.push_back({Expr::variable(cst.vars[i]), *v});
              }
              for (std::size_t j = 0; j < cst.divs.size(); ++j) {
                auto v = to_int64(isl_constraint_get_coefficient_val(c, isl_dim_div, static_cast<int>(j)));
                if (v && *v != 0) terms.push_back({cst.divs[j], *v});
              }
              auto k = to_int64(isl_constraint_get_constant_val(c));
              bool equality = isl_constraint_is_equality(c) == isl_bool_true;
              isl_constraint_free(c);
              if (!k) return isl_stat_error;
              Expr linear = simplify::linear_combination(terms, 0);
              if (equality) {
                cst.out.push_back({linear, Interval::point(-*k)});
                return isl_stat_ok;
              }
              // linear + k >= 0. Keep the expression's leading coefficient
              // positive so both halves of a two-sided bound meet.
              bool negative = linear.kind() == Expr::Kind::kSum && linear.terms()[0].coefficient < 0;
              if (negative) {
                Expr flipped = -linear;
                cst.out.push_back({flipped, {cst.ranges(flipped).lo, *k}});
              } else {
                cst.out.push_back({linear, {-*k, cst.ranges(linear).hi}});
              }
              return isl_stat_ok;
              });
            },
            &cs);
        if (cs.error) std::rethrow_exception(cs.error);
        if (s != isl_stat_ok) return isl_stat_error;
        st.pieces.push_back(std::move(piece));
        return isl_stat_ok;
        });
      },
      &state);
  isl_set_free(disjoint);
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

std::optional<Expr> isl_canonical_form(const Expr& e, const Domain& domain) {
  isl::set set = graph_set(domain, {});
  LocalSpace ls = local_space_of(set);
  isl::aff aff = to_aff(e, ls, domain_positions(domain)).gist(set);
  std::vector<Var> vars;
  for (int k = 0; k < simplify::k_var_kinds; ++k) {
    auto kind = static_cast<simplify::VarKind>(k);
    for (std::uint32_t i = 0; i < domain.count(kind); ++i) vars.push_back({kind, i});
  }
  return aff_to_expr(aff.get(), vars);
}

}  // namespace hlo_index::indexing

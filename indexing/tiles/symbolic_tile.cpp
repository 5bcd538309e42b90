#include "indexing/tiles/symbolic_tile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "simplify/expr_print.hpp"

namespace hlo_index::tiles {

namespace {

using simplify::Var;
using simplify::VarKind;
using simplify::VarValues;

std::string constraint_text(const TileConstraint& c) {
  auto operand = [](const Expr& e) {
    const std::string text = simplify::to_string(e);
    return e.is_constant() || e.is_variable() ? text : "(" + text + ")";
  };
  const std::string expr = c.modulus ? operand(c.expr) + " mod " + operand(*c.modulus) : simplify::to_string(c.expr);
  return fmt::format("{} in [{}, {}]", expr, c.interval.lo, c.interval.hi);
}

std::string conjunction_text(const std::vector<TileConstraint>& conjunction) {
  std::vector<std::string> parts;
  parts.reserve(conjunction.size());
  for (const TileConstraint& c : conjunction) parts.push_back(constraint_text(c));
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, " && "));
}

// The value of a constraint's left side at `values`, or none (a modulus of 0).
std::optional<std::int64_t> constraint_value(const TileConstraint& c, const VarValues& values) {
  const std::int64_t v = simplify::evaluate(c.expr, values);
  if (!c.modulus) return v;
  const std::int64_t m = simplify::evaluate(*c.modulus, values);
  if (m == 0) return std::nullopt;
  return v % m;  // XLA evaluates mod as C++'s %: the operands here are positive
}

bool is_constant_constraint(const TileConstraint& c) {
  return c.expr.is_constant() && (!c.modulus || c.modulus->is_constant());
}

// --- ExtractSizeAndStride ---

struct SizeAndStride {
  Expr size, stride;
  TileConstraints constraints;
};

struct Extraction {
  std::optional<SizeAndStride> value;
  std::string reason;  // when no value
};

Extraction fail(std::string reason) { return {std::nullopt, std::move(reason)}; }

const Interval& bounds_of(const indexing::IndexingMap& map, Var v) {
  return map.domain().variables(v.kind)[v.index].bounds;
}

// XLA's IfNeqOne(e, t, f, b): f when e == 1, else t, for 1 <= e <= b.
Expr if_neq_one(const Expr& e, const Expr& if_not_one, const Expr& if_one, std::int64_t b) {
  const Expr cond = floor_div(Expr::constant(b + 1) - e, b);
  return cond * if_one + (Expr::constant(1) - cond) * if_not_one;
}

// R(size): the number of values a size variable or constant spans.
std::optional<std::int64_t> span_of(const indexing::IndexingMap& map, const Expr& size) {
  if (size.is_constant()) return size.constant_value();
  if (size.is_variable() && size.variable().kind == VarKind::kDim) {
    const Interval& b = bounds_of(map, size.variable());
    if (b.lo != 0) return std::nullopt;
    return b.hi + 1;
  }
  return std::nullopt;
}

Extraction extract(const indexing::IndexingMap& map, const Expr& e);

Extraction extract_sum(const indexing::IndexingMap& map, const Expr& e) {
  std::vector<SizeAndStride> summands;
  std::vector<std::string> texts;
  for (const simplify::Term& t : e.terms()) {
    Extraction x = extract(map, t.atom);
    if (!x.value) return x;
    x.value->stride = x.value->stride * t.coefficient;
    summands.push_back(std::move(*x.value));
    texts.push_back(simplify::to_string(t.atom * t.coefficient));
  }
  if (e.sum_constant() != 0) {
    summands.push_back({Expr::constant(1), Expr::constant(0), TileConstraints::always()});
    texts.push_back(std::to_string(e.sum_constant()));
  }
  for (std::size_t k = 0; k < summands.size(); ++k) {
    if (!summands[k].stride.is_constant())
      return fail(fmt::format("the stride of summand {} is not a constant", texts[k]));
    const Expr& size = summands[k].size;
    if (!size.is_constant() && !(size.is_variable() && size.variable().kind == VarKind::kDim))
      return fail(fmt::format(
          "summand {} has size {}, neither a tile size nor a constant: the strides of a sum chain only over those "
          "(XLA's CombineStrides)",
          texts[k], simplify::to_string(size)));
  }
  std::vector<std::size_t> order(summands.size());
  std::iota(order.begin(), order.end(), 0);
  auto stride_abs = [&](std::size_t k) { return std::abs(summands[k].stride.constant_value()); };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return stride_abs(a) < stride_abs(b); });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const std::optional<std::int64_t> span = span_of(map, summands[order[k - 1]].size);
    if (!span || *span * stride_abs(order[k - 1]) != stride_abs(order[k]))
      return fail(fmt::format(
          "the strides of {} and {} do not chain ({} values of stride {} are not stride {}): the tile mixes "
          "dimensions",
          texts[order[k - 1]], texts[order[k]], span.value_or(-1), stride_abs(order[k - 1]), stride_abs(order[k])));
  }
  SizeAndStride out;
  out.size = Expr::constant(1);
  for (const SizeAndStride& s : summands) out.size = out.size * s.size;
  // The stride of the minormost summand whose size is not 1 (0 when all are 1).
  Expr stride = Expr::constant(0);
  for (auto k = order.rbegin(); k != order.rend(); ++k) {
    const SizeAndStride& s = summands[*k];
    const std::int64_t span = span_of(map, s.size).value_or(1);
    stride = if_neq_one(s.size, s.stride, stride, std::max<std::int64_t>(span, 1));
  }
  out.stride = stride;
  // (1*, partial?, full*, 1*) from the major summand down.
  std::vector<std::size_t> major(order.rbegin(), order.rend());
  TileConstraints dnf = TileConstraints::never();
  const std::size_t m = major.size();
  auto one = [&](std::size_t i) {
    return TileConstraints::of({summands[major[i]].size, std::nullopt, Interval::point(1)});
  };
  for (std::size_t p = 0; p < m; ++p) {
    for (std::size_t f = 0; f < m - p; ++f) {
      TileConstraints c = TileConstraints::always();
      for (std::size_t i = 0; i < m; ++i) {
        if (i < p || i > p + f) {
          c = c && one(i);
        } else if (i > p) {
          if (const std::optional<std::int64_t> span = span_of(map, summands[major[i]].size))
            c = c && TileConstraints::of({summands[major[i]].size, std::nullopt, Interval::point(*span)});
        }
      }
      c.simplify();
      dnf = dnf || c;
    }
  }
  TileConstraints all = TileConstraints::always();
  for (const SizeAndStride& s : summands) all = all && s.constraints;
  out.constraints = all && dnf;
  return {std::move(out), {}};
}

Extraction extract(const indexing::IndexingMap& map, const Expr& e) {
  switch (e.kind()) {
    case Expr::Kind::kConstant:
      return {SizeAndStride{Expr::constant(1), Expr::constant(0), TileConstraints::always()}, {}};
    case Expr::Kind::kVariable: {
      const Var v = e.variable();
      if (v.kind == VarKind::kDim) return {SizeAndStride{e, Expr::constant(1), TileConstraints::always()}, {}};
      if (v.kind == VarKind::kRange) {
        const Interval& b = bounds_of(map, v);
        if (b.lo != 0) return fail(fmt::format("range variable {} starts at {}, not 0", simplify::to_string(e), b.lo));
        return {SizeAndStride{Expr::constant(b.hi + 1), Expr::constant(1), TileConstraints::always()}, {}};
      }
      return fail(fmt::format("runtime variable {} is not an offset added to the result", simplify::to_string(e)));
    }
    case Expr::Kind::kSum:
      if (e.is_scaled_atom()) {
        // XLA's Mul: the atom's size, its stride times the factor (XLA drops the atom's constraints; kept
        // here: they are conditions of the atom's box).
        Extraction x = extract(map, e.terms()[0].atom);
        if (x.value) x.value->stride = x.value->stride * e.terms()[0].coefficient;
        return x;
      }
      return extract_sum(map, e);
    case Expr::Kind::kFloorDiv: {
      const Expr& d = e.operand();
      if (!(d.is_variable() && d.variable().kind == VarKind::kDim))
        return fail(fmt::format("{}: a floordiv of something other than a tile size", simplify::to_string(e)));
      return {
          SizeAndStride{floor_div(d + (e.divisor() - 1), e.divisor()), Expr::constant(1), TileConstraints::always()},
          {}};
    }
    case Expr::Kind::kMod: {
      const Expr& x = e.operand();
      const std::int64_t c = e.divisor();
      Expr n;
      if (x.is_variable() && x.variable().kind == VarKind::kDim) {
        n = x;
      } else if (x.kind() == Expr::Kind::kFloorDiv && x.operand().is_variable() &&
                 x.operand().variable().kind == VarKind::kDim) {
        n = floor_div(x.operand() + (x.divisor() - 1), x.divisor());
      } else {
        return fail(fmt::format("{}: a mod of something other than a tile size or its floordiv by a constant",
                                simplify::to_string(e)));
      }
      const Expr size = n - floor_div(n - 1, c) * c;
      const TileConstraints divides = TileConstraints::of({Expr::constant(c), n, Interval::point(0)}) ||
                                      TileConstraints::of({mod(n, c), std::nullopt, Interval::point(0)});
      return {SizeAndStride{size, Expr::constant(1), divides}, {}};
    }
    case Expr::Kind::kNonAffine: return fail(fmt::format("{} is not quasi-affine", simplify::to_string(e)));
  }
  return fail("unknown expression");
}

void name_runtime_as_symbol(Var v, std::string& out) {
  if (v.kind == VarKind::kRuntime) {
    out += fmt::format("s{}", v.index);
    return;
  }
  simplify::default_var_name(v, out);
}

}  // namespace

// --- TileConstraints ---

TileConstraints TileConstraints::never() {
  TileConstraints c;
  c.m_satisfiable = false;
  return c;
}

TileConstraints TileConstraints::of(TileConstraint c) {
  TileConstraints out;
  out.m_conjunctions.push_back({std::move(c)});
  return out;
}

TileConstraints operator&&(const TileConstraints& a, const TileConstraints& b) {
  if (!a.m_satisfiable || !b.m_satisfiable) return TileConstraints::never();
  if (a.always_satisfied()) return b;
  if (b.always_satisfied()) return a;
  TileConstraints out;
  for (const auto& x : a.m_conjunctions) {
    for (const auto& y : b.m_conjunctions) {
      std::vector<TileConstraint> merged = x;
      bool empty = false;
      for (const TileConstraint& c : y) {
        auto same = std::find_if(merged.begin(), merged.end(),
                                 [&](const TileConstraint& m) { return m.expr == c.expr && m.modulus == c.modulus; });
        if (same == merged.end()) {
          merged.push_back(c);
          continue;
        }
        same->interval = {std::max(same->interval.lo, c.interval.lo), std::min(same->interval.hi, c.interval.hi)};
        if (same->interval.empty()) empty = true;
      }
      if (!empty) out.m_conjunctions.push_back(std::move(merged));
    }
  }
  if (out.m_conjunctions.empty()) return TileConstraints::never();
  return out;
}

TileConstraints operator||(const TileConstraints& a, const TileConstraints& b) {
  if (a.always_satisfied() || b.always_satisfied()) return TileConstraints::always();
  if (!a.m_satisfiable) return b;
  if (!b.m_satisfiable) return a;
  TileConstraints out = a;
  out.m_conjunctions.insert(out.m_conjunctions.end(), b.m_conjunctions.begin(), b.m_conjunctions.end());
  return out;
}

void TileConstraints::simplify() {
  if (!m_satisfiable || m_conjunctions.empty()) return;
  std::vector<std::pair<std::string, std::vector<TileConstraint>>> kept;
  std::set<std::string> seen;
  for (std::vector<TileConstraint>& conjunction : m_conjunctions) {
    std::vector<TileConstraint> left;
    bool fails = false;
    for (TileConstraint& c : conjunction) {
      if (c.interval.empty()) {
        fails = true;
        break;
      }
      if (is_constant_constraint(c)) {
        const std::optional<std::int64_t> v = constraint_value(c, VarValues{});
        if (!v || !c.interval.contains(*v)) {
          fails = true;
          break;
        }
        continue;
      }
      left.push_back(std::move(c));
    }
    if (fails) continue;
    if (left.empty()) {
      *this = always();
      return;
    }
    std::sort(left.begin(), left.end(),
              [](const TileConstraint& x, const TileConstraint& y) { return constraint_text(x) < constraint_text(y); });
    left.erase(std::unique(left.begin(), left.end()), left.end());
    std::string text = conjunction_text(left);
    if (seen.insert(text).second) kept.emplace_back(std::move(text), std::move(left));
  }
  std::sort(kept.begin(), kept.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  m_conjunctions.clear();
  for (auto& k : kept) m_conjunctions.push_back(std::move(k.second));
  if (m_conjunctions.empty()) m_satisfiable = false;
}

bool TileConstraints::holds(std::span<const std::int64_t> sizes) const {
  if (m_conjunctions.empty()) return m_satisfiable;
  const VarValues values{sizes, {}, {}};
  return std::any_of(m_conjunctions.begin(), m_conjunctions.end(), [&](const std::vector<TileConstraint>& conj) {
    return std::all_of(conj.begin(), conj.end(), [&](const TileConstraint& c) {
      const std::optional<std::int64_t> v = constraint_value(c, values);
      return v && c.interval.contains(*v);
    });
  });
}

std::string TileConstraints::to_string() const {
  if (!m_satisfiable) return "unsatisfiable";
  if (m_conjunctions.empty()) return "always satisfied";
  std::vector<std::string> parts;
  parts.reserve(m_conjunctions.size());
  for (const auto& conj : m_conjunctions) parts.push_back(conjunction_text(conj));
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, " || "));
}

// --- the derivation ---

TileDerivation derive_symbolic_tile(const indexing::IndexingMap& map) {
  TileDerivation out;
  if (!map.is_defined()) {
    out.reason = map.is_undefined() ? "the map is UNDEFINED" : "the map is KNOWN EMPTY";
    return out;
  }
  if (map.has_replica_id()) {
    out.reason = "the map reads other replicas (an all-gather)";
    return out;
  }
  // Constraints that model right padding (a result in [0, hi]) are ignored; any other makes XLA give up.
  for (const simplify::Constraint& c : map.domain().constraints()) {
    const bool on_result = std::find(map.results().begin(), map.results().end(), c.expr) != map.results().end();
    if (!on_result || c.interval.lo != 0) {
      out.reason = fmt::format("the map's constraint {} in [{}, {}] is not a result in [0, hi] (right padding)",
                               simplify::to_string(c.expr), c.interval.lo, c.interval.hi);
      return out;
    }
  }
  SymbolicTile tile;
  tile.parameters = map.dim_count();
  for (std::size_t i = 0; i < tile.parameters; ++i) {
    const Interval& b = map.domain().variables(VarKind::kDim)[i].bounds;
    tile.bounds.push_back({b.lo + 1, b.hi + 1});
  }
  for (const simplify::Variable& v : map.domain().variables(VarKind::kRuntime)) tile.runtime.push_back(v.bounds);
  const Expr zero = Expr::constant(0);
  TileConstraints constraints = TileConstraints::always();
  for (std::size_t r = 0; r < map.results().size(); ++r) {
    const Expr& e = map.results()[r];
    const Expr offset =
        simplify::substitute(e, [&](Var v) { return v.kind == VarKind::kRuntime ? Expr::variable(v) : zero; });
    const Extraction x = extract(map, e - offset);
    if (!x.value) {
      out.reason = fmt::format("result {} ({}): {}", r, simplify::to_string(e), x.reason);
      return out;
    }
    tile.offsets.push_back(offset);
    tile.sizes.push_back(x.value->size);
    tile.strides.push_back(x.value->stride);
    constraints = constraints && x.value->constraints;
  }
  constraints.simplify();
  tile.constraints = std::move(constraints);
  if (!tile.constraints.satisfiable()) {
    out.reason = "the constraints cannot be satisfied";
    out.fix = "none: no tile sizes make this tile a strided box";
  }
  out.tile = std::move(tile);
  return out;
}

std::vector<std::int64_t> evaluate_offsets(const SymbolicTile& tile, std::span<const std::int64_t> sizes,
                                           std::span<const std::int64_t> runtime) {
  std::vector<std::int64_t> zeros(tile.runtime.size(), 0);
  const VarValues values{sizes, {}, runtime.empty() ? std::span<const std::int64_t>(zeros) : runtime};
  std::vector<std::int64_t> out;
  for (const Expr& e : tile.offsets) out.push_back(simplify::evaluate(e, values));
  return out;
}

std::vector<std::int64_t> evaluate_sizes(const SymbolicTile& tile, std::span<const std::int64_t> sizes) {
  const VarValues values{sizes, {}, {}};
  std::vector<std::int64_t> out;
  for (const Expr& e : tile.sizes) out.push_back(simplify::evaluate(e, values));
  return out;
}

std::vector<std::int64_t> evaluate_strides(const SymbolicTile& tile, std::span<const std::int64_t> sizes) {
  std::vector<std::int64_t> clamped(sizes.begin(), sizes.end());
  for (std::size_t i = 0; i < clamped.size() && i < tile.bounds.size(); ++i)
    clamped[i] = std::min(clamped[i], tile.bounds[i].hi);
  const VarValues values{clamped, {}, {}};
  std::vector<std::int64_t> out;
  for (const Expr& e : tile.strides) out.push_back(simplify::evaluate(e, values));
  return out;
}

std::string print_tile_map(std::size_t parameters, std::span<const Expr> results, bool runtime_as_symbols) {
  std::vector<std::string> dims, exprs;
  std::size_t runtime = 0;
  for (std::size_t i = 0; i < parameters; ++i) dims.push_back(fmt::format("d{}", i));
  for (const Expr& e : results) {
    simplify::for_each_variable(e, [&](Var v) {
      if (v.kind == VarKind::kRuntime) runtime = std::max<std::size_t>(runtime, v.index + 1);
    });
    exprs.push_back(runtime_as_symbols ? simplify::to_string(e, name_runtime_as_symbol) : simplify::to_string(e));
  }
  std::string symbols;
  if (runtime_as_symbols && runtime > 0) {
    std::vector<std::string> s;
    for (std::size_t i = 0; i < runtime; ++i) s.push_back(fmt::format("s{}", i));
    symbols = fmt::format("[{}]", fmt::join(s, ", "));
  }
  return fmt::format("({}){} -> ({})", fmt::join(dims, ", "), symbols, fmt::join(exprs, ", "));
}

std::string print_symbolic_tile(const SymbolicTile& tile, const std::string& indent) {
  std::string out;
  out += indent + "offset_map: " + print_tile_map(tile.parameters, tile.offsets, true) + "\n";
  out += indent + "size_map: " + print_tile_map(tile.parameters, tile.sizes) + "\n";
  out += indent + "stride_map: " + print_tile_map(tile.parameters, tile.strides) + "\n";
  if (!tile.runtime.empty()) {
    std::vector<std::string> rt;
    for (std::size_t i = 0; i < tile.runtime.size(); ++i)
      rt.push_back(fmt::format("s{} in [{}, {}]", i, tile.runtime[i].lo, tile.runtime[i].hi));
    out += indent + "rt_vars: " + fmt::format("{}", fmt::join(rt, ", ")) + "\n";
  }
  if (!tile.constraints.always_satisfied()) out += indent + "constraints: " + tile.constraints.to_string() + "\n";
  return out;
}

}  // namespace hlo_index::tiles

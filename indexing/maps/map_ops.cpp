#include "indexing/maps/map_ops.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>

#include "simplify/simplifier.hpp"

namespace hlo_index::indexing {

namespace {

std::vector<Variable> concat(const std::vector<Variable>& a, const std::vector<Variable>& b) {
  std::vector<Variable> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

}  // namespace

IndexingMap rewritten(const IndexingMap& map, Domain variables, std::span<const Constraint> constraints,
                      const std::function<Expr(Var)>& replacement) {
  std::vector<Expr> results;
  for (const Expr& r : map.results()) results.push_back(simplify::substitute(r, replacement));
  IndexingMap out(std::move(variables), std::move(results));
  for (const Constraint& c : constraints) out.add_constraint(simplify::substitute(c.expr, replacement), c.interval);
  out.runtime_sources() = map.runtime_sources();
  if (out.is_defined()) {
    for (const Expr& r : map.replica_id()) out.replica_id().push_back(simplify::substitute(r, replacement));
  }
  out.inherit_approximation(map);
  return out;
}

namespace {

// compose() when either map is UNDEFINED or KNOWN EMPTY; nothing otherwise.
std::optional<IndexingMap> compose_degenerate(const IndexingMap& first, const IndexingMap& second) {
  if (first.is_undefined() || second.is_undefined()) {
    return IndexingMap::undefined(first.is_undefined() ? first.undefined_reason() : second.undefined_reason());
  }
  // Empty in, empty out: first's dimensions, second's number of results
  // (a KNOWN EMPTY typed as text has no arity to check).
  if (first.is_known_empty() || second.is_known_empty()) {
    IndexingMap out = IndexingMap::known_empty(first);
    out.results().assign(second.results().size(), Expr());
    return out;
  }
  return std::nullopt;
}

// Runtime sources line up with the runtime variables of the composition:
// second's (now read at first's coordinates), then first's.
std::vector<RuntimeSource> composed_sources(const IndexingMap& first, const IndexingMap& second) {
  std::vector<RuntimeSource> sources;
  for (const RuntimeSource& s : second.runtime_sources()) {
    RuntimeSource composed = s;
    composed.map = nullptr;
    if (s.map) composed.map = std::make_shared<const IndexingMap>(compose(first, *s.map));
    sources.push_back(std::move(composed));
  }
  for (const RuntimeSource& s : first.runtime_sources()) sources.push_back(s);
  return sources;
}

}  // namespace

IndexingMap compose(const IndexingMap& first, const IndexingMap& second) {
  if (auto degenerate = compose_degenerate(first, second)) return std::move(*degenerate);
  if (first.results().size() != second.dim_count()) {
    throw std::invalid_argument("cannot compose: the first map has " + std::to_string(first.results().size()) +
                                " results but the second has " + std::to_string(second.dim_count()) + " dimensions");
  }
  const Domain& fd = first.domain();
  const Domain& sd = second.domain();
  const auto second_ranges = static_cast<std::uint32_t>(second.range_count());
  const auto second_runtimes = static_cast<std::uint32_t>(second.runtime_count());

  Domain domain(fd.variables(VarKind::kDim), concat(sd.variables(VarKind::kRange), fd.variables(VarKind::kRange)),
                concat(sd.variables(VarKind::kRuntime), fd.variables(VarKind::kRuntime)));
  // first's symbols move behind second's.
  auto rename_first = [&](Var v) {
    switch (v.kind) {
      case VarKind::kDim: return Expr::variable(v);
      case VarKind::kRange: return Expr::range(v.index + second_ranges);
      case VarKind::kRuntime: return Expr::runtime(v.index + second_runtimes);
    }
    return Expr::variable(v);
  };
  std::vector<Expr> first_results;
  for (const Expr& r : first.results()) first_results.push_back(simplify::substitute(r, rename_first));
  // second's dimensions become first's results; its symbols keep their numbers.
  auto through_first = [&](Var v) { return v.kind == VarKind::kDim ? first_results[v.index] : Expr::variable(v); };
  std::vector<Expr> results;
  for (const Expr& r : second.results()) results.push_back(simplify::substitute(r, through_first));

  IndexingMap out(std::move(domain), std::move(results));
  for (const Constraint& c : sd.constraints())
    out.add_constraint(simplify::substitute(c.expr, through_first), c.interval);
  for (const Constraint& c : fd.constraints())
    out.add_constraint(simplify::substitute(c.expr, rename_first), c.interval);
  for (std::size_t i = 0; i < first_results.size(); ++i) {
    out.add_constraint(first_results[i], sd.bounds({VarKind::kDim, static_cast<std::uint32_t>(i)}));
  }
  if (auto sources = composed_sources(first, second); !sources.empty()) out.runtime_sources() = std::move(sources);
  // Replica ids: first's (the collective nearer the domain) renamed like
  // first's results, then second's read at first's coordinates.
  if (out.is_defined()) {
    for (const Expr& r : first.replica_id()) out.replica_id().push_back(simplify::substitute(r, rename_first));
    for (const Expr& r : second.replica_id()) out.replica_id().push_back(simplify::substitute(r, through_first));
  }
  out.inherit_approximation(first);
  out.inherit_approximation(second);
  return out;
}

bool over_dimensions_only(const std::vector<Expr>& results) {
  bool only = true;
  for (const Expr& r : results) {
    simplify::for_each_variable(r, [&](Var v) {
      if (v.kind != VarKind::kDim) only = false;
    });
  }
  return only;
}

bool same_runtime_value(const RuntimeSource& a, const RuntimeSource& b) {
  // The producing instruction names the value; `operand` is the position it
  // was read at, which differs when one op (or two) read it twice.
  if (a.instruction < 0 || a.instruction != b.instruction) return false;
  if (a.feasible != b.feasible || a.branch_selector != b.branch_selector) return false;
  if (!a.map || !b.map || !a.map->is_defined() || !b.map->is_defined()) return false;
  if (a.map->approximate() || b.map->approximate() || a.map->has_replica_id() || b.map->has_replica_id()) return false;
  if (a.map->dim_count() != b.map->dim_count()) return false;
  // Elements named through range or runtime variables are not tied to this map's own.
  if (!over_dimensions_only(a.map->results()) || !over_dimensions_only(b.map->results())) return false;
  return a.map->results() == b.map->results();
}

bool merge_same_runtime_values(IndexingMap& map) {
  if (!map.is_defined()) return false;
  const std::vector<RuntimeSource>& sources = map.runtime_sources();
  const std::size_t n = map.runtime_count();
  const std::size_t known = std::min(n, sources.size());
  std::vector<std::uint32_t> representative(n);
  bool merged = false;
  for (std::size_t r = 0; r < n; ++r) {
    representative[r] = static_cast<std::uint32_t>(r);
    if (r >= known) continue;
    for (std::size_t q = 0; q < r; ++q) {
      if (representative[q] == q && same_runtime_value(sources[q], sources[r]) &&
          sources[q].map->dim_count() == map.dim_count()) {
        representative[r] = static_cast<std::uint32_t>(q);
        merged = true;
        break;
      }
    }
  }
  if (!merged) return false;
  const std::vector<Variable>& variables = map.domain().variables(VarKind::kRuntime);
  std::vector<std::uint32_t> renumbered(n);
  std::vector<Variable> kept;
  std::vector<RuntimeSource> kept_sources;
  for (std::size_t r = 0; r < n; ++r) {
    if (representative[r] != r) continue;
    renumbered[r] = static_cast<std::uint32_t>(kept.size());
    kept.push_back(variables[r]);
    if (r < sources.size()) kept_sources.push_back(sources[r]);
  }
  for (std::size_t r = 0; r < n; ++r) {
    if (representative[r] == r) continue;
    renumbered[r] = renumbered[representative[r]];
    Variable& into = kept[renumbered[r]];
    into.bounds = into.bounds.intersect(variables[r].bounds);
  }
  Domain domain(map.domain().variables(VarKind::kDim), map.domain().variables(VarKind::kRange), std::move(kept));
  IndexingMap out = rewritten(map, std::move(domain), map.domain().constraints(), [&](Var v) {
    return v.kind == VarKind::kRuntime ? Expr::runtime(renumbered[v.index]) : Expr::variable(v);
  });
  out.runtime_sources() = std::move(kept_sources);
  map = std::move(out);
  return true;
}

IndexingMap replica_id_as_results(const IndexingMap& map) {
  if (!map.has_replica_id()) return map;
  IndexingMap out = map;
  out.results().insert(out.results().end(), map.replica_id().begin(), map.replica_id().end());
  out.replica_id().clear();
  return out;
}

IndexingMap runtime_as_range(const IndexingMap& map) {
  if (!map.is_defined()) return map;
  const auto ranges = static_cast<std::uint32_t>(map.range_count());
  Domain variables(map.domain().variables(VarKind::kDim),
                   concat(map.domain().variables(VarKind::kRange), map.domain().variables(VarKind::kRuntime)), {});
  IndexingMap out = rewritten(map, std::move(variables), map.domain().constraints(), [&](Var v) {
    return v.kind == VarKind::kRuntime ? Expr::range(ranges + v.index) : Expr::variable(v);
  });
  out.runtime_sources().clear();
  return out;
}

IndexingMap dims_as_ranges(const IndexingMap& map) {
  if (!map.is_defined()) return map;
  const auto dims = static_cast<std::uint32_t>(map.dim_count());
  Domain variables({}, concat(map.domain().variables(VarKind::kDim), map.domain().variables(VarKind::kRange)),
                   map.domain().variables(VarKind::kRuntime));
  return rewritten(map, std::move(variables), map.domain().constraints(), [&](Var v) {
    if (v.kind == VarKind::kDim) return Expr::range(v.index);
    return v.kind == VarKind::kRange ? Expr::range(dims + v.index) : Expr::variable(v);
  });
}

}  // namespace hlo_index::indexing

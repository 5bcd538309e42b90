// The domain of an indexing map: an inclusive interval for every variable
// plus constraints `expr in [lo, hi]`. The simplifier rewrites domains; the
// isl bridge (indexing/) turns them into exact integer sets.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "simplify/expr.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::simplify {

struct Variable {
  Interval bounds;
  std::string name;  // empty: the default name (d0, s0, rt0)
  /// A range variable a dot's or convolution's contraction introduced: tiles give it a step size
  /// of its own (XLA tiles a dot's contracting dimension), where a reduce's dimension is read whole.
  /// Not part of equality: the maps are the same relation whichever op introduced the variable, and
  /// sets of maps keep deduplicating them as before (the first map of a set keeps its marks).
  bool contracted = false;
  bool operator==(const Variable& o) const { return bounds == o.bounds && name == o.name; }
};

struct Constraint {
  Expr expr;
  Interval interval;
  bool operator==(const Constraint&) const = default;
};

class Domain {
public:
  Domain() = default;
  Domain(std::vector<Variable> dims, std::vector<Variable> ranges, std::vector<Variable> runtimes);

  std::vector<Variable>& variables(VarKind kind) { return m_variables[static_cast<int>(kind)]; }
  const std::vector<Variable>& variables(VarKind kind) const { return m_variables[static_cast<int>(kind)]; }
  std::size_t count(VarKind kind) const { return variables(kind).size(); }
  std::size_t variable_count() const;

  /// Position of a variable in the order dimensions, range, runtime (the
  /// order of isl set dimensions and of evaluation tuples).
  std::size_t position(Var v) const;
  /// All variables in that order.
  std::vector<Var> all_variables() const;

  Interval bounds(Var v) const { return variables(v.kind)[v.index].bounds; }
  void set_bounds(Var v, Interval i) { variables(v.kind)[v.index].bounds = i; }

  /// Constraints in canonical order of their expressions, one per expression.
  const std::vector<Constraint>& constraints() const { return m_constraints; }
  const Interval* find_constraint(const Expr& e) const;

  /// Adds `expr in interval` the way XLA does: a bare variable narrows its
  /// bounds, a constant is checked and dropped, an expression that already
  /// has a constraint gets the intersection. Returns false when the domain
  /// became infeasible (the caller marks the map KNOWN EMPTY).
  [[nodiscard]] bool add_constraint(const Expr& expr, Interval interval);
  void remove_constraint(std::size_t index) { m_constraints.erase(m_constraints.begin() + static_cast<long>(index)); }
  void clear_constraints() { m_constraints.clear(); }
  std::vector<Constraint> take_constraints() { return std::move(m_constraints); }

  /// True when some variable interval is empty.
  bool has_empty_bounds() const;

  /// The same variables with only those `keep` accepts: the others are
  /// pinned to [0, 0], and only constraints entirely over kept variables
  /// remain. For a group of variables no constraint links to the rest, the
  /// points of the result are the projection onto the group.
  Domain restricted_to(const std::function<bool(Var)>& keep) const;

  bool operator==(const Domain&) const = default;

private:
  std::array<std::vector<Variable>, k_var_kinds> m_variables;
  std::vector<Constraint> m_constraints;
};

}  // namespace hlo_index::simplify

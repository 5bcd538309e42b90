// ragged-dot(lhs, rhs, group_sizes): a dot whose lhs ragged dimension
// (lhs_ragged_dims) is cut into consecutive groups of group_sizes[g]
// elements (JAX's ragged_dot_general; XLA's HLO text prints the dot's
// dimension numbers and lhs_ragged_dims, rhs_group_dims). Three modes, by
// where the ragged dimension is:
//  1. a non-contracting dimension m of lhs: rhs has a group dimension, and
//     output row m is the dot with rhs's group holding m;
//  2. a contracting dimension k: the output has a leading group dimension g,
//     each the dot over the k of group g only;
//  3. a batch dimension b: the output is the dot, for the b inside the groups.
// Elements outside every group read nothing (their value is zero).
//
// With group sizes that are compile-time values (a constant, or derived from
// constants: integer_values.hpp) and rank 1, each group is a piece of the
// maps, exactly; an element of group g also reads group_sizes[0..g], whose
// sum places it. Otherwise the group of an element is known only at run
// time: every group (mode 1), every k (mode 2), every b (mode 3), and every
// group size, approximate.
#include <algorithm>
#include <numeric>

#include "indexing/ops/integer_values.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

constexpr std::string_view k_runtime_groups = "a ragged-dot's group sizes are known only at run time";

enum class RaggedMode { kNonContracting, kContracting, kBatch };

struct RaggedDot {
  parser::DotDimensions dot;  // without rhs's group dimension (mode 1)
  DotShapes shapes;           // likewise, and the output without its group dimension (mode 2)
  RaggedMode mode = RaggedMode::kNonContracting;
  std::int64_t lhs_ragged = 0;           // the lhs dimension cut into groups
  std::optional<std::size_t> rhs_group;  // mode 1: rhs's group dimension
  std::int64_t groups = 0;               // G: group_sizes' last dimension
  std::vector<std::int64_t> group_sizes_dims;
  std::optional<std::vector<std::int64_t>> sizes;  // the group sizes, when known and rank 1
};

std::int64_t single(const OpContext& op, std::string_view name) {
  const auto list = parser::int_list_attribute(op.computation, op.instruction(), name);
  if (!list || list->size() != 1) throw Unsupported(std::string("ragged-dot needs one ").append(name));
  return list->front();
}

RaggedDot ragged_dot(const OpContext& op) {
  if (op.operand_count() != 3 || op.shape().is_tuple) throw Unsupported("ragged-dot takes lhs, rhs and group_sizes");
  RaggedDot r;
  r.dot = parser::dot_dimensions(op.computation, op.instruction());
  r.shapes = {op.operand_dims(0), op.operand_dims(1), op.output_dims(0)};
  r.lhs_ragged = single(op, "lhs_ragged_dims");
  r.group_sizes_dims = op.operand_dims(2);
  if (r.group_sizes_dims.empty()) throw Unsupported("ragged-dot's group_sizes is a scalar");
  r.groups = r.group_sizes_dims.back();
  if (contains(r.dot.lhs_contracting, r.lhs_ragged)) {
    r.mode = RaggedMode::kContracting;
    if (r.shapes.out.empty()) throw Unsupported("ragged-dot over a contracting dimension needs a group dimension");
    r.shapes.out.erase(r.shapes.out.begin());
  } else if (contains(r.dot.lhs_batch, r.lhs_ragged)) {
    r.mode = RaggedMode::kBatch;
  } else {
    r.mode = RaggedMode::kNonContracting;
    const std::int64_t g = single(op, "rhs_group_dims");
    if (g < 0 || static_cast<std::size_t>(g) >= r.shapes.rhs.size()) throw Unsupported("rhs_group_dims out of range");
    r.rhs_group = static_cast<std::size_t>(g);
    r.shapes.rhs.erase(r.shapes.rhs.begin() + g);
    for (auto* dims : {&r.dot.rhs_batch, &r.dot.rhs_contracting}) {
      for (std::int64_t& d : *dims) {
        if (d == g) throw Unsupported("rhs's group dimension is also a batch or contracting dimension");
        if (d > g) --d;
      }
    }
  }
  if (r.lhs_ragged < 0 || static_cast<std::size_t>(r.lhs_ragged) >= r.shapes.lhs.size())
    throw Unsupported("lhs_ragged_dims out of range");
  if (r.group_sizes_dims.size() == 1) {
    if (auto known = known_integer_values(op.module, op.computation, op.operand_index(2)); known && known->table)
      r.sizes = *known->table;
  }
  return r;
}

// The position in the dot's output of lhs's non-contracting, non-batch dimension `d`.
std::uint32_t output_position_of_lhs_free(const RaggedDot& r, std::int64_t d) {
  std::size_t position = r.dot.lhs_batch.size();
  for (std::int64_t i = 0; i < d; ++i) {
    if (!contains(r.dot.lhs_batch, i) && !contains(r.dot.lhs_contracting, i)) ++position;
  }
  return u32(position);
}

// `map` over one more, leading, dimension of size `size` (its dimensions move up by one).
IndexingMap with_leading_dimension(const IndexingMap& map, std::int64_t size) {
  std::vector<Variable> dims{Variable{Interval{0, size - 1}, {}}};
  for (const Variable& v : map.domain().variables(VarKind::kDim)) dims.push_back(v);
  Domain domain(std::move(dims), map.domain().variables(VarKind::kRange), {});
  auto up = [](const Expr& e) {
    return simplify::substitute(
        e, [](Var v) { return v.kind == VarKind::kDim ? Expr::dim(v.index + 1) : Expr::variable(v); });
  };
  for (const Constraint& c : map.domain().constraints()) (void)domain.add_constraint(up(c.expr), c.interval);
  std::vector<Expr> results;
  for (const Expr& e : map.results()) results.push_back(up(e));
  return IndexingMap(std::move(domain), std::move(results));
}

// Every element of group_sizes.
IndexingMap all_group_sizes(const RaggedDot& r, const std::vector<std::int64_t>& out) {
  return build::map(out, build::ranges(r.group_sizes_dims.size()), r.group_sizes_dims);
}

}  // namespace

std::vector<MapSet> o2i_ragged_dot(const OpContext& op) {
  const RaggedDot r = ragged_dot(op);
  const std::vector<std::int64_t> out = op.output_dims(0);
  const std::vector<IndexingMap> dot = dot_operand_maps(r.dot, r.shapes);
  IndexingMap lhs = dot[0], rhs = dot[1];
  if (r.mode == RaggedMode::kContracting) {
    lhs = with_leading_dimension(lhs, out.front());
    rhs = with_leading_dimension(rhs, out.front());
  }
  // Where the group shows in the maps: an output dimension (the ragged row or batch, or
  // mode 2's group dimension), and for mode 2 the contracting range variable.
  const std::uint32_t ragged_range =
      u32(static_cast<std::size_t>(std::find(r.dot.lhs_contracting.begin(), r.dot.lhs_contracting.end(), r.lhs_ragged) -
                                   r.dot.lhs_contracting.begin()));
  std::uint32_t ragged_output = 0;
  if (r.mode == RaggedMode::kNonContracting) ragged_output = output_position_of_lhs_free(r, r.lhs_ragged);
  if (r.mode == RaggedMode::kBatch)
    ragged_output = u32(static_cast<std::size_t>(
        std::find(r.dot.lhs_batch.begin(), r.dot.lhs_batch.end(), r.lhs_ragged) - r.dot.lhs_batch.begin()));
  auto with_group = [&](IndexingMap rhs_map, const Expr& group) {
    if (r.rhs_group)
      rhs_map.results().insert(rhs_map.results().begin() + static_cast<std::ptrdiff_t>(*r.rhs_group), group);
    return rhs_map;
  };

  std::vector<MapSet> sets(3);
  if (!r.sizes) {
    // Any group: rhs's group dimension a range variable of its own.
    IndexingMap any_group = rhs;
    if (r.rhs_group) {
      const auto s = u32(any_group.range_count());
      any_group.domain().variables(VarKind::kRange).push_back(Variable{Interval{0, r.groups - 1}, {}});
      any_group = with_group(std::move(any_group), Expr::range(s));
    }
    sets[0].push_back(std::move(lhs));
    sets[1].push_back(std::move(any_group));
    sets[2].push_back(all_group_sizes(r, out));
    for (MapSet& set : sets)
      for (IndexingMap& m : set) m.mark_approximate(k_runtime_groups);
    return sets;
  }
  // Group g holds the ragged indices [offset, offset + size) (clipped to the dimension).
  std::int64_t offset = 0;
  const std::int64_t extent = r.shapes.lhs.at(static_cast<std::size_t>(r.lhs_ragged));
  for (std::int64_t g = 0; g < r.groups; ++g) {
    const std::int64_t size = std::max<std::int64_t>((*r.sizes)[static_cast<std::size_t>(g)], 0);
    const Interval rows = Interval{offset, offset + size - 1}.intersect({0, extent - 1});
    offset += size;
    if (rows.empty()) continue;
    // Mode 2: output group g, summing over the group's k only; else the group's rows or batches.
    auto in_group = [&](IndexingMap m, bool sums) -> std::optional<IndexingMap> {
      const bool feasible = r.mode == RaggedMode::kContracting
                                ? m.domain().add_constraint(Expr::dim(0), Interval::point(g)) &&
                                      (!sums || m.domain().add_constraint(Expr::range(ragged_range), rows))
                                : m.domain().add_constraint(Expr::dim(ragged_output), rows);
      if (!feasible) return std::nullopt;
      return m;
    };
    if (auto m = in_group(lhs, true)) sets[0].push_back(std::move(*m));
    if (auto m = in_group(with_group(rhs, Expr::constant(g)), true)) sets[1].push_back(std::move(*m));
    // The sizes of group g and those before it place its elements.
    if (auto m = in_group(build::map(out, {Expr::range(0)}, {g + 1}), false)) sets[2].push_back(std::move(*m));
  }
  for (std::size_t k = 0; k < sets.size(); ++k) {
    if (sets[k].empty()) sets[k].push_back(IndexingMap::known_empty(build::scalar(out)));
  }
  return sets;
}

std::vector<MapSet> i2o_ragged_dot(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, [](const OpContext& o, std::size_t) { return o2i_ragged_dot(o); });
}

}  // namespace hlo_index::indexing::detail

// conditional: conditional(selector, operand_0, ..., operand_n-1) runs
// branch i on operand i (branch_computations={b0, ...}; with a pred
// selector, true_computation is branch 0 and false_computation branch 1).
// Its maps are each branch's composed maps (as for a call), with the branch
// selector as a runtime variable: the maps through branch i hold only when
// it is i (XLA runs the last branch for any index out of range, so that
// branch holds for those too; a pred runs branch 0 when true). Every output
// element reads the selector.
#include <limits>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/ops/output_dependence.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing {

namespace {

std::string_view unquoted_name(std::string_view text) {
  while (!text.empty() && (text.front() == '%' || text.front() == ' ')) text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

// The selector as a runtime variable of `map`, restricted to the values that
// select branch `branch`: its index, and for the last branch every index out
// of range too (two pieces); a pred selects branch 0 when true (1).
MapSet when_branch(IndexingMap map, std::size_t branch, std::size_t branches_count, std::uint32_t selector, bool pred) {
  if (!map.is_defined()) return {map};
  constexpr std::int64_t k_min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t k_max = std::numeric_limits<std::int32_t>::max();
  const auto b = static_cast<std::int64_t>(branch);
  const auto n = static_cast<std::int64_t>(branches_count);
  std::vector<Interval> values;
  if (pred) {
    values.push_back(Interval::point(branch == 0 ? 1 : 0));
  } else if (b + 1 < n) {
    values.push_back(Interval::point(b));
  } else {
    values.push_back(Interval{b, k_max});
    if (n > 1)
      values.push_back(Interval{k_min, -1});
    else
      values.back().lo = k_min;
  }
  RuntimeSource source;
  source.source = "branch selector";
  source.branch_selector = true;
  source.map = std::make_shared<const IndexingMap>(
      Domain(map.domain().variables(VarKind::kDim), map.domain().variables(VarKind::kRange), {}), std::vector<Expr>{});
  source.operand = 0;
  source.instruction = selector;
  source.feasible = pred ? Interval{0, 1} : Interval{k_min, k_max};
  MapSet out;
  auto add = [&](IndexingMap piece, const Interval& v) {
    piece.domain().variables(VarKind::kRuntime).push_back(Variable{v, {}});
    piece.runtime_sources().push_back(source);
    out.push_back(std::move(piece));
  };
  // The last piece takes the map itself: a branch of a wide conditional has thousands.
  for (std::size_t k = 0; k + 1 < values.size(); ++k) add(map, values[k]);
  add(std::move(map), values.back());
  return out;
}

// Runtime values a branch reads from its parameter come from the conditional's operand.
void from_branch_operand(IndexingMap& map, std::size_t operand, std::uint32_t producer) {
  for (RuntimeSource& s : map.runtime_sources()) {
    const bool from_parameter = s.operand == 0;
    s.operand = from_parameter ? static_cast<std::int64_t>(operand) : -1;
    s.instruction = from_parameter ? static_cast<std::int64_t>(producer) : -1;
  }
}

}  // namespace

std::vector<std::uint32_t> conditional_branches(const hlo::Module& module, const hlo::Computation& c,
                                                const hlo::Instruction& instr) {
  const auto callees = c.callees_of(instr);
  if (c.attribute(instr, "branch_computations")) return {callees.begin(), callees.end()};
  const auto on_true = c.attribute(instr, "true_computation");
  const auto on_false = c.attribute(instr, "false_computation");
  if (!on_true || !on_false) throw Unsupported("a conditional without branch computations");
  const std::uint32_t t = module.find_computation(unquoted_name(*on_true));
  const std::uint32_t f = module.find_computation(unquoted_name(*on_false));
  if (t == hlo::k_none || f == hlo::k_none) throw Unsupported("a branch computation that does not exist");
  return {t, f};
}

std::vector<MapSet> IndexingAnalysis::conditional_maps(std::uint32_t computation, std::uint32_t instruction,
                                                       std::size_t index, bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const std::vector<std::uint32_t> branch = conditional_branches(m_module, c, instr);
  const auto operands = c.operands_of(instr);
  if (operands.size() != branch.size() + 1) throw Unsupported("a conditional needs one operand per branch");
  const bool pred = m_module.shape_of(c.instructions[operands[0]]).type == hlo::ElementType::kPred;
  const hlo::Shape& shape = m_module.shape_of(instr);
  const std::size_t outputs = leaf_count(shape);  // tuple_leaves.hpp
  const auto output_dims = [&](std::size_t k) { return dimension_sizes(leaf_shape(shape, k)); };
  // A tuple branch operand: output -> operand maps name the leaf they read
  // in their first result (as a call's do); operand -> output maps from a
  // whole tuple have no index space (as for a call). An empty tuple reads nothing.
  const auto branch_operand_is_empty = [&](std::size_t i) {
    const hlo::Shape& s = m_module.shape_of(c.instructions[operands[i + 1]]);
    return s.is_tuple && leaf_count(s) == 0;
  };
  const auto branch_operand_is_tuple = [&](std::size_t i) {
    return m_module.shape_of(c.instructions[operands[i + 1]]).is_tuple;
  };
  const auto through = [&](std::size_t i, bool fwd, std::size_t k) {
    ++m_depth;
    std::vector<MapSet> sets;
    try {
      sets = fwd ? fused_input_to_output(branch[i], k) : fused_output_to_input(branch[i], k);
    } catch (...) {
      --m_depth;
      throw;
    }
    --m_depth;
    return sets;
  };
  if (m_depth > 64) throw Unsupported("calls nested too deeply");
  if (!forward) {
    std::vector<MapSet> sets(operands.size());
    sets[0].push_back(build::scalar(output_dims(index)));
    for (std::size_t i = 0; i < branch.size(); ++i) {
      if (branch_operand_is_empty(i)) continue;
      std::vector<MapSet> body = through(i, false, index);
      if (body.empty()) continue;
      for (IndexingMap& m : body[0]) {
        from_branch_operand(m, i + 1, operands[i + 1]);
        for (IndexingMap& piece : when_branch(std::move(m), i, branch.size(), operands[0], pred))
          sets[i + 1].push_back(std::move(piece));
      }
    }
    return sets;
  }
  std::vector<MapSet> sets(outputs);
  if (index == 0) {
    for (std::size_t k = 0; k < outputs; ++k) sets[k].push_back(build::to_every_element(output_dims(k)));
    return sets;
  }
  const std::size_t i = index - 1;
  if (branch_operand_is_empty(i)) return sets;
  if (branch_operand_is_tuple(i))
    throw Unsupported("operand -> output maps are not composed through a tuple branch operand");
  std::vector<MapSet> body = through(i, true, 0);
  for (std::size_t k = 0; k < outputs && k < body.size(); ++k) {
    for (IndexingMap& m : body[k]) {
      from_branch_operand(m, i + 1, operands[i + 1]);
      for (IndexingMap& piece : when_branch(std::move(m), i, branch.size(), operands[0], pred))
        sets[k].push_back(std::move(piece));
    }
  }
  return sets;
}

}  // namespace hlo_index::indexing

// async-start: ((operands...), result, context...) async-start(operands...),
// calls=wrapped. The leaves (tuple_leaves.hpp) of element {1} are the wrapped
// computation's result, composed through it as for a call; the leaves of
// element {0, k} are operand k unchanged (maps into a tuple operand name its
// leaf in their first result, as a call's do); the context elements (s32[]/
// u32[] state of the runtime) read nothing. async-update passes the tuple on
// and async-done is element {1} of it (op_traits: MapFamily::kTupleElements),
// so inside a call or fusion a start-done pair composes to the wrapped
// computation's maps. custom-call-start(operands...), custom_call_target=...
// is XLA's shorthand for an async-start wrapping that custom-call: element
// {1} has the custom-call's maps (custom-call-update and -done are
// async-update and -done).
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

std::vector<MapSet> IndexingAnalysis::async_start_maps(std::uint32_t computation, std::uint32_t instruction,
                                                       std::size_t index, bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const hlo::Shape& shape = m_module.shape_of(instr);
  const std::size_t operands = instr.operand_count;
  if (!shape.is_tuple || shape.elements.size() < 2 || !shape.elements[0].is_tuple ||
      shape.elements[0].elements.size() != operands)
    throw Unsupported("async-start's shape is not ((operands...), result, context...)");
  const hlo::Shape& passed = shape.elements[0];
  for (std::size_t j = 0; j < operands; ++j) {
    if (!hlo::same_ignoring_layout(passed.elements[j], m_module.shape_of(c.instructions[c.operands_of(instr)[j]])))
      throw Unsupported("element {0} of async-start is not the tuple of its operands");
  }
  const std::size_t result = leaf_count(passed);  // the first leaf of element {1}
  const std::size_t context = result + leaf_count(shape.elements[1]);
  // Element {1}'s maps: the wrapped computation's, or the wrapped custom-call's.
  auto wrapped = [&](std::size_t k, bool fwd) {
    if (instr.opcode != hlo::Opcode::kCustomCallStart) return called_maps(computation, instruction, k, fwd);
    std::vector<MapSet> sets =
        custom_call_maps(OpContext{m_module, c, instruction, &shape.elements[1]}, k, fwd, m_options.style);
    for (MapSet& set : sets)
      for (IndexingMap& m : set) simplify(m, single_op_policy(hlo::Opcode::kCustomCall));
    return sets;
  };
  if (forward) {
    // Operand `index` -> each leaf of the tuple.
    std::vector<MapSet> sets(leaf_count(shape));
    if (index >= operands) return sets;
    const hlo::Shape& operand = passed.elements[index];
    const std::size_t first = leaf_offset(passed, index);
    if (operand.is_tuple) {
      for (std::size_t m = 0; m < leaf_count(operand); ++m)
        sets[first + m].push_back(IndexingMap::undefined("operand -> output maps of a tuple operand"));
    } else {
      sets[first].push_back(IndexingMap::identity(dimension_sizes(operand)));
    }
    std::vector<MapSet> called = wrapped(index, true);
    for (std::size_t r = 0; r < called.size() && result + r < context; ++r) sets[result + r] = std::move(called[r]);
    return sets;
  }
  if (index < result) {
    // Leaf {0, j, rest...}: leaf `rest` of operand j.
    const std::vector<std::size_t> path = leaf_path(shape, index);
    const std::size_t j = path.at(1);
    std::vector<MapSet> sets(operands);
    IndexingMap identity = IndexingMap::identity(dimension_sizes(leaf_shape(shape, index)));
    if (passed.elements[j].is_tuple) {
      const auto leaf = static_cast<std::int64_t>(leaf_at(passed.elements[j], std::span(path).subspan(2)).value());
      identity.results().insert(identity.results().begin(), Expr::constant(leaf));
    }
    sets[j].push_back(std::move(identity));
    return sets;
  }
  if (index < context) return wrapped(index - result, false);
  return std::vector<MapSet>(operands);  // the context
}

}  // namespace hlo_index::indexing

// async-start: ((operands...), result, context...) async-start(operands...),
// calls=wrapped. Element {1} is the wrapped computation's result, composed
// through it as for a call; element {0, k} is operand k unchanged; the
// context elements (s32[]/u32[] state of the runtime) read nothing.
// async-update passes the tuple on and async-done is element {1} of it
// (op_traits: MapFamily::kTupleElements), so inside a call or fusion a
// start-done pair composes to the wrapped computation's maps.
//
// Element {0} is itself a tuple: like every nested tuple element of an op's
// output it has no index space of its own here, so its maps are UNDEFINED
// with that reason (and so is element {1} when the wrapped computation
// returns a tuple).
#include "indexing/instruction_indexing.hpp"

namespace hlo_index::indexing {

namespace {

MapSet nested_tuple() { return MapSet{IndexingMap::undefined("a nested tuple element")}; }

}  // namespace

std::vector<MapSet> IndexingAnalysis::async_start_maps(std::uint32_t computation, std::uint32_t instruction,
                                                       std::size_t index, bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const hlo::Shape& shape = m_module.shape_of(instr);
  if (!shape.is_tuple || shape.elements.size() < 2)
    throw Unsupported("async-start's shape is not ((operands...), result, context...)");
  const std::size_t operands = instr.operand_count;
  const bool result_is_array = !shape.elements[1].is_tuple;
  if (forward) {
    // Operand `index` -> each element of the tuple.
    std::vector<MapSet> sets(shape.elements.size());
    sets[0] = nested_tuple();
    sets[1] = result_is_array ? called_maps(computation, instruction, index, true).at(0) : nested_tuple();
    return sets;
  }
  if (index == 0) return std::vector<MapSet>(operands, nested_tuple());
  if (index == 1) {
    if (!result_is_array) return std::vector<MapSet>(operands, nested_tuple());
    return called_maps(computation, instruction, 0, false);
  }
  return std::vector<MapSet>(operands);  // the context
}

}  // namespace hlo_index::indexing

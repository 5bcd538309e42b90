// while: the state (usually a tuple) goes through body= as long as
// condition= holds, a number of times known only at run time. The state's
// index spaces are its array leaves (tuple_leaves.hpp). A leaf the body
// passes on unchanged (the root's leaf k is, through tuple and
// get-tuple-element only, the parameter's leaf k) is the init's leaf k: the
// identity, exact. Any other leaf may depend, after some iterations, on every
// leaf it reaches through the body's dataflow, again and again, and on every
// leaf the condition reads (which decides how many iterations run): it reads
// those leaves whole, a sound superset marked approximate. Maps into the
// tuple operand name the leaf in their first result, as a call's do.
#include "indexing/ops/loop_dataflow.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing::detail {

std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output) {
  LoopDataflow flow(op);
  return o2i_while(op, output, flow);
}

std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output, LoopDataflow& flow) {
  const hlo::Shape& state = op.operand_shape(0);
  const bool tuple_state = state.is_tuple;
  std::vector<MapSet> sets(1);
  const auto out_dims = op.output_dims(output);
  auto into = [&](IndexingMap map, std::size_t e) {
    if (tuple_state) map.results().insert(map.results().begin(), Expr::constant(static_cast<std::int64_t>(e)));
    return map;
  };
  if (flow.passes_on(output)) {
    sets[0].push_back(into(IndexingMap::identity(out_dims), output));
    return sets;
  }
  for (std::size_t e : flow.leaves_read(output)) {
    const auto in = dimension_sizes(leaf_shape(state, e));
    if (build::product(in) == 0) continue;
    IndexingMap whole = build::map(out_dims, build::ranges(in.size()), in);
    whole.mark_approximate("state the body changes, read whole");
    sets[0].push_back(into(std::move(whole), e));
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail

// Ops that move whole elements between tuples, or between replicas:
// tuple, get-tuple-element, all-gather.
#include <algorithm>

#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

// tuple: output k is operand k; the other operands are not read for it.
// A nested tuple element has no index space of its own: UNDEFINED for that
// element only.
IndexingMap element_identity(const hlo::Shape& shape) {
  if (shape.is_tuple) return IndexingMap::undefined("a nested tuple element");
  return IndexingMap::identity(dimension_sizes(shape));
}

}  // namespace

std::vector<MapSet> o2i_tuple(const OpContext& op, std::size_t output) {
  std::vector<MapSet> out(op.operand_count());
  out.at(output).push_back(element_identity(op.output_shape(output)));
  return out;
}

std::vector<MapSet> i2o_tuple(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> out(op.output_count());
  out.at(operand).push_back(element_identity(op.operand_shape(operand)));
  return out;
}

// get-tuple-element: output k (k > 0 only when the element is itself a
// tuple) is the same element of the operand's element.
std::vector<MapSet> gte_maps(const OpContext& op, std::size_t output, bool forward) {
  if (!forward) return one_each({element_identity(op.output_shape(output))});
  std::vector<MapSet> out;
  for (std::size_t k = 0; k < op.output_count(); ++k) out.push_back({element_identity(op.output_shape(k))});
  return out;
}

namespace {

// all-gather: output index i along the gathered dimension holds element
// i mod n of the operand of replica i floordiv n (n: the operand's size;
// the position within the replica group), which output -> operand maps
// carry as their replica id; variadic forms gather operand k into output k.
// The gathered dimension of operand/output pair k, checked against the shapes.
std::size_t gathered_dimension(const OpContext& op, std::size_t k) {
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1) throw Unsupported("all-gather needs exactly one dimension");
  const auto out = op.output_dims(k), in = op.operand_dims(k);
  const auto g = static_cast<std::size_t>(dims[0]);
  if (g >= out.size() || in.size() != out.size() || in[g] <= 0) throw Unsupported("all-gather shapes do not match");
  return g;
}

}  // namespace

std::vector<MapSet> o2i_all_gather(const OpContext& op, std::size_t output) {
  const auto out = op.output_dims(output);
  const auto in = op.operand_dims(output);
  const std::size_t g = gathered_dimension(op, output);
  std::vector<Expr> results = build::dims(out.size());
  const Expr replica = simplify::floor_div(results[g], in[g]);
  results[g] = simplify::mod(results[g], in[g]);
  IndexingMap map = build::map(out, std::move(results));
  map.replica_id() = {replica};
  std::vector<MapSet> sets(op.operand_count());
  sets[output].push_back(std::move(map));
  return sets;
}

// Operand -> output maps have no replica id: their range variable is the
// replica the operand element is on.
std::vector<MapSet> i2o_all_gather(const OpContext& op, std::size_t operand) {
  const auto out = op.output_dims(operand);
  const auto in = op.operand_dims(operand);
  const std::size_t g = gathered_dimension(op, operand);
  std::vector<Expr> results = build::dims(in.size());
  results[g] = results[g] + Expr::range(0) * in[g];
  std::vector<MapSet> sets(op.output_count());
  sets[operand].push_back(build::map(in, std::move(results), {out[g] / in[g]}));
  return sets;
}

}  // namespace hlo_index::indexing::detail

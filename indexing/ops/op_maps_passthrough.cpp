// Ops that pass elements on without moving them: the elements of a tuple
// operand (opt-barrier, domain, the -done halves of asynchronous pairs,
// copy-start, send), collectives that combine or move the same index across
// replicas (all-reduce, collective-permute, collective-broadcast), ops that
// read no element (tokens, host transfers, sizes, ids) and ops whose every
// output element reads every operand element (rng, rng-bit-generator,
// outfeed).
#include <optional>

#include "indexing/ops/op_maps_internal.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/attributes.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing::detail {

namespace {

bool is_token(const hlo::Shape& shape) { return !shape.is_tuple && shape.type == hlo::ElementType::kToken; }

// The output leaves that hold the data of operand 0, for ops whose other
// elements are contexts and tokens: copy-start's (destination, source,
// context) and send's (data, context, token); each of their data elements is
// the whole operand.
std::size_t data_outputs(const OpContext& op) {
  switch (op.opcode()) {
    case hlo::Opcode::kCopyStart: return leaf_offset(op.shape(), 2);
    case hlo::Opcode::kSend: return leaf_offset(op.shape(), 1);
    default: return op.output_count();
  }
}

// The leaf of operand 0 (tuple_leaves.hpp) that output `output` is, or none
// when the output holds no data of the operand (a token, a context).
std::optional<std::size_t> element_read(const OpContext& op, std::size_t output) {
  if (output >= data_outputs(op) || is_token(op.output_shape(output))) return std::nullopt;
  if (!op.operand_shape(0).is_tuple) return 0;
  const std::optional<std::size_t> e = operand_tuple_element(op, output);
  if (!e) throw Unsupported("no array of the tuple operand matches output " + std::to_string(output));
  return e;
}

// The shape that output `output` reads: operand 0 or one of its leaves.
const hlo::Shape& read_shape(const OpContext& op, std::size_t leaf) { return leaf_shape(op.operand_shape(0), leaf); }

}  // namespace

//===--- tuple elements ---===//

std::vector<MapSet> o2i_tuple_elements(const OpContext& op, std::size_t output) {
  std::vector<MapSet> sets(op.operand_count());
  if (op.operand_count() == 0) return sets;
  const std::optional<std::size_t> element = element_read(op, output);
  if (!element) return sets;
  const std::vector<std::int64_t> in = dimension_sizes(read_shape(op, *element));
  if (in != op.output_dims(output))
    throw Unsupported("output " + std::to_string(output) + " does not have the shape of the element it passes on");
  sets[0].push_back(IndexingMap::identity(in));
  return sets;
}

std::vector<MapSet> i2o_tuple_elements(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> sets(op.output_count());
  if (operand != 0) return sets;
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    const std::optional<std::size_t> element = element_read(op, k);
    if (element) sets[k].push_back(IndexingMap::identity(dimension_sizes(read_shape(op, *element))));
  }
  return sets;
}

//===--- collectives at the same index ---===//

namespace {

// Which operand output k reads: variadic forms pair output k with operand
// k; a -start whose result is (operand, result) reads operand 0 for both.
// collective-permute-start's result (operand, result, u32[] context, ...)
// ends in the runtime's context scalars, which read nothing: nullopt.
std::optional<std::size_t> collective_operand(const OpContext& op, std::size_t output) {
  if (op.output_count() == op.operand_count()) return output;
  if (op.operand_count() == 1) {
    if (op.opcode() == hlo::Opcode::kCollectivePermuteStart && output >= 2) return std::nullopt;
    return 0;
  }
  throw Unsupported("the outputs do not pair with the operands");
}

}  // namespace

std::vector<MapSet> o2i_collective(const OpContext& op, std::size_t output) {
  std::vector<MapSet> sets(op.operand_count());
  const std::optional<std::size_t> read = collective_operand(op, output);
  if (!read) return sets;
  const std::size_t j = *read;
  const auto out = op.output_dims(output);
  if (op.operand_dims(j) != out) throw Unsupported("operand " + std::to_string(j) + " has another shape than output");
  sets[j].push_back(IndexingMap::identity(out));
  return sets;
}

std::vector<MapSet> i2o_collective(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> sets(op.output_count());
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    if (collective_operand(op, k) != operand) continue;
    if (op.operand_dims(operand) != op.output_dims(k)) throw Unsupported("an output has another shape than operand");
    sets[k].push_back(IndexingMap::identity(op.output_dims(k)));
  }
  return sets;
}

//===--- nothing read ---===//

std::vector<MapSet> o2i_nothing_read(const OpContext& op) { return std::vector<MapSet>(op.operand_count()); }
std::vector<MapSet> i2o_nothing_read(const OpContext& op) { return std::vector<MapSet>(op.output_count()); }

//===--- whole operands ---===//

namespace {}  // namespace

std::vector<MapSet> o2i_whole_operands(const OpContext& op, std::size_t output) {
  std::vector<MapSet> sets(op.operand_count());
  const auto out = op.output_dims(output);
  for (std::size_t j = 0; j < op.operand_count(); ++j) {
    const hlo::Shape& in = op.operand_shape(j);
    if (is_token(in)) continue;
    if (in.is_tuple) {
      sets[j].push_back(IndexingMap::undefined("a tuple operand read whole"));
      continue;
    }
    sets[j].push_back(whole(out, dimension_sizes(in)));
  }
  return sets;
}

std::vector<MapSet> i2o_whole_operands(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> sets(op.output_count());
  const hlo::Shape& in = op.operand_shape(operand);
  if (is_token(in)) return sets;
  if (in.is_tuple) throw Unsupported("a tuple operand read whole");
  for (std::size_t k = 0; k < op.output_count(); ++k) {
    if (!op.output_shape(k).is_tuple) sets[k].push_back(whole(dimension_sizes(in), op.output_dims(k)));
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail

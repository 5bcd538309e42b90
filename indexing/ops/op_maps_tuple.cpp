// Ops that move whole elements between tuples, or between replicas:
// tuple, get-tuple-element, all-gather(-start), all-to-all, reduce-scatter.
#include <algorithm>

#include "indexing/ops/op_maps_internal.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/attributes.hpp"
#include "parser/opcode.hpp"

namespace hlo_index::indexing::detail {

// tuple: output leaf k (tuple_leaves.hpp) is a leaf of the operand its
// element is, the same array (operand_tuple_element says which leaf of a
// tuple operand); the other operands are not read for it.
std::vector<MapSet> o2i_tuple(const OpContext& op, std::size_t output) {
  std::vector<MapSet> out(op.operand_count());
  const std::vector<std::size_t> path = leaf_path(op.shape(), output);
  if (path.empty()) throw Unsupported("a tuple whose output " + std::to_string(output) + " is no array");
  out.at(path.front()).push_back(IndexingMap::identity(op.output_dims(output)));
  return out;
}

// Operand j feeds the output leaves of element j, each from its own leaf.
std::vector<MapSet> i2o_tuple(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> out(op.output_count());
  std::size_t at = leaf_offset(op.shape(), operand);
  for (const hlo::Shape* leaf : leaf_shapes(op.operand_shape(operand)))
    out.at(at++).push_back(IndexingMap::identity(dimension_sizes(*leaf)));
  return out;
}

// get-tuple-element: output leaf k (k > 0 only when the element is itself a
// tuple) is the same leaf of the operand's element.
std::vector<MapSet> gte_maps(const OpContext& op, std::size_t output, bool forward) {
  if (!forward) return one_each({IndexingMap::identity(op.output_dims(output))});
  std::vector<MapSet> out;
  for (std::size_t k = 0; k < op.output_count(); ++k) out.push_back({IndexingMap::identity(op.output_dims(k))});
  return out;
}

namespace {

// all-gather: output index i along the gathered dimension holds element
// i mod n of the operand of replica i floordiv n (n: the operand's size;
// the position within the replica group), which output -> operand maps
// carry as their replica id; variadic forms gather operand k into output k.
// The gathered dimension of operand/output pair k, checked against the shapes.
std::size_t gathered_dimension(const OpContext& op, std::size_t output, std::size_t operand) {
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1) throw Unsupported("all-gather needs exactly one dimension");
  const auto out = op.output_dims(output), in = op.operand_dims(operand);
  const auto g = static_cast<std::size_t>(dims[0]);
  if (g >= out.size() || in.size() != out.size() || in[g] <= 0) throw Unsupported("all-gather shapes do not match");
  return g;
}

// all-gather-start's result is the gathered arrays, or the pair (operands, gathered): for N
// operands, leaves 0..N-1 are the operands themselves and leaves N..2N-1 the gathered arrays
// (one operand: `(f32[2], f32[4])`; two: `((f32[2], f32[3]), (f32[4], f32[6]))`).
bool start_pair(const OpContext& op) {
  return op.opcode() == hlo::Opcode::kAllGatherStart && op.operand_count() > 0 &&
         op.output_count() == 2 * op.operand_count();
}

}  // namespace

std::vector<MapSet> o2i_all_gather(const OpContext& op, std::size_t output) {
  std::vector<MapSet> sets(op.operand_count());
  const std::size_t n = op.operand_count();
  if (start_pair(op) && output < n) {
    sets[output].push_back(IndexingMap::identity(op.operand_dims(output)));
    return sets;
  }
  const std::size_t j = start_pair(op) ? output - n : output;
  if (j >= n) throw Unsupported("all-gather output " + std::to_string(output) + " has no operand");
  const auto out = op.output_dims(output);
  const auto in = op.operand_dims(j);
  const std::size_t g = gathered_dimension(op, output, j);
  std::vector<Expr> results = build::dims(out.size());
  const Expr replica = simplify::floor_div(results[g], in[g]);
  results[g] = simplify::mod(results[g], in[g]);
  IndexingMap map = build::map(out, std::move(results));
  map.replica_id() = {replica};
  sets[j].push_back(std::move(map));
  return sets;
}

// Operand -> output maps have no replica id: their range variable is the
// replica the operand element is on.
std::vector<MapSet> i2o_all_gather(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> sets(op.output_count());
  const std::size_t k = start_pair(op) ? op.operand_count() + operand : operand;
  if (k >= sets.size()) throw Unsupported("all-gather operand " + std::to_string(operand) + " has no output");
  if (start_pair(op)) sets[operand].push_back(IndexingMap::identity(op.operand_dims(operand)));
  const auto out = op.output_dims(k);
  const auto in = op.operand_dims(operand);
  const std::size_t g = gathered_dimension(op, k, operand);
  std::vector<Expr> results = build::dims(in.size());
  results[g] = results[g] + Expr::range(0) * in[g];
  sets[k].push_back(build::map(in, std::move(results), {out[g] / in[g]}));
  return sets;
}

namespace {

// The devices of each replica group, from replica_groups (equal groups or the iota form);
// none when the text does not give it (`replica_groups={}` or no attribute: every replica).
std::optional<std::int64_t> group_size(const OpContext& op) {
  const auto groups = op.attribute("replica_groups");
  return groups ? parser::replica_group_size(*groups) : std::nullopt;
}

// all-to-all with dimensions={d} in a group whose size the text does not give: the
// element moves along d only, to or from a device of the group, so every index along
// d (a range variable) on some device (a second one) is a sound superset.
IndexingMap along_unknown_group(const std::vector<std::int64_t>& dims, std::size_t d, bool with_device) {
  std::vector<Expr> results = build::dims(dims.size());
  results[d] = Expr::range(0);
  std::vector<std::int64_t> ranges{dims[d]};
  if (with_device) ranges.push_back(dims[d]);  // at most one device per index along d
  IndexingMap map = build::map(dims, std::move(results), ranges);
  if (with_device) map.replica_id() = {Expr::range(1)};
  map.mark_approximate("without replica_groups the group size is unknown");
  return map;
}

// The analysing device's position within its replica group: the same for every
// element (a thread-uniform runtime value), known only when the program runs.
RuntimeSource group_position(std::int64_t group) {
  RuntimeSource source;
  source.source = "the device's position in its replica group";
  source.feasible = Interval{0, group - 1};
  source.uniform = true;
  return source;
}

}  // namespace

// all-to-all with dimensions={d}: the operand is cut along d into one chunk per
// device of the group, chunk i goes to device i, and the received chunks are
// concatenated by source device: output index x along d holds element
// (x mod n) + p * n of the operand of device x floordiv n, where n is the chunk
// size and p this device's position. Without dimensions (the tuple form),
// output k is operand p of device k.
std::vector<MapSet> o2i_all_to_all(const OpContext& op, std::size_t output) {
  std::vector<MapSet> sets(op.operand_count());
  const auto out = op.output_dims(output);
  if (!op.attribute("dimensions")) {
    // One operand per device of the group: the operand count is the group size.
    const auto group = static_cast<std::int64_t>(op.operand_count());
    for (std::size_t j = 0; j < op.operand_count(); ++j) {
      if (op.operand_dims(j) != out) throw Unsupported("the operands of an all-to-all differ in shape");
      IndexingMap map(Domain(build::variables(out), {}, {Variable{Interval::point(static_cast<std::int64_t>(j)), {}}}),
                      build::dims(out.size()));
      map.runtime_sources() = {group_position(group)};
      map.replica_id() = {Expr::constant(static_cast<std::int64_t>(output))};
      sets[j].push_back(std::move(map));
    }
    return sets;
  }
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1 || op.operand_count() != 1 || dims[0] < 0 || static_cast<std::size_t>(dims[0]) >= out.size())
    throw Unsupported("all-to-all needs one operand and one dimension");
  const auto d = static_cast<std::size_t>(dims[0]);
  if (op.operand_dims(0) != out) throw Unsupported("all-to-all shapes do not match");
  const std::optional<std::int64_t> known = group_size(op);
  if (!known) {
    sets[0].push_back(along_unknown_group(out, d, true));
    return sets;
  }
  const std::int64_t group = *known;
  if (out[d] % group != 0) throw Unsupported("all-to-all shapes do not match the group");
  const std::int64_t chunk = out[d] / group;
  std::vector<Expr> results = build::dims(out.size());
  const Expr x = results[d];
  results[d] = simplify::mod(x, chunk) + Expr::runtime(0) * chunk;
  IndexingMap map(Domain(build::variables(out), {}, {Variable{Interval{0, group - 1}, {}}}), std::move(results));
  map.runtime_sources() = {group_position(group)};
  map.replica_id() = {simplify::floor_div(x, chunk)};
  sets[0].push_back(std::move(map));
  return sets;
}

// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets,
// recv_sizes): each device of the group sends rows input[input_offsets[j] :
// + send_sizes[j]] (along the leading dimension) to device j, which writes
// them at its output_offsets; the rows no chunk lands on keep operand 1's
// value. Which rows move where is known only at run time: an output row may
// be its own row of operand 1, or any input row of some device (the other
// dimensions in place), and depends on every offset and size. Approximate.
std::vector<MapSet> o2i_ragged_all_to_all(const OpContext& op) {
  if (op.operand_count() != 6 || op.shape().is_tuple) throw Unsupported("ragged-all-to-all takes six operands");
  const auto out = op.output_dims(0);
  const auto in = op.operand_dims(0);
  if (out.empty() || in.size() != out.size() || op.operand_dims(1) != out)
    throw Unsupported("ragged-all-to-all's input and output differ in rank, or the output buffer in shape");
  constexpr std::string_view k_why = "a ragged-all-to-all's offsets and sizes are known only at run time";
  std::vector<Expr> row = build::dims(out.size());
  row.front() = Expr::range(0);
  std::vector<MapSet> sets;
  sets.push_back({build::map(out, std::move(row), {in.front()})});
  sets.push_back({IndexingMap::identity(out)});
  for (std::size_t k = 2; k < 6; ++k) {
    const auto dims = op.operand_dims(k);
    sets.push_back({build::map(out, build::ranges(dims.size()), dims)});
  }
  for (MapSet& set : sets)
    for (IndexingMap& m : set) m.mark_approximate(k_why);
  return sets;
}

std::vector<MapSet> i2o_ragged_all_to_all(const OpContext& op, std::size_t operand) {
  return maps_by_inverse(op, operand, [](const OpContext& o, std::size_t) { return o2i_ragged_all_to_all(o); });
}

// reduce-scatter with dimensions={d}: this device's output is its shard of the
// reduction over the group: index x along d reads element x + p * n of the
// operand of every device (n the output's size along d, p this device's
// position), as all-reduce reads the same index on every device.
std::vector<MapSet> o2i_reduce_scatter(const OpContext& op, std::size_t output) {
  const auto dims = op.required_int_list("dimensions");
  const auto out = op.output_dims(output);
  const auto in = op.operand_dims(output);
  if (dims.size() != 1 || dims[0] < 0 || static_cast<std::size_t>(dims[0]) >= out.size() || in.size() != out.size())
    throw Unsupported("reduce-scatter needs one dimension of matching shapes");
  const auto d = static_cast<std::size_t>(dims[0]);
  if (out[d] == 0 || in[d] % out[d] != 0) throw Unsupported("reduce-scatter shapes do not match");
  const std::int64_t group = in[d] / out[d];
  std::vector<Expr> results = build::dims(out.size());
  results[d] = results[d] + Expr::runtime(0) * out[d];
  IndexingMap map(Domain(build::variables(out), {}, {Variable{Interval{0, group - 1}, {}}}), std::move(results));
  map.runtime_sources() = {group_position(group)};
  std::vector<MapSet> sets(op.operand_count());
  sets.at(output).push_back(std::move(map));
  return sets;
}

std::vector<MapSet> i2o_all_to_all(const OpContext& op, std::size_t operand) {
  std::vector<MapSet> sets(op.output_count());
  const auto in = op.operand_dims(operand);
  if (!op.attribute("dimensions")) {
    const auto group = static_cast<std::int64_t>(op.operand_count());
    // Operand j of this device is output p of device j: output k when p is k.
    for (std::size_t k = 0; k < op.output_count(); ++k) {
      IndexingMap map(Domain(build::variables(in), {}, {Variable{Interval::point(static_cast<std::int64_t>(k)), {}}}),
                      build::dims(in.size()));
      map.runtime_sources() = {group_position(group)};
      sets[k].push_back(std::move(map));
    }
    return sets;
  }
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1 || dims[0] < 0 || static_cast<std::size_t>(dims[0]) >= in.size())
    throw Unsupported("all-to-all needs one operand and one dimension");
  const auto d = static_cast<std::size_t>(dims[0]);
  const std::optional<std::int64_t> known = group_size(op);
  if (!known) {
    sets[0].push_back(along_unknown_group(in, d, false));
    return sets;
  }
  const std::int64_t group = *known;
  if (in[d] % group != 0) throw Unsupported("all-to-all shapes do not match the group");
  const std::int64_t chunk = in[d] / group;
  // Element y goes to device y floordiv n, at this device's chunk there.
  std::vector<Expr> results = build::dims(in.size());
  results[d] = simplify::mod(results[d], chunk) + Expr::runtime(0) * chunk;
  IndexingMap map(Domain(build::variables(in), {}, {Variable{Interval{0, group - 1}, {}}}), std::move(results));
  map.runtime_sources() = {group_position(group)};
  sets[0].push_back(std::move(map));
  return sets;
}

std::vector<MapSet> i2o_reduce_scatter(const OpContext& op, std::size_t operand) {
  const auto dims = op.required_int_list("dimensions");
  const auto in = op.operand_dims(operand);
  const auto out = op.output_dims(operand);
  if (dims.size() != 1 || dims[0] < 0 || static_cast<std::size_t>(dims[0]) >= in.size() || in.size() != out.size() ||
      out[static_cast<std::size_t>(dims[0])] == 0)
    throw Unsupported("reduce-scatter needs one dimension of matching shapes");
  // Element y feeds the shard of device y floordiv n, at y mod n.
  const auto d = static_cast<std::size_t>(dims[0]);
  std::vector<Expr> results = build::dims(in.size());
  results[d] = simplify::mod(results[d], out[d]);
  std::vector<MapSet> sets(op.output_count());
  sets.at(operand).push_back(build::map(in, std::move(results)));
  return sets;
}

}  // namespace hlo_index::indexing::detail

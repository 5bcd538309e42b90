// custom-call SPMDFullToShardShape and SPMDShardToFullShape: the SPMD
// partitioner's markers around manually partitioned code (JAX shard_map). A
// full array cut into shards of the result's (or the operand's) shape, one per
// device: along each dimension of size f cut into shards of size s, the device
// with shard index t holds elements [t * s, t * s + s) (the last shard padded
// when s does not divide f). Which device holds which shard is the sharding's
// device assignment; the maps need only the shard index, which the shapes
// bound: t in [0, ceil(f / s) - 1].
//
// FullToShard: output element j of a device reads element t * s + j of the full
// operand, t the device's shard index along that dimension: a runtime variable
// per cut dimension (known when the program runs, the same for every element),
// and padding (t * s + j >= f) reads nothing. ShardToFull: full element i is
// element i mod s of the shard of the device with index i floordiv s; the
// replica id says which, as the position of the shard in row-major order over
// the shards of all cut dimensions (as an all-gather's names the replica).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

// The shard and full dimensions, checked (one array operand, ranks equal, no shard larger), and
// the shards along each dimension (1: the dimension is not cut).
struct ShardShapes {
  std::vector<std::int64_t> shard, full, shards;
};

ShardShapes shard_shapes(const OpContext& op, bool to_shard) {
  if (op.operand_count() != 1 || op.shape().is_tuple || op.operand_shape(0).is_tuple)
    throw Unsupported("one array operand expected");
  ShardShapes s;
  s.shard = to_shard ? op.output_dims(0) : op.operand_dims(0);
  s.full = to_shard ? op.operand_dims(0) : op.output_dims(0);
  if (s.shard.size() != s.full.size()) throw Unsupported("the shard and the full array differ in rank");
  for (std::size_t k = 0; k < s.full.size(); ++k) {
    if (s.shard[k] > s.full[k] || (s.shard[k] == 0 && s.full[k] != 0))
      throw Unsupported("a shard larger than the full array");
    s.shards.push_back(s.shard[k] == 0 ? 1 : (s.full[k] + s.shard[k] - 1) / s.shard[k]);
  }
  return s;
}

// `map` within bounds: each (expression, interval) a constraint of its domain.
IndexingMap within(IndexingMap map, const std::vector<std::pair<Expr, Interval>>& bounds) {
  for (const auto& [e, interval] : bounds)
    if (!map.domain().add_constraint(e, interval)) map.set_known_empty();
  return map;
}

RuntimeSource shard_index_source(std::size_t k, std::int64_t shards) {
  RuntimeSource source;
  source.source = "the device's shard index along dimension " + std::to_string(k);
  source.feasible = Interval{0, shards - 1};
  source.uniform = true;
  return source;
}

// The runtime shard indices of a device, one per cut dimension, with their sources.
struct ShardIndices {
  std::vector<Variable> variables;
  std::vector<RuntimeSource> sources;
  std::vector<std::optional<Expr>> of_dimension;  // none: the dimension is not cut
};

ShardIndices shard_indices(const ShardShapes& s) {
  ShardIndices out;
  for (std::size_t k = 0; k < s.full.size(); ++k) {
    if (s.shards[k] == 1) {
      out.of_dimension.emplace_back();
      continue;
    }
    out.of_dimension.emplace_back(Expr::runtime(u32(out.variables.size())));
    out.variables.push_back(Variable{Interval{0, s.shards[k] - 1}, {}});
    out.sources.push_back(shard_index_source(k, s.shards[k]));
  }
  return out;
}

// Shard element j of the device with shard indices t: full element t * s + j
// (FullToShard's output -> operand); padding reads nothing. With `inverse`,
// FullToShard's operand -> output: full element x is shard element x - t * s of
// that device when it lies in its shard.
IndexingMap through_shard_index(const ShardShapes& s, bool inverse) {
  ShardIndices t = shard_indices(s);
  const std::vector<std::int64_t>& from = inverse ? s.full : s.shard;
  std::vector<Expr> results = build::dims(from.size());
  std::vector<std::pair<Expr, Interval>> bounds;
  for (std::size_t k = 0; k < from.size(); ++k) {
    if (!t.of_dimension[k]) continue;
    const Expr shift = *t.of_dimension[k] * s.shard[k];
    results[k] = inverse ? results[k] - shift : results[k] + shift;
    bounds.emplace_back(results[k], inverse ? Interval{0, s.shard[k] - 1} : Interval{0, s.full[k] - 1});
  }
  IndexingMap map(Domain(build::variables(from), {}, std::move(t.variables)), std::move(results));
  map.runtime_sources() = std::move(t.sources);
  return within(std::move(map), bounds);
}

// Full element x is element x mod s of the shard of index x floordiv s
// (ShardToFull's output -> operand), the shard's position in row-major order
// as the replica id, as an all-gather's.
IndexingMap into_shard(const ShardShapes& s) {
  std::vector<Expr> results = build::dims(s.full.size());
  Expr position = Expr::constant(0);
  for (std::size_t k = 0; k < s.full.size(); ++k) {
    if (s.shards[k] == 1) continue;
    const Expr x = results[k];
    results[k] = simplify::mod(x, s.shard[k]);
    position = position * s.shards[k] + simplify::floor_div(x, s.shard[k]);
  }
  IndexingMap map = build::map(s.full, std::move(results));
  map.replica_id() = {position};
  return map;
}

// Shard element j is full element j + r * s for every shard index r (a range
// variable per cut dimension: the devices; ShardToFull's operand -> output, as
// an all-gather's), padding left out.
IndexingMap out_of_shard(const ShardShapes& s) {
  std::vector<Expr> results = build::dims(s.shard.size());
  std::vector<std::int64_t> ranges;
  std::vector<std::pair<Expr, Interval>> bounds;
  for (std::size_t k = 0; k < s.shard.size(); ++k) {
    if (s.shards[k] == 1) continue;
    results[k] = results[k] + Expr::range(u32(ranges.size())) * s.shard[k];
    ranges.push_back(s.shards[k]);
    bounds.emplace_back(results[k], Interval{0, s.full[k] - 1});
  }
  return within(build::map(s.shard, std::move(results), ranges), bounds);
}

}  // namespace

std::vector<MapSet> o2i_spmd_shard(const OpContext& op, bool to_shard) {
  const ShardShapes s = shard_shapes(op, to_shard);
  return {MapSet{to_shard ? through_shard_index(s, false) : into_shard(s)}};
}

std::vector<MapSet> i2o_spmd_shard(const OpContext& op, bool to_shard) {
  const ShardShapes s = shard_shapes(op, to_shard);
  return {MapSet{to_shard ? through_shard_index(s, true) : out_of_shard(s)}};
}

}  // namespace hlo_index::indexing::detail

// Ops whose maps are a permutation, a shift or a selection of dimensions:
// elementwise, broadcast, transpose, reverse, slice, concatenate.
#include <algorithm>

#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

// Elementwise: the identity, except that a scalar operand of a non-scalar
// op (select's predicate, clamp's bounds) is read by every element.
std::vector<MapSet> o2i_elementwise(const OpContext& op) {
  if (op.shape().is_tuple) throw Unsupported("a tuple-shaped elementwise op");
  const auto out = op.output_dims(0);
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < op.operand_count(); ++k) {
    const auto in = op.operand_dims(k);
    if (in.empty() && !out.empty()) {
      maps.push_back(build::scalar(out));
    } else if (in != out) {
      throw Unsupported("operand " + std::to_string(k) + " has a different shape than the output");
    } else {
      maps.push_back(IndexingMap::identity(out));
    }
  }
  return one_each(std::move(maps));
}

std::vector<MapSet> i2o_elementwise(const OpContext& op, std::size_t operand, MapStyle style) {
  if (op.shape().is_tuple) throw Unsupported("a tuple-shaped elementwise op");
  const auto out = op.output_dims(0);
  if (op.operand_dims(operand).empty() && !out.empty() && style == MapStyle::kExact) {
    return one_each({build::to_every_element(out)});
  }
  // XLA gives the identity over the output even for a scalar operand.
  return one_each({IndexingMap::identity(out)});
}

namespace {

// XLA's parser lets the broadcast of a scalar leave `dimensions` out: there are none.
std::vector<std::int64_t> broadcast_dimensions(const OpContext& op) {
  if (!op.attribute("dimensions") && op.operand_dims(0).empty()) return {};
  return op.required_int_list("dimensions");
}

}  // namespace

std::vector<MapSet> o2i_broadcast(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto dims = broadcast_dimensions(op);
  std::vector<Expr> results;
  for (std::int64_t d : dims) {
    if (d < 0 || static_cast<std::size_t>(d) >= out.size()) throw Unsupported("broadcast dimension out of range");
    results.push_back(Expr::dim(static_cast<std::uint32_t>(d)));
  }
  return one_each({build::map(out, std::move(results))});
}

std::vector<MapSet> i2o_broadcast(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto in = op.operand_dims(0);
  const auto dims = broadcast_dimensions(op);
  std::vector<Expr> results(out.size());
  std::vector<bool> from_operand(out.size(), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || static_cast<std::size_t>(dims[i]) >= out.size())
      throw Unsupported("broadcast dimension out of range");
    results[static_cast<std::size_t>(dims[i])] = Expr::dim(static_cast<std::uint32_t>(i));
    from_operand[static_cast<std::size_t>(dims[i])] = true;
  }
  std::vector<std::int64_t> new_dims;
  for (std::size_t j = 0; j < out.size(); ++j) {
    if (from_operand[j]) continue;
    results[j] = Expr::range(static_cast<std::uint32_t>(new_dims.size()));
    new_dims.push_back(out[j]);
  }
  return one_each({build::map(in, std::move(results), new_dims)});
}

namespace {

std::vector<std::size_t> permutation(const OpContext& op, std::size_t rank) {
  const auto perm = op.required_int_list("dimensions");
  std::vector<std::size_t> out;
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank) throw Unsupported("transpose dimensions do not match the rank");
  for (std::int64_t p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= rank || seen[static_cast<std::size_t>(p)]) {
      throw Unsupported("transpose dimensions are not a permutation");
    }
    seen[static_cast<std::size_t>(p)] = true;
    out.push_back(static_cast<std::size_t>(p));
  }
  return out;
}

}  // namespace

// Output dimension j is operand dimension perm[j].
std::vector<MapSet> o2i_transpose(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto perm = permutation(op, out.size());
  std::vector<Expr> results(out.size());
  for (std::size_t j = 0; j < perm.size(); ++j) results[perm[j]] = Expr::dim(static_cast<std::uint32_t>(j));
  return one_each({build::map(out, std::move(results))});
}

std::vector<MapSet> i2o_transpose(const OpContext& op) {
  const auto in = op.operand_dims(0);
  const auto perm = permutation(op, in.size());
  std::vector<Expr> results;
  results.reserve(perm.size());
  for (std::size_t p : perm) results.push_back(Expr::dim(static_cast<std::uint32_t>(p)));
  return one_each({build::map(in, std::move(results))});
}

// Its own inverse: the same map both ways.
std::vector<MapSet> reverse_maps(const OpContext& op) {
  const auto out = op.output_dims(0);
  std::vector<Expr> results = build::dims(out.size());
  for (std::int64_t d : op.required_int_list("dimensions")) {
    if (d < 0 || static_cast<std::size_t>(d) >= out.size()) throw Unsupported("reverse dimension out of range");
    const auto k = static_cast<std::size_t>(d);
    results[k] = -Expr::dim(static_cast<std::uint32_t>(k)) + (out[k] - 1);
  }
  return one_each({build::map(out, std::move(results))});
}

namespace {

std::vector<parser::SliceDim> slice_dims(const OpContext& op, std::size_t rank) {
  auto s = parser::slice_attribute(op.computation, op.instruction());
  if (!s || s->size() != rank) throw Unsupported("the slice attribute is missing or does not match the rank");
  for (const auto& d : *s) {
    if (d.stride <= 0) throw Unsupported("a slice stride must be positive");
  }
  return *s;
}

}  // namespace

std::vector<MapSet> o2i_slice(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto slice = slice_dims(op, out.size());
  std::vector<Expr> results;
  for (std::size_t i = 0; i < out.size(); ++i) {
    results.push_back(Expr::dim(static_cast<std::uint32_t>(i)) * slice[i].stride + slice[i].start);
  }
  return one_each({build::map(out, std::move(results))});
}

std::vector<MapSet> i2o_slice(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto in = op.operand_dims(0);
  const auto slice = slice_dims(op, in.size());
  std::vector<Expr> results;
  for (std::size_t i = 0; i < in.size(); ++i) {
    Expr shifted = Expr::dim(static_cast<std::uint32_t>(i)) - slice[i].start;
    results.push_back(slice[i].stride == 1 ? shifted : simplify::floor_div(shifted, slice[i].stride));
  }
  IndexingMap map = build::map(in, std::move(results));
  for (std::size_t i = 0; i < in.size(); ++i) {
    Expr d = Expr::dim(static_cast<std::uint32_t>(i));
    map.add_constraint(d, Interval{slice[i].start, (out[i] - 1) * slice[i].stride + slice[i].start});
    if (slice[i].stride != 1)
      map.add_constraint(simplify::mod(d - slice[i].start, slice[i].stride), Interval::point(0));
  }
  return one_each({std::move(map)});
}

namespace {

std::int64_t concat_dimension(const OpContext& op) {
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1) throw Unsupported("concatenate needs exactly one dimension");
  return dims[0];
}

}  // namespace

std::vector<MapSet> o2i_concatenate(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto c = static_cast<std::size_t>(concat_dimension(op));
  if (c >= out.size()) throw Unsupported("concatenate dimension out of range");
  std::vector<IndexingMap> maps;
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < op.operand_count(); ++k) {
    const auto in = op.operand_dims(k);
    std::vector<Expr> results = build::dims(out.size());
    results[c] = results[c] - offset;
    IndexingMap map = build::map(out, std::move(results));
    map.add_constraint(Expr::dim(static_cast<std::uint32_t>(c)), Interval{offset, offset + in[c] - 1});
    maps.push_back(std::move(map));
    offset += in[c];
  }
  return one_each(std::move(maps));
}

std::vector<MapSet> i2o_concatenate(const OpContext& op, std::size_t operand) {
  const auto c = static_cast<std::size_t>(concat_dimension(op));
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < operand; ++k) offset += op.operand_dims(k).at(c);
  const auto in = op.operand_dims(operand);
  std::vector<Expr> results = build::dims(in.size());
  results.at(c) = results[c] + offset;
  return one_each({build::map(in, std::move(results))});
}

}  // namespace hlo_index::indexing::detail

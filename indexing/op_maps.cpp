// Dispatch (by the op's hlo::MapFamily, through k_family_maps), and the ops
// whose maps are a permutation, a shift or a selection of dimensions:
// elementwise, broadcast, transpose, reverse, slice, concatenate, tuples and
// all-gather.
#include "indexing/op_maps.hpp"

#include <algorithm>

#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing {

using hlo::Opcode;
namespace detail {

std::vector<MapSet> one_each(std::vector<IndexingMap> maps) {
  std::vector<MapSet> out;
  out.reserve(maps.size());
  for (IndexingMap& m : maps) out.push_back(MapSet{std::move(m)});
  return out;
}

}  // namespace detail

namespace {

using detail::one_each;

// Elementwise: the identity, except that a scalar operand of a non-scalar
// op (select's predicate, clamp's bounds) is read by every element.
std::vector<MapSet> o2i_elementwise(const OpContext& op) {
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
  const auto out = op.output_dims(0);
  if (op.operand_dims(operand).empty() && !out.empty() && style == MapStyle::kExact) {
    return one_each({build::to_every_element(out)});
  }
  // XLA gives the identity over the output even for a scalar operand.
  return one_each({IndexingMap::identity(out)});
}

std::vector<MapSet> o2i_broadcast(const OpContext& op) {
  const auto out = op.output_dims(0);
  const auto dims = op.required_int_list("dimensions");
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
  const auto dims = op.required_int_list("dimensions");
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

std::vector<parser::SliceDim> slice_dims(const OpContext& op, std::size_t rank) {
  auto s = parser::slice_attribute(op.computation, op.instruction());
  if (!s || s->size() != rank) throw Unsupported("the slice attribute is missing or does not match the rank");
  for (const auto& d : *s) {
    if (d.stride <= 0) throw Unsupported("a slice stride must be positive");
  }
  return *s;
}

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

std::int64_t concat_dimension(const OpContext& op) {
  const auto dims = op.required_int_list("dimensions");
  if (dims.size() != 1) throw Unsupported("concatenate needs exactly one dimension");
  return dims[0];
}

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

// tuple: output k is operand k; the other operands are not read for it.
// A nested tuple element has no index space of its own: UNDEFINED for that
// element only.
IndexingMap element_identity(const hlo::Shape& shape) {
  if (shape.is_tuple) return IndexingMap::undefined("a nested tuple element");
  return IndexingMap::identity(dimension_sizes(shape));
}

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

[[noreturn]] void no_maps(const OpContext& op) {
  throw Unsupported(
      std::string("no indexing maps for '").append(op.module.opcode_text(op.instruction())).append("' yet"));
}

std::vector<MapSet> o2i_elementwise_array(const OpContext& op) {
  if (op.shape().is_tuple) throw Unsupported("a tuple-shaped elementwise op");
  return o2i_elementwise(op);
}

std::vector<MapSet> i2o_elementwise_array(const OpContext& op, std::size_t operand, MapStyle style) {
  if (op.shape().is_tuple) throw Unsupported("a tuple-shaped elementwise op");
  return i2o_elementwise(op, operand, style);
}

// The maps of one family, both directions: output (or operand) `index`.
struct FamilyMaps {
  hlo::MapFamily family;
  std::vector<MapSet> (*output_to_input)(const OpContext& op, std::size_t output, MapStyle style);
  std::vector<MapSet> (*input_to_output)(const OpContext& op, std::size_t operand, MapStyle style);
};

using F = hlo::MapFamily;
using Op = const OpContext&;
using Index = std::size_t;
using Style = MapStyle;
using Sets = std::vector<MapSet>;

// clang-format off
// In the order of hlo::MapFamily (checked below).
constexpr FamilyMaps k_family_maps[] = {
    {F::kNone, [](Op op, Index, Style) -> Sets { no_maps(op); }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kNoOperands, [](Op, Index, Style) { return Sets{}; }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
    {F::kElementwise, [](Op op, Index, Style) { return o2i_elementwise_array(op); }, i2o_elementwise_array},
    {F::kBroadcast, [](Op op, Index, Style) { return o2i_broadcast(op); },
                    [](Op op, Index, Style) { return i2o_broadcast(op); }},
    {F::kTranspose, [](Op op, Index, Style) { return o2i_transpose(op); },
                    [](Op op, Index, Style) { return i2o_transpose(op); }},
    {F::kReverse, [](Op op, Index, Style) { return reverse_maps(op); },
                  [](Op op, Index, Style) { return reverse_maps(op); }},
    {F::kSlice, [](Op op, Index, Style) { return o2i_slice(op); }, [](Op op, Index, Style) { return i2o_slice(op); }},
    {F::kConcatenate, [](Op op, Index, Style) { return o2i_concatenate(op); },
                      [](Op op, Index operand, Style) { return i2o_concatenate(op, operand); }},
    {F::kReshape, [](Op op, Index, Style) { return detail::o2i_reshape(op); },
                  [](Op op, Index, Style) { return detail::i2o_reshape(op); }},
    {F::kBitcast, [](Op op, Index, Style style) { return detail::o2i_bitcast(op, style); },
                  [](Op op, Index, Style style) { return detail::i2o_bitcast(op, style); }},
    {F::kBitcastConvert, [](Op op, Index, Style) { return detail::o2i_bitcast_convert(op); },
                         [](Op op, Index, Style) { return detail::i2o_bitcast_convert(op); }},
    {F::kReduce, [](Op op, Index output, Style) { return detail::o2i_reduce(op, output); },
                 [](Op op, Index operand, Style) { return detail::i2o_reduce(op, operand); }},
    {F::kDot, [](Op op, Index, Style) { return detail::o2i_dot(op); },
              [](Op op, Index operand, Style) { return detail::i2o_dot(op, operand); }},
    {F::kPad, [](Op op, Index, Style style) { return detail::o2i_pad(op, style); }, detail::i2o_pad},
    {F::kReduceWindow, [](Op op, Index output, Style) { return detail::o2i_reduce_window(op, output); },
                       [](Op op, Index operand, Style) { return detail::i2o_reduce_window(op, operand); }},
    {F::kConvolution, [](Op op, Index, Style style) { return detail::o2i_convolution(op, style); },
                      detail::i2o_convolution},
    {F::kDynamicSlice, [](Op op, Index, Style style) { return detail::o2i_dynamic_slice(op, style); },
                       detail::i2o_dynamic_slice},
    {F::kDynamicUpdateSlice, [](Op op, Index, Style style) { return detail::o2i_dynamic_update_slice(op, style); },
                             detail::i2o_dynamic_update_slice},
    {F::kGather, [](Op op, Index, Style style) { return detail::o2i_gather(op, style); }, detail::i2o_gather},
    {F::kGetTupleElement, [](Op op, Index output, Style) { return gte_maps(op, output, false); },
                          [](Op op, Index, Style) { return gte_maps(op, 0, true); }},
    {F::kTuple, [](Op op, Index output, Style) { return o2i_tuple(op, output); },
                [](Op op, Index operand, Style) { return i2o_tuple(op, operand); }},
    {F::kAllGather, [](Op op, Index output, Style) { return o2i_all_gather(op, output); },
                    [](Op op, Index operand, Style) { return i2o_all_gather(op, operand); }},
    // Calls are composed by IndexingAnalysis; a single call has no maps of its own.
    {F::kCall, [](Op op, Index, Style) -> Sets { no_maps(op); }, [](Op op, Index, Style) -> Sets { no_maps(op); }},
};
// clang-format on

constexpr bool covers_every_family() {
  constexpr auto n = static_cast<std::size_t>(F::kCount);
  if (std::size(k_family_maps) != n) return false;
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<std::size_t>(k_family_maps[k].family) != k) return false;
  return true;
}
static_assert(covers_every_family(), "k_family_maps needs one row per hlo::MapFamily, in its order");

const FamilyMaps& family_maps(const OpContext& op) {
  return k_family_maps[static_cast<std::size_t>(hlo::op_traits(op.opcode()).maps)];
}

}  // namespace

std::vector<MapSet> output_to_input(const OpContext& op, std::size_t output, MapStyle style) {
  if (output >= op.output_count()) throw Unsupported("the instruction has no output " + std::to_string(output));
  return family_maps(op).output_to_input(op, output, style);
}

std::vector<MapSet> input_to_output(const OpContext& op, std::size_t operand, MapStyle style) {
  if (operand >= op.operand_count()) throw Unsupported("the instruction has no operand " + std::to_string(operand));
  return family_maps(op).input_to_output(op, operand, style);
}

}  // namespace hlo_index::indexing

// reshape, dynamic-reshape, bitcast and bitcast-convert: ops that keep the elements in place
// and only change how they are indexed.
#include <algorithm>
#include <numeric>

#include "indexing/maps/layout_maps.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "layout/physical_layout.hpp"
#include "parser/shape.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::vector<MapSet> reshaped(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  if (build::product(from) != build::product(to)) throw Unsupported("reshape between different element counts");
  return one_each({build::map(from, build::reshape_index(from, build::dims(from.size()), to))});
}

// Physical order (major to minor) of an array's dimensions: the reverse of
// minor_to_major; the default layout is row-major.
std::vector<std::size_t> physical_order(const hlo::Shape& shape) {
  std::vector<std::size_t> order(shape.rank());
  if (!shape.layout || shape.layout->minor_to_major.empty()) {
    std::iota(order.begin(), order.end(), 0);
    return order;
  }
  const auto& m2m = shape.layout->minor_to_major;
  if (m2m.size() != shape.rank()) throw Unsupported("the layout does not match the rank");
  for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<std::size_t>(m2m[m2m.size() - 1 - j]);
  return order;
}

// A bitcast keeps every element at its physical offset: `from` logical ->
// `from` physical -> (row-major reshape) -> `to` physical -> `to` logical.
// Tiles are not applied here (tiled_bitcast_map applies them).
IndexingMap bitcast_map(const hlo::Shape& from, const hlo::Shape& to) {
  if (hlo::element_type_bits(from.type) != hlo::element_type_bits(to.type)) {
    throw Unsupported("a bitcast between element types of different widths");
  }
  const auto from_dims = dimension_sizes(from);
  const auto to_dims = dimension_sizes(to);
  if (build::product(from_dims) != build::product(to_dims))
    throw Unsupported("a bitcast between different element counts");
  const auto from_order = physical_order(from);
  const auto to_order = physical_order(to);
  std::vector<std::int64_t> from_physical, to_physical;
  std::vector<Expr> from_index;
  for (std::size_t p : from_order) {
    from_physical.push_back(from_dims[p]);
    from_index.push_back(Expr::dim(static_cast<std::uint32_t>(p)));
  }
  for (std::size_t p : to_order) to_physical.push_back(to_dims[p]);
  const std::vector<Expr> to_index = build::reshape_index(from_physical, from_index, to_physical);
  std::vector<Expr> results(to_dims.size());
  for (std::size_t j = 0; j < to_order.size(); ++j) results[to_order[j]] = to_index[j];
  return build::map(from_dims, std::move(results));
}

bool has_tiles(const hlo::Shape& shape) { return shape.layout && !shape.layout->tiles.empty(); }

// From an element offset of `from` to the element offsets of `to` that
// share its bits: one to one for equal widths; a wider `from` element spans
// k narrower ones (offset * k + s0, s0 in [0, k - 1]); a narrower one lies
// inside element offset floordiv k.
IndexingMap offset_in_other_width(std::int64_t from_slots, std::int64_t from_bits, std::int64_t to_bits) {
  const Expr offset = Expr::dim(0);
  if (from_bits == to_bits) return build::map({from_slots}, {offset});
  if (from_bits % to_bits == 0) {
    const std::int64_t k = from_bits / to_bits;
    return build::map({from_slots}, {offset * k + Expr::range(0)}, {k});
  }
  if (to_bits % from_bits == 0) return build::map({from_slots}, {simplify::floor_div(offset, to_bits / from_bits)});
  throw Unsupported("a bitcast between element widths that do not divide each other");
}

// "Same physical bits" through the buffers themselves: `from` logical ->
// offset in from's buffer (tiles applied) -> the elements of `to` stored at
// those bits. Positions whose bits are padding in `to` (or beyond its buffer)
// read nothing, so they fall outside the map's domain.
IndexingMap physical_bitcast_map(const hlo::Shape& from, const hlo::Shape& to) {
  try {
    const auto from_layout = layout::PhysicalLayout::of(from);
    const auto to_layout = layout::PhysicalLayout::of(to);
    IndexingMap to_offset = logical_to_physical(from_layout, false);
    if (from_layout.element_bits() != to_layout.element_bits()) {
      to_offset = compose(to_offset, offset_in_other_width(from_layout.allocated_elements(), from_layout.element_bits(),
                                                           to_layout.element_bits()));
    }
    IndexingMap map = compose(to_offset, physical_to_logical(to_layout, false));
    simplify(map);
    return map;
  } catch (const layout::LayoutError& e) {
    throw Unsupported(std::string("a bitcast of a shape that cannot be laid out: ").append(e.what()));
  }
}

bool element_widths_differ(const hlo::Shape& a, const hlo::Shape& b) {
  auto bits = [](const hlo::Shape& s) {
    return s.layout && s.layout->element_size_bits != 0 ? s.layout->element_size_bits : hlo::element_type_bits(s.type);
  };
  return bits(a) != bits(b);
}

IndexingMap bitcast(const hlo::Shape& from, const hlo::Shape& to, MapStyle style) {
  // XLA's analysis ignores tiles and needs equal widths; the exact relation
  // follows the bits.
  if (style == MapStyle::kExact && (has_tiles(from) || has_tiles(to) || element_widths_differ(from, to)))
    return physical_bitcast_map(from, to);
  return bitcast_map(from, to);
}

}  // namespace

std::vector<MapSet> o2i_reshape(const OpContext& op) { return reshaped(op.output_dims(0), op.operand_dims(0)); }
std::vector<MapSet> i2o_reshape(const OpContext& op) { return reshaped(op.operand_dims(0), op.output_dims(0)); }

// dynamic-reshape(operand, size...): the operand in row-major order, laid out
// over the output's runtime sizes (one scalar operand per dimension, read by
// every element). With every dimension static the sizes are the dimensions
// and it is a reshape, exactly. When only the major dimensions of both
// shapes are bounded-dynamic, the minor sizes, and so the row-major
// positions, are those of the bounds: the reshape of the bounds, approximate
// (elements past the runtime size read nothing). Otherwise any element.
std::vector<MapSet> o2i_dynamic_reshape(const OpContext& op) {
  const hlo::Shape& out = op.shape();
  const hlo::Shape& in = op.operand_shape(0);
  if (op.operand_count() != out.rank() + 1) throw Unsupported("dynamic-reshape needs one size operand per dimension");
  auto dynamic_after_major = [](const hlo::Shape& s) {
    for (std::size_t d = 1; d < s.dim_kinds.size(); ++d)
      if (s.dim_kinds[d] != hlo::DimKind::kStatic) return true;
    return false;
  };
  auto dynamic = [](const hlo::Shape& s) {
    return std::any_of(s.dim_kinds.begin(), s.dim_kinds.end(),
                       [](hlo::DimKind k) { return k != hlo::DimKind::kStatic; });
  };
  const auto out_dims = op.output_dims(0);
  const auto in_dims = op.operand_dims(0);
  if (std::find(out_dims.begin(), out_dims.end(), -1) != out_dims.end() ||
      std::find(in_dims.begin(), in_dims.end(), -1) != in_dims.end())
    throw Unsupported("an unbounded dynamic dimension ('?')");
  std::vector<MapSet> sets;
  if (dynamic_after_major(out) || dynamic_after_major(in)) {
    IndexingMap whole = build::map(out_dims, build::ranges(in_dims.size()), in_dims);
    whole.mark_approximate("a dynamic-reshape whose minor sizes are known only at run time");
    sets.push_back({std::move(whole)});
  } else {
    sets = reshaped(out_dims, in_dims);
    if (dynamic(out) || dynamic(in)) {
      for (IndexingMap& m : sets[0]) m.mark_approximate("the bounds of a dynamic-reshape's major dimension");
    }
  }
  for (std::size_t k = 1; k < op.operand_count(); ++k) sets.push_back({build::scalar(out_dims)});
  return sets;
}

std::vector<MapSet> i2o_dynamic_reshape(const OpContext& op, std::size_t operand) {
  if (operand > 0) return i2o_whole_operands(op, operand);
  return maps_by_inverse(op, operand, [](const OpContext& o, std::size_t) { return o2i_dynamic_reshape(o); });
}

std::vector<MapSet> o2i_bitcast(const OpContext& op, MapStyle style) {
  return one_each({bitcast(op.shape(), op.operand_shape(0), style)});
}
std::vector<MapSet> i2o_bitcast(const OpContext& op, MapStyle style) {
  return one_each({bitcast(op.operand_shape(0), op.shape(), style)});
}

// Equal widths: elementwise. A narrower output type adds a minor dimension
// (one wide element becomes several narrow ones), a wider one drops it.
namespace {
std::vector<MapSet> bitcast_convert(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  if (from == to) return one_each({IndexingMap::identity(from)});
  if (to.size() + 1 == from.size() && std::equal(to.begin(), to.end(), from.begin())) {
    return one_each({build::map(from, build::dims(to.size()))});
  }
  if (from.size() + 1 == to.size() && std::equal(from.begin(), from.end(), to.begin())) {
    std::vector<Expr> results = build::dims(from.size());
    results.push_back(Expr::range(0));
    return one_each({build::map(from, std::move(results), {to.back()})});
  }
  throw Unsupported("bitcast-convert shapes do not match");
}
}  // namespace

std::vector<MapSet> o2i_bitcast_convert(const OpContext& op) {
  return bitcast_convert(op.output_dims(0), op.operand_dims(0));
}
std::vector<MapSet> i2o_bitcast_convert(const OpContext& op) {
  return bitcast_convert(op.operand_dims(0), op.output_dims(0));
}

}  // namespace hlo_index::indexing::detail

// reduce-window and select-and-scatter: a window over the padded,
// base-dilated operand.
#include <algorithm>

#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::vector<parser::WindowDim> window_of(const OpContext& op, std::size_t rank) {
  auto window = parser::window_attribute(op.computation, op.instruction());
  if (!window || window->size() != rank) throw Unsupported("the window does not match the rank");
  for (const auto& w : *window) {
    if (w.size <= 0 || w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0) {
      throw Unsupported("window sizes, strides and dilations must be positive");
    }
  }
  return *window;
}

// The window of output (window position) o: (d)[s] -> (d * stride + s *
// dilation) into the padded and base-dilated operand, then through its
// padding map to the operand element `in`'s index space.
IndexingMap window_elements(const std::vector<std::int64_t>& out, const std::vector<std::int64_t>& in,
                            const std::vector<parser::WindowDim>& window) {
  if (out.size() != in.size()) throw Unsupported("the window's output rank differs from the input rank");
  std::vector<Expr> positions;
  std::vector<std::int64_t> sizes, padded, low, interior;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& w = window[i];
    positions.push_back(Expr::dim(u32(i)) * w.stride + Expr::range(u32(i)) * w.window_dilation);
    sizes.push_back(w.size);
    padded.push_back(in[i] == 0 ? w.pad_low + w.pad_high : (in[i] - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high);
    low.push_back(w.pad_low);
    interior.push_back(w.base_dilation - 1);
  }
  return compose(build::map(out, std::move(positions), sizes), padding_map(in, padded, low, interior));
}

// The windows that cover operand element x: x sits at p = x * base_dilation
// + pad_low of the padded array; window position s of output o covers p = o
// * stride + s * dilation.
IndexingMap covering_windows(const std::vector<std::int64_t>& in, const std::vector<std::int64_t>& out,
                             const std::vector<parser::WindowDim>& window) {
  if (out.size() != in.size()) throw Unsupported("the window's output rank differs from the input rank");
  std::vector<Expr> results, distances;
  std::vector<std::int64_t> sizes;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const auto& w = window[i];
    Expr distance = Expr::dim(u32(i)) * w.base_dilation + w.pad_low - Expr::range(u32(i)) * w.window_dilation;
    results.push_back(w.stride == 1 ? distance : simplify::floor_div(distance, w.stride));
    distances.push_back(distance);
    sizes.push_back(w.size);
  }
  IndexingMap map = build::map(in, results, sizes);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (window[i].stride != 1) map.add_constraint(simplify::mod(distances[i], window[i].stride), Interval::point(0));
    map.add_constraint(results[i], Interval{0, out[i] - 1});
  }
  return map;
}

}  // namespace

//===--- reduce-window ---===//

std::vector<MapSet> o2i_reduce_window(const OpContext& op, std::size_t output) {
  const std::size_t n = input_count(op);
  const auto out = op.output_dims(output);
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = op.operand_dims(k);
    maps.push_back(window_elements(out, in, window_of(op, in.size())));
  }
  for (std::size_t k = 0; k < n; ++k) maps.push_back(build::scalar(out));
  return one_each(std::move(maps));
}

std::vector<MapSet> i2o_reduce_window(const OpContext& op, std::size_t operand) {
  const std::size_t n = input_count(op);
  std::vector<MapSet> sets;
  for (std::size_t j = 0; j < op.output_count(); ++j) {
    const auto out = op.output_dims(j);
    if (operand >= n) {
      sets.push_back({build::to_every_element(out)});
      continue;
    }
    const auto in = op.operand_dims(operand);
    sets.push_back({covering_windows(in, out, window_of(op, in.size()))});
  }
  return sets;
}

//===--- select-and-scatter ---===//

namespace {

struct SelectAndScatterShapes {
  std::vector<std::int64_t> operand, source;
  std::vector<parser::WindowDim> window;
};

// (operand, source, init_value): the result has the operand's shape, the
// source the shape of a reduce-window of the operand over `window`.
SelectAndScatterShapes select_and_scatter_shapes(const OpContext& op) {
  if (op.operand_count() != 3 || !op.operand_dims(2).empty())
    throw Unsupported("select-and-scatter takes an operand, a source and a scalar init value");
  SelectAndScatterShapes s{op.operand_dims(0), op.operand_dims(1), {}};
  if (op.output_dims(0) != s.operand) throw Unsupported("select-and-scatter's result differs from its operand's shape");
  s.window = window_of(op, s.operand.size());
  return s;
}

// The selection in a window is data-dependent (select compares the window's
// values): the maps give every element any selection could involve, so the
// operand and source maps are over-approximations, marked approximate.
IndexingMap selection_dependent(IndexingMap m) {
  m.mark_approximate("the elements any selection could involve");
  return m;
}

}  // namespace

// Output element x is init_value combined (scatter) with source[o] for every
// window o that selected x; whether o selected x depends on every element of
// window o. So x may read source[o] and every operand element of window o,
// for each window o covering x.
std::vector<MapSet> o2i_select_and_scatter(const OpContext& op, std::size_t) {
  const auto s = select_and_scatter_shapes(op);
  const IndexingMap windows = covering_windows(s.operand, s.source, s.window);
  return one_each({selection_dependent(compose(windows, window_elements(s.source, s.operand, s.window))),
                   selection_dependent(windows), build::scalar(s.operand)});
}

// The operand relation "x and y share a window" is symmetric: the same map
// both ways. source[o] may feed every element of window o.
std::vector<MapSet> i2o_select_and_scatter(const OpContext& op, std::size_t operand) {
  const auto s = select_and_scatter_shapes(op);
  switch (operand) {
    case 0: return {o2i_select_and_scatter(op, 0)[0]};
    case 1: return one_each({selection_dependent(window_elements(s.source, s.operand, s.window))});
    default: return one_each({build::to_every_element(s.operand)});
  }
}

}  // namespace hlo_index::indexing::detail

// reduce-window: a window over the padded, base-dilated operand.
#include <algorithm>

#include "indexing/map_ops.hpp"
#include "indexing/op_maps_internal.hpp"
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

}  // namespace

// The window without padding, (d)[s] -> (d * stride + s * dilation), into
// the padded and base-dilated operand, then through its padding map.
std::vector<MapSet> o2i_reduce_window(const OpContext& op, std::size_t output) {
  const std::size_t n = input_count(op);
  const auto out = op.output_dims(output);
  std::vector<IndexingMap> maps;
  for (std::size_t k = 0; k < n; ++k) {
    const auto in = op.operand_dims(k);
    const auto window = window_of(op, in.size());
    if (out.size() != in.size()) throw Unsupported("reduce-window output rank differs from the input rank");
    std::vector<Expr> positions;
    std::vector<std::int64_t> sizes, padded, low, interior;
    for (std::size_t i = 0; i < in.size(); ++i) {
      const auto& w = window[i];
      positions.push_back(Expr::dim(u32(i)) * w.stride + Expr::range(u32(i)) * w.window_dilation);
      sizes.push_back(w.size);
      padded.push_back(in[i] == 0 ? w.pad_low + w.pad_high
                                  : (in[i] - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high);
      low.push_back(w.pad_low);
      interior.push_back(w.base_dilation - 1);
    }
    IndexingMap window_map = build::map(out, std::move(positions), sizes);
    maps.push_back(compose(window_map, padding_map(in, padded, low, interior)));
  }
  for (std::size_t k = 0; k < n; ++k) maps.push_back(build::scalar(out));
  return one_each(std::move(maps));
}

// Operand element x sits at p = x * base_dilation + pad_low of the padded
// array; window position s of output o covers p = o * stride + s * dilation.
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
    const auto window = window_of(op, in.size());
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
    sets.push_back({std::move(map)});
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail

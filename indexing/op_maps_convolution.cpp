// convolution: dim_labels, window (stride, padding, lhs/rhs dilation),
// feature_group_count and batch_group_count.
//
// Output element (b, f, o...) sums, over window positions s and input
// features c of its group, padded_input(b', g * C + c, o * stride + s *
// rhs_dilation) * kernel(s', c, f), where g is the group of f and s' is s,
// or size - 1 - s along dimensions with rhs_reversal. A term whose window
// position covers padding or a base-dilation hole reads nothing: the exact
// maps read neither the input nor the kernel there. XLA's kernel map (the
// XLA style) reads the kernel at every window position, marked approximate
// where a window position can meet padding or a hole.
#include <algorithm>

#include "indexing/map_ops.hpp"
#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::uint32_t u32(std::int64_t i) { return static_cast<std::uint32_t>(i); }
std::size_t sz(std::int64_t i) { return static_cast<std::size_t>(i); }

struct Convolution {
  parser::ConvolutionDimensions dims;
  std::vector<parser::WindowDim> window;
  std::vector<std::int64_t> input, kernel, output;
  std::int64_t feature_groups = 1, batch_groups = 1;
  std::int64_t kernel_input_features = 0;  // input features per group
};

Convolution convolution(const OpContext& op) {
  if (op.operand_count() != 2) throw Unsupported("a convolution with other than two operands");
  Convolution c;
  auto dims = parser::convolution_dimensions(op.computation, op.instruction());
  if (!dims) throw Unsupported("the convolution has no dim_labels");
  c.dims = *dims;
  c.input = op.operand_dims(0);
  c.kernel = op.operand_dims(1);
  c.output = op.output_dims(0);
  const std::size_t spatial = c.dims.input_spatial.size();
  if (spatial == 0) {
    c.window.clear();
  } else {
    auto window = parser::window_attribute(op.computation, op.instruction());
    if (!window || window->size() != spatial) throw Unsupported("the window does not match the spatial dimensions");
    c.window = *window;
  }
  if (c.dims.kernel_spatial.size() != spatial || c.dims.output_spatial.size() != spatial ||
      c.input.size() != spatial + 2 || c.kernel.size() != spatial + 2 || c.output.size() != spatial + 2) {
    throw Unsupported("dim_labels do not match the shapes");
  }
  c.feature_groups = op.int_attribute("feature_group_count").value_or(1);
  c.batch_groups = op.int_attribute("batch_group_count").value_or(1);
  const std::int64_t out_features = c.output[sz(c.dims.output_feature)];
  if (c.feature_groups <= 0 || c.batch_groups <= 0 || out_features % c.feature_groups != 0 ||
      out_features % c.batch_groups != 0) {
    throw Unsupported("group counts do not divide the output features");
  }
  c.kernel_input_features = c.kernel[sz(c.dims.kernel_input_feature)];
  for (const auto& w : c.window) {
    if (w.size <= 0 || w.stride <= 0 || w.base_dilation <= 0 || w.window_dilation <= 0) {
      throw Unsupported("window sizes, strides and dilations must be positive");
    }
  }
  // XLA's shape inference rejects these; the parser leaves such a result
  // shape unchecked, and maps built from them would index outside the operands.
  for (std::size_t i = 0; i < spatial; ++i) {
    if (c.window[i].size != c.kernel[sz(c.dims.kernel_spatial[i])]) {
      throw Unsupported("the window size differs from the kernel's spatial dimension");
    }
  }
  if (c.input[sz(c.dims.input_feature)] != c.kernel_input_features * c.feature_groups ||
      c.input[sz(c.dims.input_batch)] != c.output[sz(c.dims.output_batch)] * c.batch_groups ||
      c.kernel[sz(c.dims.kernel_output_feature)] != out_features) {
    throw Unsupported("the operand feature and batch sizes do not match the output and the group counts");
  }
  return c;
}

// Range variables of the output -> operand maps: window positions per
// spatial dimension, then the input feature within the group, then (XLA
// style only) the batch group.
std::vector<std::int64_t> o2i_ranges(const Convolution& c, bool batch_group_symbol) {
  std::vector<std::int64_t> sizes;
  for (const auto& w : c.window) sizes.push_back(w.size);
  sizes.push_back(c.kernel_input_features);
  if (batch_group_symbol) sizes.push_back(c.batch_groups);
  return sizes;
}

// The kernel index along spatial dimension i that window position s meets.
Expr kernel_position(const parser::WindowDim& w, const Expr& s) {
  return w.reversal ? Expr::constant(w.size - 1) - s : s;
}

// Restricts `map` to the window positions s of output position o along
// spatial dimension i that meet a real input element: the position in the
// base-dilated input (before padding) lies within it and, with base
// dilation, not in a hole between elements.
void require_real_input(IndexingMap& map, const Convolution& c, std::size_t i, const Expr& o, const Expr& s) {
  const auto& w = c.window[i];
  const std::int64_t n = c.input[sz(c.dims.input_spatial[i])];
  if (n == 0) {
    map.set_known_empty();
    return;
  }
  const Expr dilated = o * w.stride + s * w.window_dilation - w.pad_low;
  map.add_constraint(dilated, Interval{0, (n - 1) * w.base_dilation});
  if (w.base_dilation != 1) map.add_constraint(simplify::mod(dilated, w.base_dilation), Interval::point(0));
}

}  // namespace

namespace {

// Whether some window position can meet padding or a base-dilation hole
// (where XLA's kernel maps read the kernel although no input is there).
bool window_meets_holes(const Convolution& c) {
  return std::any_of(c.window.begin(), c.window.end(),
                     [](const auto& w) { return w.pad_low > 0 || w.pad_high > 0 || w.base_dilation > 1; });
}

}  // namespace

std::vector<MapSet> o2i_convolution(const OpContext& op, MapStyle style) {
  const Convolution c = convolution(op);
  const std::size_t spatial = c.window.size();
  const bool batch_symbol = style == MapStyle::kXla && c.batch_groups > 1;
  const auto ranges = o2i_ranges(c, batch_symbol);
  const Expr out_feature = Expr::dim(u32(c.dims.output_feature));
  const Expr out_batch = Expr::dim(u32(c.dims.output_batch));
  const Expr feature_in_group = Expr::range(u32(spatial));

  // Input: positions in the padded, lhs-dilated input, then its padding map.
  std::vector<Expr> padded_index(c.input.size());
  std::vector<std::int64_t> padded = c.input, low(c.input.size(), 0), interior(c.input.size(), 0);
  const std::int64_t batch_size = c.output[sz(c.dims.output_batch)];
  if (c.batch_groups == 1) {
    padded_index[sz(c.dims.input_batch)] = out_batch;
  } else if (batch_symbol) {
    padded_index[sz(c.dims.input_batch)] = out_batch + Expr::range(u32(spatial + 1)) * batch_size;
  } else {
    const std::int64_t per_group = c.output[sz(c.dims.output_feature)] / c.batch_groups;
    padded_index[sz(c.dims.input_batch)] = out_batch + simplify::floor_div(out_feature, per_group) * batch_size;
  }
  if (c.feature_groups == 1) {
    padded_index[sz(c.dims.input_feature)] = feature_in_group;
  } else {
    const std::int64_t per_group = c.output[sz(c.dims.output_feature)] / c.feature_groups;
    padded_index[sz(c.dims.input_feature)] =
        simplify::floor_div(out_feature, per_group) * c.kernel_input_features + feature_in_group;
  }
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto& w = c.window[i];
    const std::size_t in_dim = sz(c.dims.input_spatial[i]);
    padded_index[in_dim] =
        Expr::dim(u32(c.dims.output_spatial[i])) * w.stride + Expr::range(u32(i)) * w.window_dilation;
    const std::int64_t n = c.input[in_dim];
    padded[in_dim] = n == 0 ? w.pad_low + w.pad_high : (n - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high;
    low[in_dim] = w.pad_low;
    interior[in_dim] = w.base_dilation - 1;
  }
  IndexingMap input =
      compose(build::map(c.output, std::move(padded_index), ranges), padding_map(c.input, padded, low, interior));
  if (batch_symbol) input.mark_approximate("every batch group, not the output feature's own");

  // Kernel: XLA reads it at every window position (the same set with or
  // without reversal); exactly, only where the window meets the input.
  const bool exact = style != MapStyle::kXla;
  std::vector<Expr> kernel_index(c.kernel.size());
  for (std::size_t i = 0; i < spatial; ++i) {
    const Expr s = Expr::range(u32(i));
    kernel_index[sz(c.dims.kernel_spatial[i])] = exact ? kernel_position(c.window[i], s) : s;
  }
  kernel_index[sz(c.dims.kernel_input_feature)] = feature_in_group;
  kernel_index[sz(c.dims.kernel_output_feature)] = out_feature;
  IndexingMap kernel = build::map(c.output, std::move(kernel_index), ranges);
  if (exact) {
    for (std::size_t i = 0; i < spatial && !kernel.is_known_empty(); ++i) {
      require_real_input(kernel, c, i, Expr::dim(u32(c.dims.output_spatial[i])), Expr::range(u32(i)));
    }
  } else if (window_meets_holes(c)) {
    kernel.mark_approximate("as XLA: window positions on padding or dilation holes included");
  }
  return one_each({std::move(input), std::move(kernel)});
}

std::vector<MapSet> i2o_convolution(const OpContext& op, std::size_t operand, MapStyle style) {
  const Convolution c = convolution(op);
  const std::size_t spatial = c.window.size();
  const std::int64_t out_features = c.output[sz(c.dims.output_feature)];
  std::vector<Expr> results(c.output.size());
  std::vector<std::int64_t> ranges;
  auto new_range = [&](std::int64_t size) {
    ranges.push_back(size);
    return Expr::range(u32(ranges.size() - 1));
  };
  if (operand == 1) {
    // The output elements of the kernel's output feature (XLA style: all of
    // them) whose window meets a real input element at this kernel position.
    results[sz(c.dims.output_batch)] = new_range(c.output[sz(c.dims.output_batch)]);
    results[sz(c.dims.output_feature)] = Expr::dim(u32(c.dims.kernel_output_feature));
    for (std::size_t i = 0; i < spatial; ++i) {
      results[sz(c.dims.output_spatial[i])] = new_range(c.output[sz(c.dims.output_spatial[i])]);
    }
    IndexingMap map = build::map(c.kernel, results, ranges);
    if (style == MapStyle::kXla && window_meets_holes(c))
      map.mark_approximate("as XLA: window positions on padding or dilation holes included");
    if (style != MapStyle::kXla) {
      for (std::size_t i = 0; i < spatial && !map.is_known_empty(); ++i) {
        // Reversal is its own inverse: the window position of kernel index k.
        const Expr s = kernel_position(c.window[i], Expr::dim(u32(c.dims.kernel_spatial[i])));
        require_real_input(map, c, i, results[sz(c.dims.output_spatial[i])], s);
      }
    }
    return one_each({std::move(map)});
  }
  // Input element x is at p = x * lhs_dilation + pad_low of the padded input;
  // output o reads it at window position s when o * stride + s * rhs_dilation = p.
  std::vector<Expr> distances;
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto& w = c.window[i];
    Expr distance =
        Expr::dim(u32(c.dims.input_spatial[i])) * w.base_dilation + w.pad_low - new_range(w.size) * w.window_dilation;
    results[sz(c.dims.output_spatial[i])] = w.stride == 1 ? distance : simplify::floor_div(distance, w.stride);
    distances.push_back(distance);
  }
  const Expr in_batch = Expr::dim(u32(c.dims.input_batch));
  const Expr in_feature = Expr::dim(u32(c.dims.input_feature));
  const std::int64_t batch_size = c.output[sz(c.dims.output_batch)];
  if (c.batch_groups > 1) {
    const std::int64_t per_group = out_features / c.batch_groups;
    results[sz(c.dims.output_batch)] = simplify::mod(in_batch, batch_size);
    results[sz(c.dims.output_feature)] = simplify::floor_div(in_batch, batch_size) * per_group + new_range(per_group);
  } else if (c.feature_groups > 1) {
    const std::int64_t per_group = out_features / c.feature_groups;
    results[sz(c.dims.output_batch)] = in_batch;
    results[sz(c.dims.output_feature)] =
        simplify::floor_div(in_feature, c.kernel_input_features) * per_group + new_range(per_group);
  } else {
    results[sz(c.dims.output_batch)] = in_batch;
    results[sz(c.dims.output_feature)] = new_range(out_features);
  }
  IndexingMap map = build::map(c.input, results, ranges);
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto& w = c.window[i];
    if (w.stride != 1) map.add_constraint(simplify::mod(distances[i], w.stride), Interval::point(0));
    const std::size_t o = sz(c.dims.output_spatial[i]);
    map.add_constraint(results[o], Interval{0, c.output[o] - 1});
  }
  if (c.feature_groups > 1) {
    // Input features beyond the kernel's groups are not read.
    map.add_constraint(in_feature, Interval{0, c.feature_groups * c.kernel_input_features - 1});
  }
  return one_each({std::move(map)});
}

}  // namespace hlo_index::indexing::detail

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
//
// The same sum relates each element of any of the three arrays to elements
// of the other two (convolution_term); cuDNN's backward convolutions, whose
// window and dim_labels describe the forward one, read their operands
// through those relations (op_maps_cudnn.cpp).
#include <algorithm>

#include "indexing/maps/map_ops.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

std::uint32_t u32(std::int64_t i) { return static_cast<std::uint32_t>(i); }
using detail::u32;  // and the std::size_t one, hidden by this one otherwise

struct Convolution {
  parser::ConvolutionDimensions dims;
  std::vector<parser::WindowDim> window;
  std::vector<std::int64_t> input, kernel, output;
  std::int64_t feature_groups = 1, batch_groups = 1;
  std::int64_t kernel_input_features = 0;  // input features per group
};

// The output size of a window over an input dimension of size n (XLA's
// shape inference: windows that fit in the padded, dilated input).
std::int64_t window_output_size(const parser::WindowDim& w, std::int64_t n) {
  const std::int64_t padded = n == 0 ? w.pad_low + w.pad_high : (n - 1) * w.base_dilation + 1 + w.pad_low + w.pad_high;
  const std::int64_t extent = (w.size - 1) * w.window_dilation + 1;
  return padded < extent ? 0 : (padded - extent) / w.stride + 1;
}

Convolution convolution(const OpContext& op, const ConvolutionShapes& shapes) {
  Convolution c;
  auto dims = parser::convolution_dimensions(op.computation, op.instruction());
  if (!dims) throw Unsupported("the convolution has no dim_labels");
  if (!dims->input_unlabelled.empty() || !dims->kernel_unlabelled.empty() || !dims->output_unlabelled.empty())
    throw Unsupported("dimensions labelled '?' (cuDNN's vectorized features) are not modelled");
  c.dims = *dims;
  c.input = shapes.input;
  c.kernel = shapes.kernel;
  c.output = shapes.output;
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
  // Also from shape inference: a backward convolution's arrays come from
  // its operands and result, which nothing else relates to the window.
  for (std::size_t i = 0; i < spatial; ++i) {
    if (c.output[sz(c.dims.output_spatial[i])] != window_output_size(c.window[i], c.input[sz(c.dims.input_spatial[i])]))
      throw Unsupported("the spatial sizes of the input and the output do not fit the window");
  }
  return c;
}

ConvolutionShapes op_shapes(const OpContext& op) {
  if (op.operand_count() != 2) throw Unsupported("a convolution with other than two operands");
  return {op.operand_dims(0), op.operand_dims(1), op.output_dims(0)};
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

// From output element (b, f, o...): the input and kernel elements of its
// terms (range variables: window positions, the input feature in the group
// and, XLA style only, the batch group).
ConvolutionTerm from_output(const Convolution& c, MapStyle style) {
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
  ConvolutionTerm t;
  t.input = compose(build::map(c.output, std::move(padded_index), ranges), padding_map(c.input, padded, low, interior));
  if (batch_symbol) t.input.mark_approximate("every batch group, not the output feature's own");

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
  t.kernel = build::map(c.output, std::move(kernel_index), ranges);
  if (exact) {
    for (std::size_t i = 0; i < spatial && !t.kernel.is_known_empty(); ++i) {
      require_real_input(t.kernel, c, i, Expr::dim(u32(c.dims.output_spatial[i])), Expr::range(u32(i)));
    }
  } else if (window_meets_holes(c)) {
    t.kernel.mark_approximate("as XLA: window positions on padding or dilation holes included");
  }
  return t;
}

// From kernel element (k..., c, f): the output elements whose window meets a
// real input element at this kernel position (XLA style: all of them) and,
// exactly, the input element each of those terms reads (range variables:
// the output batch, then the output's spatial positions).
ConvolutionTerm from_kernel(const Convolution& c, MapStyle style) {
  const std::size_t spatial = c.window.size();
  const std::int64_t out_features = c.output[sz(c.dims.output_feature)];
  std::vector<Expr> results(c.output.size());
  std::vector<std::int64_t> ranges;
  auto new_range = [&](std::int64_t size) {
    ranges.push_back(size);
    return Expr::range(u32(ranges.size() - 1));
  };
  const Expr b = new_range(c.output[sz(c.dims.output_batch)]);
  const Expr f = Expr::dim(u32(c.dims.kernel_output_feature));
  results[sz(c.dims.output_batch)] = b;
  results[sz(c.dims.output_feature)] = f;
  for (std::size_t i = 0; i < spatial; ++i) {
    results[sz(c.dims.output_spatial[i])] = new_range(c.output[sz(c.dims.output_spatial[i])]);
  }
  IndexingMap exact_map = build::map(c.kernel, results, ranges);
  std::vector<Expr> input_index(c.input.size());
  const Expr c_in = Expr::dim(u32(c.dims.kernel_input_feature));
  if (c.batch_groups > 1) {
    const std::int64_t per_group = out_features / c.batch_groups;
    input_index[sz(c.dims.input_batch)] = b + simplify::floor_div(f, per_group) * c.output[sz(c.dims.output_batch)];
  } else {
    input_index[sz(c.dims.input_batch)] = b;
  }
  if (c.feature_groups > 1) {
    const std::int64_t per_group = out_features / c.feature_groups;
    input_index[sz(c.dims.input_feature)] = simplify::floor_div(f, per_group) * c.kernel_input_features + c_in;
  } else {
    input_index[sz(c.dims.input_feature)] = c_in;
  }
  for (std::size_t i = 0; i < spatial && !exact_map.is_known_empty(); ++i) {
    const auto& w = c.window[i];
    // Reversal is its own inverse: the window position of kernel index k.
    const Expr s = kernel_position(w, Expr::dim(u32(c.dims.kernel_spatial[i])));
    const Expr o = results[sz(c.dims.output_spatial[i])];
    require_real_input(exact_map, c, i, o, s);
    const Expr dilated = o * w.stride + s * w.window_dilation - w.pad_low;
    input_index[sz(c.dims.input_spatial[i])] =
        w.base_dilation == 1 ? dilated : simplify::floor_div(dilated, w.base_dilation);
  }
  ConvolutionTerm t;
  t.input = exact_map;
  if (t.input.is_defined()) t.input.results() = std::move(input_index);
  if (style == MapStyle::kXla) {
    t.output = build::map(c.kernel, results, ranges);
    if (window_meets_holes(c))
      t.output.mark_approximate("as XLA: window positions on padding or dilation holes included");
  } else {
    t.output = std::move(exact_map);
  }
  return t;
}

// From input element x: the output elements that read it (x is at p = x *
// lhs_dilation + pad_low of the padded input; output o reads it at window
// position s when o * stride + s * rhs_dilation = p) and the kernel element
// each of those terms multiplies it by (range variables: window positions,
// then the output feature within the group).
ConvolutionTerm from_input(const Convolution& c) {
  const std::size_t spatial = c.window.size();
  const std::int64_t out_features = c.output[sz(c.dims.output_feature)];
  std::vector<Expr> results(c.output.size()), kernel_index(c.kernel.size());
  std::vector<std::int64_t> ranges;
  auto new_range = [&](std::int64_t size) {
    ranges.push_back(size);
    return Expr::range(u32(ranges.size() - 1));
  };
  std::vector<Expr> distances;
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto& w = c.window[i];
    const Expr s = new_range(w.size);
    Expr distance = Expr::dim(u32(c.dims.input_spatial[i])) * w.base_dilation + w.pad_low - s * w.window_dilation;
    results[sz(c.dims.output_spatial[i])] = w.stride == 1 ? distance : simplify::floor_div(distance, w.stride);
    kernel_index[sz(c.dims.kernel_spatial[i])] = kernel_position(w, s);
    distances.push_back(distance);
  }
  const Expr in_batch = Expr::dim(u32(c.dims.input_batch));
  const Expr in_feature = Expr::dim(u32(c.dims.input_feature));
  const std::int64_t batch_size = c.output[sz(c.dims.output_batch)];
  if (c.batch_groups > 1) {
    const std::int64_t per_group = out_features / c.batch_groups;
    results[sz(c.dims.output_batch)] = simplify::mod(in_batch, batch_size);
    results[sz(c.dims.output_feature)] = simplify::floor_div(in_batch, batch_size) * per_group + new_range(per_group);
    kernel_index[sz(c.dims.kernel_input_feature)] = in_feature;
  } else if (c.feature_groups > 1) {
    const std::int64_t per_group = out_features / c.feature_groups;
    results[sz(c.dims.output_batch)] = in_batch;
    results[sz(c.dims.output_feature)] =
        simplify::floor_div(in_feature, c.kernel_input_features) * per_group + new_range(per_group);
    kernel_index[sz(c.dims.kernel_input_feature)] = simplify::mod(in_feature, c.kernel_input_features);
  } else {
    results[sz(c.dims.output_batch)] = in_batch;
    results[sz(c.dims.output_feature)] = new_range(out_features);
    kernel_index[sz(c.dims.kernel_input_feature)] = in_feature;
  }
  kernel_index[sz(c.dims.kernel_output_feature)] = results[sz(c.dims.output_feature)];
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
  ConvolutionTerm t;
  t.kernel = map;
  if (t.kernel.is_defined()) t.kernel.results() = std::move(kernel_index);
  t.output = std::move(map);
  return t;
}

}  // namespace

ConvolutionTerm convolution_term(const OpContext& op, const ConvolutionShapes& shapes, ConvolutionArray from,
                                 MapStyle style) {
  const Convolution c = convolution(op, shapes);
  switch (from) {
    case ConvolutionArray::kOutput: return from_output(c, style);
    case ConvolutionArray::kKernel: return from_kernel(c, style);
    case ConvolutionArray::kInput: return from_input(c);
  }
  return {};
}

std::vector<MapSet> o2i_convolution(const OpContext& op, MapStyle style) {
  ConvolutionTerm t = convolution_term(op, op_shapes(op), ConvolutionArray::kOutput, style);
  build::mark_contracted(t.input);
  build::mark_contracted(t.kernel);
  return one_each({std::move(t.input), std::move(t.kernel)});
}

std::vector<MapSet> i2o_convolution(const OpContext& op, std::size_t operand, MapStyle style) {
  const ConvolutionArray from = operand == 0 ? ConvolutionArray::kInput : ConvolutionArray::kKernel;
  return one_each({convolution_term(op, op_shapes(op), from, style).output});
}

}  // namespace hlo_index::indexing::detail

// A convolution's reads evaluated from XLA's operation semantics, for the
// brute-force tests (the convolution op and cuDNN's convolution
// custom-calls): random windows and dimension labels, and the terms of the
// sum, output element by output element.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "test_rng.hpp"

namespace hlo_index::test {

/// One dimension of a window (reduce-window, convolution).
struct WindowDim {
  std::int64_t size = 1, stride = 1, low = 0, high = 0, base = 1, dilation = 1;
  bool reversal = false;  // convolution only: rhs_reversal
};

inline std::string window_text(const std::vector<WindowDim>& w) {
  auto field = [&](const char* name, const std::function<std::string(const WindowDim&)>& f) {
    std::string out = std::string(" ") + name + "=";
    for (std::size_t i = 0; i < w.size(); ++i) out.append(i ? "x" : "").append(f(w[i]));
    return out;
  };
  return "{" + field("size", [](const WindowDim& d) { return std::to_string(d.size); }).substr(1) +
         field("stride", [](const WindowDim& d) { return std::to_string(d.stride); }) +
         field("pad", [](const WindowDim& d) { return std::to_string(d.low) + "_" + std::to_string(d.high); }) +
         field("lhs_dilate", [](const WindowDim& d) { return std::to_string(d.base); }) +
         field("rhs_dilate", [](const WindowDim& d) { return std::to_string(d.dilation); }) +
         (std::any_of(w.begin(), w.end(), [](const WindowDim& d) { return d.reversal; })
              ? field("rhs_reversal", [](const WindowDim& d) { return std::string(d.reversal ? "1" : "0"); })
              : std::string()) +
         "}";
}

/// A random window over an input dimension of size n; returns the output
/// size (0: none fits).
inline std::int64_t random_window(Rng& r, std::int64_t n, std::int64_t min_low, WindowDim& w) {
  for (int attempt = 0; attempt < 30; ++attempt) {
    w.size = r.uniform(1, 3);
    w.stride = r.uniform(1, 3);
    w.low = r.uniform(min_low, 2);
    w.high = r.uniform(min_low, 2);
    w.base = r.chance(60) ? 1 : 2;
    w.dilation = r.chance(60) ? 1 : 2;
    const std::int64_t padded = (n - 1) * w.base + 1 + w.low + w.high;
    const std::int64_t extent = (w.size - 1) * w.dilation + 1;
    if (padded >= extent) return (padded - extent) / w.stride + 1;
  }
  return 0;
}

/// The input position window position s of output o reads along one
/// dimension, or nullopt where it covers padding (or a dilation hole).
inline std::optional<std::int64_t> window_input(const WindowDim& w, std::int64_t n, std::int64_t o, std::int64_t s) {
  const std::int64_t q = o * w.stride + s * w.dilation - w.low;
  if (q < 0 || q % w.base != 0 || q / w.base >= n) return std::nullopt;
  return q / w.base;
}

/// A convolution: which dimension of each array has which role, the window
/// and the group counts, and the three shapes.
struct ConvolutionCase {
  std::size_t rank = 0, spatial = 0;
  // in_roles[0]: batch dimension, [1]: feature, [2 + i]: spatial i; kernel_roles[0]: input feature,
  // [1]: output feature, [2 + i]: spatial i; out_roles like in_roles.
  std::vector<std::int64_t> in_roles, kernel_roles, out_roles;
  std::vector<WindowDim> window;
  std::int64_t feature_groups = 1, batch_groups = 1;
  std::int64_t C = 0, F = 0, B = 0;  // kernel input features, output features, output batch
  std::vector<std::int64_t> input, kernel, output;

  /// `, window=..., dim_labels=...[, feature_group_count=..][, batch_group_count=..]`
  std::string attributes() const {
    auto labels = [&](const std::vector<std::int64_t>& roles, char first, char second) {
      std::string s(rank, '?');
      s[static_cast<std::size_t>(roles[0])] = first;
      s[static_cast<std::size_t>(roles[1])] = second;
      for (std::size_t i = 0; i < spatial; ++i) s[static_cast<std::size_t>(roles[2 + i])] = static_cast<char>('0' + i);
      return s;
    };
    std::string out = ", window=" + window_text(window) + ", dim_labels=" + labels(in_roles, 'b', 'f') + "_" +
                      labels(kernel_roles, 'i', 'o') + "->" + labels(out_roles, 'b', 'f');
    if (feature_groups > 1) out += ", feature_group_count=" + std::to_string(feature_groups);
    if (batch_groups > 1) out += ", batch_group_count=" + std::to_string(batch_groups);
    return out;
  }
};

/// A random convolution over an input of shape `input` (rank 3 or 4), with
/// at most `max_output` output elements; nullopt when none fits.
inline std::optional<ConvolutionCase> random_convolution(Rng& r, const std::vector<std::int64_t>& input,
                                                         std::int64_t max_output) {
  ConvolutionCase c;
  c.rank = input.size();
  if (c.rank < 3 || c.rank > 4) return std::nullopt;
  c.spatial = c.rank - 2;
  c.input = input;
  c.in_roles = r.permutation(c.rank);
  const std::int64_t batch = input[static_cast<std::size_t>(c.in_roles[0])];
  const std::int64_t features = input[static_cast<std::size_t>(c.in_roles[1])];
  auto divisors_above_one = [](std::int64_t n) {
    std::vector<std::int64_t> out;
    for (std::int64_t d = 2; d <= n; ++d) {
      if (n % d == 0) out.push_back(d);
    }
    return out;
  };
  const int mode = static_cast<int>(r.uniform(0, 2));
  if (mode == 1 && !divisors_above_one(features).empty()) {
    const auto d = divisors_above_one(features);
    c.feature_groups = d[r.index(d.size())];
  } else if (mode == 2 && !divisors_above_one(batch).empty()) {
    const auto d = divisors_above_one(batch);
    c.batch_groups = d[r.index(d.size())];
  }
  const std::int64_t groups = c.feature_groups * c.batch_groups;
  c.C = features / c.feature_groups;
  c.F = groups * r.uniform(1, 3);
  c.B = batch / c.batch_groups;
  c.window.resize(c.spatial);
  std::vector<std::int64_t> out_spatial;
  for (std::size_t i = 0; i < c.spatial; ++i) {
    const std::int64_t n = input[static_cast<std::size_t>(c.in_roles[2 + i])];
    const std::int64_t out = random_window(r, n, -1, c.window[i]);
    if (out == 0) return std::nullopt;
    c.window[i].reversal = r.chance(30);
    out_spatial.push_back(out);
  }
  c.kernel_roles = r.permutation(c.rank);
  c.out_roles = r.permutation(c.rank);
  c.kernel.assign(c.rank, 0);
  c.output.assign(c.rank, 0);
  c.kernel[static_cast<std::size_t>(c.kernel_roles[0])] = c.C;
  c.kernel[static_cast<std::size_t>(c.kernel_roles[1])] = c.F;
  c.output[static_cast<std::size_t>(c.out_roles[0])] = c.B;
  c.output[static_cast<std::size_t>(c.out_roles[1])] = c.F;
  std::int64_t window_elements = 1, output_elements = c.B * c.F;
  for (std::size_t i = 0; i < c.spatial; ++i) {
    c.kernel[static_cast<std::size_t>(c.kernel_roles[2 + i])] = c.window[i].size;
    c.output[static_cast<std::size_t>(c.out_roles[2 + i])] = out_spatial[i];
    window_elements *= c.window[i].size;
    output_elements *= out_spatial[i];
  }
  if (output_elements > max_output || window_elements * c.C > 24) return std::nullopt;
  return c;
}

/// Every term of output element `out`'s sum that meets a real input element
/// (a window position over padding or a base-dilation hole multiplies the
/// kernel by nothing: neither operand is read there): fn(input index,
/// kernel index).
template <typename Fn>
void for_each_term(const ConvolutionCase& c, const std::vector<std::int64_t>& out, Fn&& fn) {
  const std::int64_t b = out[static_cast<std::size_t>(c.out_roles[0])];
  const std::int64_t f = out[static_cast<std::size_t>(c.out_roles[1])];
  const std::int64_t per_group = c.F / (c.feature_groups * c.batch_groups);
  std::vector<std::int64_t> s(c.spatial, 0);
  for (;;) {
    for (std::int64_t ci = 0; ci < c.C; ++ci) {
      std::vector<std::int64_t> k(c.rank), in(c.rank);
      k[static_cast<std::size_t>(c.kernel_roles[0])] = ci;
      k[static_cast<std::size_t>(c.kernel_roles[1])] = f;
      in[static_cast<std::size_t>(c.in_roles[0])] = c.batch_groups > 1 ? (f / per_group) * c.B + b : b;
      in[static_cast<std::size_t>(c.in_roles[1])] = c.feature_groups > 1 ? (f / per_group) * c.C + ci : ci;
      bool inside = true;
      for (std::size_t i = 0; i < c.spatial && inside; ++i) {
        const WindowDim& w = c.window[i];
        // With rhs_reversal, window position s multiplies kernel element size - 1 - s.
        k[static_cast<std::size_t>(c.kernel_roles[2 + i])] = w.reversal ? w.size - 1 - s[i] : s[i];
        const auto p = window_input(w, c.input[static_cast<std::size_t>(c.in_roles[2 + i])],
                                    out[static_cast<std::size_t>(c.out_roles[2 + i])], s[i]);
        if (p) in[static_cast<std::size_t>(c.in_roles[2 + i])] = *p;
        inside = p.has_value();
      }
      if (inside) fn(in, k);
    }
    // The next window position, row-major.
    std::size_t i = c.spatial;
    while (i > 0 && ++s[i - 1] == c.window[i - 1].size) s[--i] = 0;
    if (i == 0) return;
  }
}

}  // namespace hlo_index::test

// Attribute helpers that need no grammar: dim_labels decoding and the
// accessors on parsed instructions.
#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <charconv>

#include "parser/attributes.hpp"

namespace hlo_index::parser {
namespace {

// Decodes one side of dim_labels ("b01f"): the position of each letter in
// `letters` and of each spatial digit.
bool decode_labels(std::string_view labels, std::string_view letters, std::vector<std::int64_t>& letter_dims,
                   std::vector<std::int64_t>& spatial, std::vector<std::int64_t>& unlabelled, std::size_t base,
                   AttributeError* error) {
  letter_dims.assign(letters.size(), -1);
  unlabelled.clear();
  std::vector<std::int64_t> by_digit(labels.size(), -1);
  std::size_t digits = 0;
  auto fail = [&](std::size_t at, std::string message) {
    if (error) *error = {base + at, std::move(message)};
    return false;
  };
  for (std::size_t i = 0; i < labels.size(); ++i) {
    char c = labels[i];
    if (c == '?') {  // a dimension with no role (XLA prints cuDNN's vectorized features so)
      unlabelled.push_back(static_cast<std::int64_t>(i));
    } else if (c >= '0' && c <= '9') {
      auto d = static_cast<std::size_t>(c - '0');
      if (d >= by_digit.size() || by_digit[d] != -1) return fail(i, fmt::format("bad spatial dimension '{}'", c));
      by_digit[d] = static_cast<std::int64_t>(i);
      ++digits;
    } else {
      auto pos = letters.find(c);
      if (pos == std::string_view::npos)
        return fail(i, fmt::format("unknown dimension label '{}' (expected one of '{}' or a digit)", c, letters));
      if (letter_dims[pos] != -1) return fail(i, fmt::format("dimension label '{}' appears twice", c));
      letter_dims[pos] = static_cast<std::int64_t>(i);
    }
  }
  for (std::size_t k = 0; k < letters.size(); ++k)
    if (letter_dims[k] == -1) return fail(0, fmt::format("dimension label '{}' is missing", letters[k]));
  spatial.clear();
  for (std::size_t d = 0; d < digits; ++d) {
    if (by_digit[d] == -1) return fail(0, fmt::format("spatial dimension {} is missing", d));
    spatial.push_back(by_digit[d]);
  }
  return true;
}

template <typename T>
std::optional<T> parsed(const hlo::Computation& c, const hlo::Instruction& i, std::string_view name,
                        std::optional<T> (*parse)(std::string_view, AttributeError*)) {
  auto text = c.attribute(i, name);
  if (!text) return std::nullopt;
  return parse(*text, nullptr);
}

}  // namespace

std::optional<ConvolutionDimensions> parse_dim_labels(std::string_view text, AttributeError* error) {
  auto underscore = text.find('_');
  auto arrow = text.find("->");
  if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore) {
    if (error) *error = {0, "expected dim_labels of the form b01f_01io->b01f"};
    return std::nullopt;
  }
  std::string_view lhs = text.substr(0, underscore);
  std::string_view rhs = text.substr(underscore + 1, arrow - underscore - 1);
  std::string_view out = text.substr(arrow + 2);
  ConvolutionDimensions dims;
  std::vector<std::int64_t> letters;
  if (!decode_labels(lhs, "bf", letters, dims.input_spatial, dims.input_unlabelled, 0, error)) return std::nullopt;
  dims.input_batch = letters[0];
  dims.input_feature = letters[1];
  if (!decode_labels(rhs, "io", letters, dims.kernel_spatial, dims.kernel_unlabelled, underscore + 1, error))
    return std::nullopt;
  dims.kernel_input_feature = letters[0];
  dims.kernel_output_feature = letters[1];
  if (!decode_labels(out, "bf", letters, dims.output_spatial, dims.output_unlabelled, arrow + 2, error))
    return std::nullopt;
  dims.output_batch = letters[0];
  dims.output_feature = letters[1];
  if (dims.input_spatial.size() != dims.kernel_spatial.size() ||
      dims.input_spatial.size() != dims.output_spatial.size()) {
    if (error) *error = {0, "dim_labels sides have different numbers of spatial dimensions"};
    return std::nullopt;
  }
  return dims;
}

bool is_computation_attribute(std::string_view name) {
  static constexpr std::array<std::string_view, 11> k_names = {"branch_computations",
                                                               "body",
                                                               "called_computations",
                                                               "calls",
                                                               "condition",
                                                               "false_computation",
                                                               "scatter",
                                                               "select",
                                                               "to_apply",
                                                               "true_computation",
                                                               "comparator"};
  return std::find(k_names.begin(), k_names.end(), name) != k_names.end();
}

std::optional<std::int64_t> int_attribute(const hlo::Computation& c, const hlo::Instruction& i, std::string_view name) {
  return parsed<std::int64_t>(c, i, name, parse_int);
}

std::optional<std::vector<std::int64_t>> int_list_attribute(const hlo::Computation& c, const hlo::Instruction& i,
                                                            std::string_view name) {
  return parsed<std::vector<std::int64_t>>(c, i, name, parse_int_list);
}

std::optional<std::vector<SliceDim>> slice_attribute(const hlo::Computation& c, const hlo::Instruction& i) {
  return parsed<std::vector<SliceDim>>(c, i, "slice", parse_slice);
}

std::optional<std::vector<PaddingDim>> padding_attribute(const hlo::Computation& c, const hlo::Instruction& i) {
  return parsed<std::vector<PaddingDim>>(c, i, "padding", parse_padding);
}

std::optional<std::vector<WindowDim>> window_attribute(const hlo::Computation& c, const hlo::Instruction& i) {
  return parsed<std::vector<WindowDim>>(c, i, "window", parse_window);
}

std::optional<ConvolutionDimensions> convolution_dimensions(const hlo::Computation& c, const hlo::Instruction& i) {
  return parsed<ConvolutionDimensions>(c, i, "dim_labels", parse_dim_labels);
}

DotDimensions dot_dimensions(const hlo::Computation& c, const hlo::Instruction& i) {
  auto list = [&](std::string_view name) {
    return int_list_attribute(c, i, name).value_or(std::vector<std::int64_t>{});
  };
  return {list("lhs_batch_dims"), list("rhs_batch_dims"), list("lhs_contracting_dims"), list("rhs_contracting_dims")};
}

// How many devices each replica group of a collective holds, when the text says:
// `{{0,1},{2,3}}` (groups of equal size) or the iota form `[2,4]<=[8]`. Groups of
// one device count as unknown: XLA's verifier skips its group-size check for them.
std::optional<std::int64_t> replica_group_size(std::string_view groups) {
  if (groups.starts_with("[")) {
    std::int64_t counts[2] = {0, 0};
    const char* p = groups.data() + 1;
    const char* end = groups.data() + groups.size();
    for (int k = 0; k < 2; ++k) {
      auto [next, ec] = std::from_chars(p, end, counts[k]);
      if (ec != std::errc() || next == end || *next != (k == 0 ? ',' : ']')) return std::nullopt;
      p = next + 1;
    }
    if (p == end || *p != '<' || counts[1] < 2) return std::nullopt;
    return counts[1];
  }
  auto lists = parse_int_list_list(groups);
  if (!lists || lists->empty()) return std::nullopt;  // {}: every replica, a count the text does not give
  std::size_t size = lists->front().size();
  for (const std::vector<std::int64_t>& group : *lists)
    if (group.size() != size) return std::nullopt;
  if (size < 2) return std::nullopt;
  return static_cast<std::int64_t>(size);
}

GatherDimensions gather_dimensions(const hlo::Computation& c, const hlo::Instruction& i) {
  auto list = [&](std::string_view name) {
    return int_list_attribute(c, i, name).value_or(std::vector<std::int64_t>{});
  };
  GatherDimensions g{list("offset_dims"),
                     list("collapsed_slice_dims"),
                     list("start_index_map"),
                     list("operand_batching_dims"),
                     list("start_indices_batching_dims"),
                     list("slice_sizes"),
                     0};
  g.index_vector_dim = int_attribute(c, i, "index_vector_dim").value_or(0);
  return g;
}

}  // namespace hlo_index::parser

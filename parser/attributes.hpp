// Typed views of instruction attributes. The parser keeps every attribute as
// its raw text; these functions parse the ones the analysis needs. Syntax errors
// in the attributes listed here are reported at parse time (checks.cpp), so on
// a module that parsed cleanly the accessors below only return nullopt when the
// attribute is absent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

struct SliceDim {
  std::int64_t start = 0, limit = 0, stride = 1;
  friend bool operator==(const SliceDim&, const SliceDim&) = default;
};

struct PaddingDim {
  std::int64_t low = 0, high = 0, interior = 0;
  friend bool operator==(const PaddingDim&, const PaddingDim&) = default;
};

/// One dimension of `window={size=.. stride=.. pad=lo_hi lhs_dilate=.. rhs_dilate=.. rhs_reversal=..}`.
struct WindowDim {
  std::int64_t size = 1, stride = 1, pad_low = 0, pad_high = 0;
  std::int64_t base_dilation = 1;    // lhs_dilate
  std::int64_t window_dilation = 1;  // rhs_dilate
  bool reversal = false;
  friend bool operator==(const WindowDim&, const WindowDim&) = default;
};

/// `dim_labels=b01f_01io->b01f`, decoded: which dimension holds batch, feature, spatial i.
struct ConvolutionDimensions {
  std::int64_t input_batch = 0, input_feature = 0;
  std::vector<std::int64_t> input_spatial;
  std::int64_t kernel_input_feature = 0, kernel_output_feature = 0;
  std::vector<std::int64_t> kernel_spatial;
  std::int64_t output_batch = 0, output_feature = 0;
  std::vector<std::int64_t> output_spatial;
  /// Dimensions labelled '?', with no role of their own (cuDNN's vectorized
  /// feature dimensions, `b01f?_01i?o->b01f?`).
  std::vector<std::int64_t> input_unlabelled, kernel_unlabelled, output_unlabelled;
};

struct DotDimensions {
  std::vector<std::int64_t> lhs_batch, rhs_batch, lhs_contracting, rhs_contracting;
};

struct GatherDimensions {
  std::vector<std::int64_t> offset_dims, collapsed_slice_dims, start_index_map, operand_batching_dims,
      start_indices_batching_dims, slice_sizes;
  std::int64_t index_vector_dim = 0;
};

/// Where and why a typed parse failed; `offset` is relative to the value text.
struct AttributeError {
  std::size_t offset = 0;
  std::string message;
};

//===--- Parsing raw attribute text (nullopt + `error` on failure) ---===//
std::optional<std::int64_t> parse_int(std::string_view text, AttributeError* error = nullptr);
/// `{1,0,2}`
std::optional<std::vector<std::int64_t>> parse_int_list(std::string_view text, AttributeError* error = nullptr);
/// The same into `out` (cleared first), reusing its capacity: for hot loops.
bool parse_int_list(std::string_view text, std::vector<std::int64_t>& out, AttributeError* error);
/// `{{0,1},{2,3}}`
std::optional<std::vector<std::vector<std::int64_t>>> parse_int_list_list(std::string_view text,
                                                                          AttributeError* error = nullptr);
/// `{[0:10:2], [3:4]}`
std::optional<std::vector<SliceDim>> parse_slice(std::string_view text, AttributeError* error = nullptr);
/// `1_4_1x-2_0` (low_high[_interior] per dimension, 'x' between dimensions)
std::optional<std::vector<PaddingDim>> parse_padding(std::string_view text, AttributeError* error = nullptr);
/// `{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}`
std::optional<std::vector<WindowDim>> parse_window(std::string_view text, AttributeError* error = nullptr);
/// `b01f_01io->b01f`
std::optional<ConvolutionDimensions> parse_dim_labels(std::string_view text, AttributeError* error = nullptr);
/// `%name` or `{%a, %b}`; names without sigils.
std::optional<std::vector<std::string_view>> parse_computation_list(std::string_view text,
                                                                    AttributeError* error = nullptr);
/// The same into `out` (cleared first), reusing its capacity.
bool parse_computation_list(std::string_view text, std::vector<std::string_view>& out, AttributeError* error);

//===--- Accessors on instructions of a parsed module ---===//
std::optional<std::int64_t> int_attribute(const hlo::Computation& c, const hlo::Instruction& i, std::string_view name);
std::optional<std::vector<std::int64_t>> int_list_attribute(const hlo::Computation& c, const hlo::Instruction& i,
                                                            std::string_view name);
std::optional<std::vector<SliceDim>> slice_attribute(const hlo::Computation& c, const hlo::Instruction& i);
std::optional<std::vector<PaddingDim>> padding_attribute(const hlo::Computation& c, const hlo::Instruction& i);
std::optional<std::vector<WindowDim>> window_attribute(const hlo::Computation& c, const hlo::Instruction& i);
std::optional<ConvolutionDimensions> convolution_dimensions(const hlo::Computation& c, const hlo::Instruction& i);
DotDimensions dot_dimensions(const hlo::Computation& c, const hlo::Instruction& i);
GatherDimensions gather_dimensions(const hlo::Computation& c, const hlo::Instruction& i);

/// How many devices each replica group of a collective holds, when the text
/// says: `{{0,1},{2,3}}` (groups of equal size) or the iota form `[2,4]<=[8]`.
/// Groups of one device, `{}` and unequal groups: none.
std::optional<std::int64_t> replica_group_size(std::string_view groups);

/// Attribute names whose values name computations (calls=, to_apply=, body=, ...).
bool is_computation_attribute(std::string_view name);

}  // namespace hlo_index::parser

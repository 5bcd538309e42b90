// Result-shape verification: whether the shape an instruction declares is the
// one XLA's shape inference gives for its operands and attributes. A pure
// function of shapes and attribute texts; checks.cpp reports what it finds.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// A declared result shape (or operand combination) that XLA's shape inference rejects.
struct ResultShapeError {
  /// The attribute value the problem is about (a view into `attributes`), or
  /// empty when it is about the instruction as a whole.
  std::string_view at;
  std::string message;
};

/// Checks `result`, the shape an instruction of `opcode` declares, against its
/// operands' shapes (in order; nullptr for an operand that is unknown) and its
/// attributes as written. Covers the elementwise ops (unary; binary, with the
/// size-1 and scalar broadcasting XLA's shape inference allows; select and clamp
/// with scalar operands; compare, convert, bitcast-convert), broadcast,
/// transpose, reverse, slice, reshape, bitcast, concatenate, dot, reduce, pad,
/// reduce-window, convolution, dynamic-slice, dynamic-update-slice, gather,
/// get-tuple-element, tuple and all-gather.
///
/// Returns nothing when the shape agrees, and also whenever the answer is not
/// certain: dynamic dimensions anywhere, a missing or malformed attribute,
/// operand counts or attribute values that other checks report, forms hlo-index
/// does not model (sparse dots, bitcasts under tiled layouts, replica groups whose
/// size the text does not give). Layouts are never compared, and floating-point
/// element types of different precision count as equal (XLA's verifier does the
/// same for mixed-precision modules).
std::optional<ResultShapeError> check_result_shape(hlo::Opcode opcode, const hlo::Shape& result,
                                                   std::span<const hlo::Shape* const> operands,
                                                   std::span<const hlo::Attribute> attributes);

/// Whether check_result_shape has anything to check for `opcode`: a result-shape rule, or
/// operands or a result of fixed shape (get-dimension-size, set-dimension-size).
bool has_result_check(hlo::Opcode opcode);

/// The result shape XLA's shape inference gives an instruction of `opcode`
/// whose text leaves it out, by the same rules: the shape; the error the rule
/// finds in the operands; or monostate when hlo-index cannot infer it (an op
/// without a rule, a rule that needs the declared shape, such as convert,
/// broadcast and reshape, or operands that are unknown or dynamic). Some ops
/// without a rule are inferred too, where the shape is fixed or an operand's:
/// after-all, partition-id, replica-id, get-dimension-size, add-dependency,
/// domain, opt-barrier, while, select-and-scatter, sort.
std::variant<hlo::Shape, ResultShapeError, std::monostate> infer_result_shape(
    hlo::Opcode opcode, std::span<const hlo::Shape* const> operands, std::span<const hlo::Attribute> attributes);

}  // namespace hlo_index::parser

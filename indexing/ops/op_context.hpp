// One instruction of a parsed module as the per-op map builders see it: its
// shapes as dimension sizes, its operands and its typed attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

/// Thrown by a builder when it cannot give a map for an instruction (an op
/// outside the covered set, an attribute it needs is missing or
/// inconsistent); the message becomes the UNDEFINED reason.
class Unsupported : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Dimension sizes of an array shape; bounded dynamic dimensions count with
/// their bound. Throws Unsupported for tuples and unbounded (`?`) dimensions.
std::vector<std::int64_t> dimension_sizes(const hlo::Shape& shape);

struct OpContext {
  const hlo::Module& module;
  const hlo::Computation& computation;
  std::uint32_t index;  // into computation.instructions
  /// Stands in for the instruction's own shape: the custom-call that an
  /// asynchronous custom-call-start wraps has the start's element {1}.
  const hlo::Shape* result = nullptr;

  const hlo::Instruction& instruction() const { return computation.instructions[index]; }
  hlo::Opcode opcode() const { return instruction().opcode; }
  const hlo::Shape& shape() const { return result != nullptr ? *result : module.shape_of(instruction()); }
  std::size_t operand_count() const { return instruction().operand_count; }
  /// Throws Unsupported past the operands: an op whose shapes imply more
  /// operands than it has gets UNDEFINED maps with the reason, never a read
  /// past the operand list.
  std::uint32_t operand_index(std::size_t k) const;
  const hlo::Instruction& operand(std::size_t k) const { return computation.instructions[operand_index(k)]; }
  const hlo::Shape& operand_shape(std::size_t k) const { return module.shape_of(operand(k)); }

  /// Number of outputs: the array leaves of a tuple-shaped op (its elements
  /// when none is a tuple; tuple_leaves.hpp), else 1.
  std::size_t output_count() const;
  /// Shape of output `k` (the k-th leaf of a tuple, or the shape itself).
  const hlo::Shape& output_shape(std::size_t k) const;
  std::vector<std::int64_t> output_dims(std::size_t k) const { return dimension_sizes(output_shape(k)); }
  std::vector<std::int64_t> operand_dims(std::size_t k) const { return dimension_sizes(operand_shape(k)); }

  std::optional<std::string_view> attribute(std::string_view name) const {
    return computation.attribute(instruction(), name);
  }
  /// An integer-list attribute; throws Unsupported when it is missing.
  std::vector<std::int64_t> required_int_list(std::string_view name) const;
  std::optional<std::int64_t> int_attribute(std::string_view name) const;
};

}  // namespace hlo_index::indexing

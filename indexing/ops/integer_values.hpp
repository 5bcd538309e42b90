// The values of integer arrays that a computation derives from constants
// and iotas alone: offsets and gather indices computed at compile time
// (an iota reshaped, a constant converted, an iota plus a broadcast
// constant). A dynamic-slice or gather whose starts are such values reads
// exactly the elements they select, not every element a runtime start could.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "parser/hlo_module.hpp"
#include "simplify/expr.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::indexing {

/// Whether `t` is an integer type (signed or unsigned), and the values it holds.
bool is_integer_type(hlo::ElementType t);
simplify::Interval integer_type_range(hlo::ElementType t);

/// Arrays larger than this are not tabulated (their values may still be
/// known as an expression).
inline constexpr std::int64_t k_max_tabulated_elements = 4096;

struct KnownIntegerValues {
  std::vector<std::int64_t> dims;
  /// The value at index p as an expression over the dimensions d_k = p_k
  /// (an iota through reshapes, broadcasts, additions of constants, ...).
  std::optional<simplify::Expr> expression;
  /// Every value, row-major (arrays of at most k_max_tabulated_elements).
  std::optional<std::vector<std::int64_t>> table;
};

/// The values of the integer array `instruction` of `computation` computes
/// when they depend on constants and iotas only (through convert, copy,
/// reshape, bitcast, broadcast, transpose, slice, concatenate, negate, abs,
/// add, subtract, multiply, minimum, maximum); none otherwise, when a value
/// does not fit its element type, or when neither form is available.
std::optional<KnownIntegerValues> known_integer_values(const hlo::Module& module, const hlo::Computation& computation,
                                                       std::uint32_t instruction);

}  // namespace hlo_index::indexing

// Validation of constant literals against their shape: nesting, sizes, and
// that every scalar is a value of the element type.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parser/shape.hpp"

namespace hlo_index::parser {

struct LiteralProblem {
  const char* where;
  std::string message;
};

/// Checks the text between `constant(` and `)` against `shape`: a scalar for
/// rank 0 (or for any array: XLA broadcasts it), braces nested once per dimension with the sizes of the shape (`{...}`,
/// XLA's elided form, stands for any array), `(re, im)` for complex types, and
/// `(lit, lit, ...)` for tuples. Returns the first problem found.
std::optional<LiteralProblem> check_literal(std::string_view literal, const hlo::Shape& shape);

}  // namespace hlo_index::parser

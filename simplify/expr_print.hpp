// Prints expressions the way XLA prints indexing maps (its MLIR-derived
// affine printer): `floordiv`/`mod` keywords, constants last, `x - c` and
// `x - y * k` for negative parts, parentheses only around compound operands
// of `*`, `floordiv`, `mod` and unary minus, and in a sum the terms that use
// dimensions before the ones that use only symbols.
#pragma once

#include <functional>
#include <string>

#include "simplify/expr.hpp"

namespace hlo_index::simplify {

/// Appends the name of a variable.
using VarNamer = std::function<void(Var, std::string& out)>;

/// d0, d1, ... for dimensions, s0, ... for range and rt0, ... for runtime
/// variables.
void default_var_name(Var v, std::string& out);

void print(const Expr& e, std::string& out, const VarNamer& namer = default_var_name);
std::string to_string(const Expr& e, const VarNamer& namer = default_var_name);

}  // namespace hlo_index::simplify

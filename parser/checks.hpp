// Semantic checks on a parsed module: attributes that must parse and must fit
// the ranks of the shapes they describe.
#pragma once

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// Reports every attribute of `module` that is malformed or does not match the
/// rank of the shape it describes. Returns false if it reported an error.
bool check_module(const hlo::Module& module, DiagnosticEngine& diagnostics);

}  // namespace hlo_index::parser

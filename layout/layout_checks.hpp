// XLA's verifier rules that need physical layouts, which the parser does not
// compute: a bitcast reinterprets its operand's buffer, so with tiles (or
// packed elements) the two buffers must have one size, tile padding included
// (HloVerifier: "Bitcast cannot have different shape sizes of output and
// operand"). The parser checks the untiled case itself.
#pragma once

#include <string>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::layout {

struct LayoutProblem {
  const char* where = nullptr;  // into the module's source text (the instruction's name)
  std::string message;
};

/// The bitcasts of `module` between tiled or packed layouts whose buffers differ in size.
std::vector<LayoutProblem> check_layouts(const hlo::Module& module);

}  // namespace hlo_index::layout

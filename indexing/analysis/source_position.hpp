// Where an instruction is written in its module's file, for reports that
// point users back at the dump (summary rows, analyze JSON).
#pragma once

#include <cstddef>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

struct SourcePosition {
  std::size_t line = 0;  // 1-based; 0 when the instruction's name is not in the text (made up by the parser)
  std::size_t column = 0;
};

/// The position of the instruction's name in the module's source text.
SourcePosition source_position(const hlo::Module& module, const hlo::Instruction& instruction);

}  // namespace hlo_index::analysis

#include "indexing/analysis/source_position.hpp"

namespace hlo_index::analysis {

SourcePosition source_position(const hlo::Module& module, const hlo::Instruction& instruction) {
  if (!module.source) return {};
  const std::string_view text = module.source->text();
  const std::string_view name = instruction.name;
  // Names of inline operand instructions live in the module's synthesized text.
  if (name.data() < text.data() || name.data() + name.size() > text.data() + text.size()) return {};
  const parser::LineColumn lc = module.source->line_column(module.source->offset_of(name.data()));
  return {lc.line, lc.column};
}

}  // namespace hlo_index::analysis

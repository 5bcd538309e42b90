// Semantic checks on a parsed module: attributes that must parse and must fit
// the ranks of the shapes they describe, and result shapes that must be what
// XLA's shape inference gives (result_shapes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// Checks instructions one at a time, as the parser adds them (while their text
/// and shapes are still in cache): reports every attribute that is malformed or
/// does not match the rank of the shape it describes, and every result shape that
/// disagrees with the operands and attributes.
class InstructionChecker {
public:
  explicit InstructionChecker(DiagnosticEngine& diagnostics) : m_diagnostics(diagnostics) {}
  /// `i` belongs to `c` of `module`; its operands must already be in `c`. Problems
  /// with the instruction as a whole are reported at `where`: its name in the
  /// source, or for an inline operand instruction (whose name the parser made up)
  /// the start of its text. The result shape is checked only while the engine's
  /// error count is still `errors_before` (its count when the parser began `i`,
  /// inline operands included): one mistake, one error.
  void check(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i, const char* where,
             std::size_t errors_before);

private:
  DiagnosticEngine& m_diagnostics;
  std::vector<std::int64_t> m_scratch;              // reused by integer-list parses
  std::vector<const hlo::Shape*> m_operand_shapes;  // reused by result-shape checks
};

}  // namespace hlo_index::parser

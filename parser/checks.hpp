// Semantic checks on a parsed module: attributes that must parse and must fit
// the ranks of the shapes they describe.
#pragma once

#include <cstdint>
#include <vector>

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// Checks instructions one at a time, as the parser adds them (while their text
/// and shapes are still in cache): reports every attribute that is malformed or
/// does not match the rank of the shape it describes.
class InstructionChecker {
public:
  explicit InstructionChecker(DiagnosticEngine& diagnostics) : m_diagnostics(diagnostics) {}
  /// `i` belongs to `c` of `module`; its operands must already be in `c`.
  void check(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i);

private:
  DiagnosticEngine& m_diagnostics;
  std::vector<std::int64_t> m_scratch;  // reused by integer-list parses
};

}  // namespace hlo_index::parser

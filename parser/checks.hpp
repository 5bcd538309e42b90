// Semantic checks on a parsed module: operand counts, attributes that must
// parse and must fit the ranks of the shapes they describe, and result shapes
// that must be what XLA's shape inference gives (result_shapes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"
#include "parser/name_table.hpp"

namespace hlo_index::parser {

/// Why an instruction of `opcode` cannot have `count` operands, by the op
/// table's Arity column (XLA's HloOpcodeArity and the counts its verifier
/// requires of variadic ops), or nothing. `sparse`: a dot with sparsity=, which
/// takes its metadata as further operands.
/// Example: (kAdd, 3) -> "add takes 2 operands, not 3".
std::optional<std::string> operand_count_problem(hlo::Opcode opcode, std::size_t count, bool sparse = false);

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
  /// Forgets the result shapes checked so far: they are keyed by the module's shape ids.
  void start_module() {
    m_passed.clear();
    m_passed_keys.clear();
  }

private:
  DiagnosticEngine& m_diagnostics;
  // Result-shape checks that passed, by what they depend on (opcode, result and operand shape
  // ids, the attributes but those the rules never read): a module repeats its layers, and
  // inferring each instruction's shape again was a tenth of the parse.
  NameTable m_passed;                               // key -> nothing (0)
  std::deque<std::string> m_passed_keys;            // the keys' text, which m_passed points into (stable)
  std::string m_key;                                // reused
  std::vector<std::int64_t> m_scratch;              // reused by integer-list parses
  std::vector<const hlo::Shape*> m_operand_shapes;  // reused by result-shape checks
};

}  // namespace hlo_index::parser

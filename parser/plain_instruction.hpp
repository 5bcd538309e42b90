// The common form of an instruction statement, read without X3: a module is almost all
// instructions, and X3's general machinery was a sixth of the parse. The grammar
// (module_grammar_def.hpp) stays the definition: this reader accepts only statements the
// grammar reads the same way, and leaves everything else to it, errors included.
#pragma once

#include "parser/ast.hpp"

namespace hlo_index::parser {

/// Reads the instruction statement at `p` (after blanks) into `out`, which must be clear, and
/// advances `p` past it, as grammar::instruction() would. Returns false, with `p` where it
/// was and `out` to be cleared, when the statement is not in the common form
/// `[ROOT] name = [shape] opcode(operands), name=value, ...` or is malformed: the caller
/// then reads it with the grammar. Operands are `name`, `shape name` or an inline
/// `shape opcode(...)`; `constant(...)` and `parameter(...)` take a literal.
bool read_plain_instruction(const char*& p, const char* end, ast::Instruction& out);

}  // namespace hlo_index::parser

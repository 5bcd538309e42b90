// What `analyze` shows of a module, decided by its InstructionFilter: the computations
// named (else those analysed on their own but the scalar ones), their instructions named
// (else those with operands), and the filter's own tests; with the checks that every name
// asked for is there, and hints where it is not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <vector>

#include "indexing/analysis/instruction_filter.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// The computations shown: those `filter.computations` names (fusion bodies included), or
/// else every computation analysed on its own but the scalar ones (unless
/// `filter.all_computations`); in program order.
std::vector<std::uint32_t> shown_computations(const hlo::Module& module, const InstructionFilter& filter);

/// Whether instruction `i` of a shown computation is shown: named in `filter.instructions`,
/// or else (no names) it has operands, or `filter.all_computations`; then the filter's own
/// tests (--match, --kind, --opcode).
bool shows_instruction(const InstructionFilter& filter, const hlo::Module& module, const hlo::Computation& c,
                       const hlo::Instruction& i);

/// The instructions shown, in program order over the modules the filter accepts.
std::vector<FoundInstruction> shown_instructions(const std::vector<hlo::Module>& modules,
                                                 const InstructionFilter& filter);

/// Whether every computation and instruction name of the filter is found among the shown
/// ones; reports each other to `err`, with where it is instead (a fusion's body: the fusion
/// to name; a scalar computation: --all-computations) or the names it is close to.
bool check_shown_names(const InstructionFilter& filter, const std::vector<hlo::Module>& modules, std::ostream& err);

/// The most operands an instruction shown has (0 when none is shown).
std::size_t most_operands_shown(const std::vector<hlo::Module>& modules, const InstructionFilter& filter);

}  // namespace hlo_index::analysis

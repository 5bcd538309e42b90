// Which instructions a command shows: `--module`, `--computation`, `--match`,
// `--kind` and `--opcode`, one implementation for summary, analyze, lint and
// layout so that the same flags select the same instructions everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// An ECMAScript regular expression (std::regex) searched anywhere in a name,
/// as grep does: `fusion` matches `loop_fusion.3`; `^fusion\.3$` only that name.
class NamePattern {
public:
  /// The pattern, or nullopt with the reason in `error`.
  static std::optional<NamePattern> compile(const std::string& pattern, std::string* error);
  bool matches(std::string_view name) const;
  const std::string& text() const { return m_text; }

private:
  NamePattern(std::string text, std::regex regex) : m_text(std::move(text)), m_regex(std::move(regex)) {}
  std::string m_text;
  std::regex m_regex;
};

/// Whether `name` is `pattern`, or matches it as a glob when the pattern has
/// one of `*` (any run of characters), `?` (one character) or `[...]` (one of
/// a set: `[abc]`, ranges `[0-9]`, negated `[!0-9]`); HLO names never hold
/// these characters, so a plain name is always an exact match.
bool name_matches(std::string_view pattern, std::string_view name);

/// Each list empty: no restriction; names without their `%` sigil, each a
/// name or a glob (name_matches).
struct InstructionFilter {
  std::vector<std::string> modules;       // module names
  std::vector<std::string> computations;  // computation names
  std::vector<std::string> kinds;         // fusion kinds (kLoop, kInput, ...): only fusions of those kinds
  std::vector<std::string> opcodes;       // opcodes as written (fusion, dot, ...)
  std::optional<NamePattern> match;       // on instruction names
  // analyze's: instruction names (its --instruction), and whether it shows the scalar
  // computations and the instructions without operands too (--all-computations). Which
  // computations and instructions that leaves: shown_instructions.hpp.
  std::vector<std::string> instructions;
  bool all_computations = false;

  bool accepts_module(const hlo::Module& module) const;
  bool accepts_computation(const hlo::Computation& computation) const;
  /// The instruction's own tests: --match, --kind, --opcode (not its module's or computation's).
  bool accepts_instruction(const hlo::Module& module, const hlo::Computation& computation,
                           const hlo::Instruction& instruction) const;
  /// Whether no instruction-level test is set.
  bool selects_every_instruction() const { return kinds.empty() && opcodes.empty() && !match; }
};

/// The filter of `--module NAME...` and `--match REGEX` (empty: none); a
/// malformed regex is reported to `err` as the commands report it (nullopt).
std::optional<InstructionFilter> module_and_match_filter(std::vector<std::string> modules, const std::string& match,
                                                         std::ostream& err);
/// Whether every name of `filter.modules` names one of `modules`; the others
/// are reported to `err` with the modules there are.
bool check_module_names(const InstructionFilter& filter, const std::vector<hlo::Module>& modules, std::ostream& err);

/// Per computation: whether it is a scalar computation that ops apply element
/// by element (a reducer, a comparator, a map's function): every reference
/// to it is a to_apply=, comparator=, select= or scatter= attribute of an op
/// other than `call` (whose to_apply= is a real call) or, when all its values
/// are scalars, a custom call's called_computations= (TopK's comparator);
/// or nothing calls it and all its values are scalars (a dead reducer).
/// analyze leaves them
/// out by default: a module has thousands, and they are analysed through the
/// ops that apply them.
std::vector<bool> scalar_computations(const hlo::Module& module);

/// An instruction of one of a command's modules.
struct FoundInstruction {
  std::size_t module = 0;
  std::uint32_t computation = 0, instruction = 0;
};
/// The instructions named `name` (empty: any) that `filter` accepts, in the
/// computations analysed on their own (analysed_computations), in program
/// order; a name asked for explicitly is looked up in the computations of a
/// truncated dump that only missing callers reach too.
std::vector<FoundInstruction> find_instructions(const std::vector<hlo::Module>& modules,
                                                const InstructionFilter& filter, const std::string& name);

/// The one instruction a command draws or tiles: named `name`, or (name empty)
/// matched by the filter's `--match`, described in errors as `asked`. Holds it,
/// or the error that says why not: none (with where a name of a fusion body or
/// reducer is analysed instead) or several (the first five listed).
struct OneInstruction {
  std::optional<FoundInstruction> found;
  std::string error;  // without the `hlo-index: error: ` prefix and the newline
};
OneInstruction find_one_instruction(const std::vector<hlo::Module>& modules, const InstructionFilter& filter,
                                    const std::string& name, const std::string& asked);

/// `%name` -> `name`.
std::string without_sigil(std::string name);

}  // namespace hlo_index::analysis

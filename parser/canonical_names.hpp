// Canonical names: every computation and instruction renamed by its stem and
// position, so dumps that differ only in XLA's numeric suffixes (`fusion.123`
// vs `fusion.57`), metadata or backend_config print the same.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// `name` without its numeric components: the parts between dots that are all
/// digits. `fusion.123` -> `fusion`, `add.7.clone.2` -> `add.clone`,
/// `param_0.1` -> `param_0` (digits inside a part stay), `fusion.3.operand0` ->
/// `fusion.operand0`, `17` -> `` (empty).
std::string name_stem(std::string_view name);

/// The canonical names of a module's computations and instructions.
///
/// Scheme: the k-th computation (in text order) whose name has stem S is `S`
/// for k = 0 and `S.k` after that; likewise the k-th instruction (in program
/// order) of a computation whose name has stem S. A stem is never empty: an
/// all-digit instruction name takes its opcode (`%3 = add(...)` -> `add`), an
/// all-digit computation name `computation`. The module's name is its stem
/// (`module`, if empty); a module without an `HloModule` line is named after its
/// entry computation, as the parser does. Names only depend on stems and
/// positions, so renumbering leaves them unchanged, and they cannot collide:
/// `S.k` ends in a numeric part, a stem never does. For example
///   %fused_computation.12 { %param_0.3 ... %add.7 ... %add.9 ... }
/// becomes
///   %fused_computation { %param_0 ... %add ... %add.1 ... }
struct CanonicalNames {
  std::string module;
  std::vector<std::string> computations;               // by index in Module::computations
  std::vector<std::vector<std::string>> instructions;  // [computation][instruction]
};

CanonicalNames canonical_names(const hlo::Module& module);

/// `module` printed (print_module) under its canonical names, without the
/// attributes that vary between compiler runs of the same program: metadata,
/// backend_config, frontend_attributes and stack_frame_id (and so
/// without the stack-frame tables, which only those refer to). Every other attribute is
/// kept as written; calls=, to_apply=, body=, ... and control-predecessors use
/// the new names.
std::string print_canonical(const hlo::Module& module);

/// `module` renamed in place to its canonical names: every name in it, and in
/// anything computed from it, is canonical, and print_canonical(module) is what it
/// was. Calls keep their callees (by index); calls=, to_apply=, ... and
/// control-predecessors are rewritten to the new names. Every attribute stays:
/// backend_config and frontend_attributes hold facts some maps read (a custom
/// call's configuration, a sharding rule, a loop's trip count), and metadata is
/// read by no analysis that is asked for canonical names. The new text lives in
/// `module.synthesized_text`; the source, and the positions in it, stay.
void rename_canonically(hlo::Module& module);

}  // namespace hlo_index::parser

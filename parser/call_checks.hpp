// Checks across computations, once a module is complete: what XLA's verifier
// requires of the computations an instruction calls (its ShapeVerifier
// handlers of fusion, call, async-start, while, conditional, map, reduce,
// reduce-window, scatter, select-and-scatter, sort and the all-reduces:
// parameter counts and shapes against the operands, roots against the
// result), and that calls never reach the entry computation nor come back to
// the computation they start from.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::parser {

/// One computation named by a calls=, to_apply=, ... attribute of an
/// instruction of computation `caller`: the parser lists them in the order of
/// the instructions and of their attributes, which is the order of each
/// computation's Computation::callees (`slot` is the index there).
struct NamedCallee {
  std::uint32_t caller = 0;
  std::uint32_t slot = 0;
  std::uint32_t callee = hlo::k_none;  // its index in the module; hlo::k_none when the module lacks it
  std::string_view attribute;          // "to_apply", "condition", "branch_computations", ...
  std::string_view name;               // as written: a view into the source
};

/// An instruction whose op calls computations (OpTraits::callees is not
/// kNone): `instruction` of computation `computation`; `where` locates it in
/// the source (its name, or the start of an inline operand instruction's text);
/// its callees are entries first_callee, first_callee + 1, ... of the
/// NamedCallee list, one per entry of its Computation::callees_of.
struct CallSite {
  std::uint32_t computation = 0;
  std::uint32_t instruction = 0;
  const char* where = nullptr;
  std::uint32_t first_callee = 0;
};

/// The parameter instructions of each computation of a module in the order of
/// their numbers, one computation after the other: computation c's parameter(k)
/// is of(c)[k] when c's numbers run from 0 without gaps or repeats.
class ParameterTable {
public:
  void clear() {
    m_ids.clear();
    m_begin.assign(1, 0);
  }
  /// Appends parameter `id` of the next computation (by index), in number order...
  void add(std::uint32_t id) { m_ids.push_back(id); }
  /// ... then ends that computation's list.
  void end_computation() { m_begin.push_back(static_cast<std::uint32_t>(m_ids.size())); }
  std::span<const std::uint32_t> of(std::uint32_t computation) const {
    return {m_ids.data() + m_begin[computation], m_begin[computation + 1] - m_begin[computation]};
  }

private:
  std::vector<std::uint32_t> m_ids;
  std::vector<std::uint32_t> m_begin{0};
};

/// Reports every call of the entry computation, and (when there is none) the
/// first cycle of calls found: a computation that calls itself, directly or
/// through others. In time linear in the computations and calls; callees the
/// module lacks are skipped. Returns whether nothing was reported.
/// Example: `f { ... call(x), to_apply=f }` -> "computation 'f' calls itself:
/// HLO computations cannot be recursive", at the `f` of `to_apply=f`.
bool check_call_graph(const hlo::Module& module, std::span<const NamedCallee> callees, DiagnosticEngine& diagnostics);

/// Reports, for each call site, what XLA's verifier rejects about the
/// computations it calls; `parameters` holds the module's parameters (numbered
/// without gaps). Callees a truncated input lacks (hlo::k_none) or cuts off
/// (`incomplete`: their parameters and root are not all there) are skipped,
/// with the rules that need them.
/// Example: `r = f32[9,9] call(p), to_apply=c` where c returns f32[4] ->
/// "'r' is f32[9,9] but the computation it calls, 'c', returns f32[4]".
void check_call_sites(const hlo::Module& module, std::span<const CallSite> sites, std::span<const NamedCallee> callees,
                      const ParameterTable& parameters, DiagnosticEngine& diagnostics,
                      std::uint32_t incomplete = hlo::k_none);

}  // namespace hlo_index::parser

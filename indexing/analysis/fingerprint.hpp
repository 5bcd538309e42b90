// Stable identities of instructions: a fingerprint that survives renumbering,
// renaming and reordering, for lint baselines, SARIF partialFingerprints and
// diff's matching. It hashes what an instruction is, not what it is called:
// its opcode, shape with layout, attributes (less metadata, backend_config and
// every attribute that names an instruction or computation), the structure of
// the computations it calls (a fusion's fused computation: its instructions'
// opcodes, shapes, attributes and data flow, recursively), its framework op
// (metadata op_name with numeric suffixes dropped) and, one level up, the
// opcode and shape of each operand. Identical instructions (repeated layers)
// are told apart by their occurrence, in program order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "indexing/analysis/source_info.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// 64-bit FNV-1a, the same on every platform.
class StableHash {
public:
  StableHash& add(std::string_view text);
  StableHash& add(std::uint64_t value);
  std::uint64_t value() const { return m_state; }

private:
  std::uint64_t m_state = 0xcbf29ce484222325ull;
};

/// `op_name` with the numeric suffixes of each `/`-separated part dropped
/// (`jit(f)/broadcast.95` -> `jit(f)/broadcast`), as renumbering leaves it.
std::string canonical_op_name(std::string_view op_name);

class ModuleFingerprints {
public:
  explicit ModuleFingerprints(const hlo::Module& module);
  /// The same, with the module's metadata already read (`sources` of `module`).
  ModuleFingerprints(const hlo::Module& module, const ModuleSources& sources);
  /// The identity hash of an instruction (the same for identical instructions).
  std::uint64_t hash(std::uint32_t computation, std::uint32_t instruction) const {
    return m_hashes[computation][instruction];
  }
  /// The fingerprint: the identity hash in 16 hex digits, then `-K` for the K-th (K >= 1)
  /// earlier instruction with the same hash, in program order over the module.
  std::string of(std::uint32_t computation, std::uint32_t instruction) const;
  /// The structure of a computation (its root's data flow), independent of names.
  std::uint64_t computation_structure(std::uint32_t computation) const { return m_structures[computation]; }

private:
  std::vector<std::vector<std::uint64_t>> m_hashes;
  std::vector<std::vector<std::uint32_t>> m_occurrence;
  std::vector<std::uint64_t> m_structures;
};

/// The structure of a whole module, names and metadata left out: equal for the
/// copies of one program that a dump repeats (PyTorch/XLA prints a module per
/// step), so reports show them once.
std::uint64_t module_structure(const hlo::Module& module);

}  // namespace hlo_index::analysis

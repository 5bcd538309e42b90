// WalkState: the maps one walk of a called computation has reached so far,
// per instruction and output element (tuple leaf). A walk asks for the set of
// (instruction, element) once per composition: through a wide tuple or a while
// reading hundreds of state leaves, millions of times on torax. Each
// instruction's sets are therefore found through an index by element, O(1),
// and appended in arrival order; they are put in element order once, when the
// walk reaches the instruction and iterates them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "indexing/ops/op_maps.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

using StateKey = std::pair<std::uint32_t, std::size_t>;  // instruction, output element

class WalkState {
public:
  /// The sets of one instruction by output element.
  using Outputs = std::vector<std::pair<std::size_t, MapSet>>;

  /// A walk of `body`, a computation of `module` (both outlive the state).
  WalkState(const hlo::Module& module, const hlo::Computation& body);

  /// The set of `key`, made empty when the walk had not reached it. The reference lives until
  /// the next call for the same instruction.
  MapSet& operator[](const StateKey& key);
  /// The sets of `instruction` in element order, or null when none was reached. No set of it
  /// may be asked for while they are iterated.
  Outputs* reached(std::uint32_t instruction);
  /// The set of `key`, or null when the walk did not reach it.
  MapSet* find(const StateKey& key);

private:
  struct Sets {
    Outputs outputs;                      // arrival order until reached() sorts them
    std::size_t leaves = 1;               // the instruction's output elements (tuple_leaves.hpp)
    std::vector<std::uint32_t> position;  // by element below `leaves` (when many): index in outputs
    bool sorted = true;
  };
  static constexpr std::uint32_t k_none = ~std::uint32_t{0};

  Sets& sets_of(std::uint32_t instruction);
  static std::uint32_t position_of(Sets& sets, std::size_t element);

  const hlo::Module& m_module;
  const hlo::Computation& m_body;
  std::vector<std::uint32_t> m_slot;  // by instruction: its index in m_sets
  std::deque<Sets> m_sets;            // stable under growth
};

}  // namespace hlo_index::indexing

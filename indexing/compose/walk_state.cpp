#include "indexing/compose/walk_state.hpp"

#include <algorithm>

#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

namespace {

// Up to this many leaves an instruction's sets are few: a scan finds one sooner than an index.
constexpr std::size_t k_scanned_leaves = 8;

}  // namespace

WalkState::WalkState(const hlo::Module& module, const hlo::Computation& body)
    : m_module(module), m_body(body), m_slot(body.instructions.size(), k_none) {}

WalkState::Sets& WalkState::sets_of(std::uint32_t instruction) {
  std::uint32_t& slot = m_slot.at(instruction);
  if (slot == k_none) {
    slot = static_cast<std::uint32_t>(m_sets.size());
    m_sets.emplace_back().leaves = leaf_count(m_module.shape_of(m_body.instructions[instruction]));
  }
  return m_sets[slot];
}

std::uint32_t WalkState::position_of(Sets& sets, std::size_t element) {
  if (sets.leaves > k_scanned_leaves && element < sets.leaves) {
    if (sets.position.empty()) sets.position.assign(sets.leaves, k_none);
    return sets.position[element];
  }
  for (std::size_t k = 0; k < sets.outputs.size(); ++k)
    if (sets.outputs[k].first == element) return static_cast<std::uint32_t>(k);
  return k_none;
}

MapSet& WalkState::operator[](const StateKey& key) {
  Sets& sets = sets_of(key.first);
  std::uint32_t k = position_of(sets, key.second);
  if (k == k_none) {
    k = static_cast<std::uint32_t>(sets.outputs.size());
    if (!sets.outputs.empty() && sets.outputs.back().first > key.second) sets.sorted = false;
    sets.outputs.emplace_back(key.second, MapSet{});
    if (!sets.position.empty() && key.second < sets.position.size()) sets.position[key.second] = k;
  }
  return sets.outputs[k].second;
}

WalkState::Outputs* WalkState::reached(std::uint32_t instruction) {
  const std::uint32_t slot = m_slot.at(instruction);
  if (slot == k_none) return nullptr;
  Sets& sets = m_sets[slot];
  if (!sets.sorted) {
    // Elements are distinct: the order is total.
    std::sort(sets.outputs.begin(), sets.outputs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < sets.outputs.size(); ++k)
      if (sets.outputs[k].first < sets.position.size())
        sets.position[sets.outputs[k].first] = static_cast<std::uint32_t>(k);
    sets.sorted = true;
  }
  return &sets.outputs;
}

MapSet* WalkState::find(const StateKey& key) {
  const std::uint32_t slot = m_slot.at(key.first);
  if (slot == k_none) return nullptr;
  Sets& sets = m_sets[slot];
  const std::uint32_t k = position_of(sets, key.second);
  return k == k_none ? nullptr : &sets.outputs[k].second;
}

}  // namespace hlo_index::indexing

#include "indexing/ops/loop_dataflow.hpp"

#include <utility>

#include "indexing/ops/loop_counter.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

namespace {

constexpr std::int64_t k_every_leaf = -1;

// One leaf (k_every_leaf: all) of one instruction's value.
using Value = std::pair<std::uint32_t, std::int64_t>;

// Where tuple and get-tuple-element take leaf `leaf` (k_every_leaf: all) of
// `at` from (every leaf of the element for a get-tuple-element read whole);
// nothing for other ops.
std::vector<Value> moved_from(const hlo::Module& module, const hlo::Computation& c, std::uint32_t at,
                              std::int64_t leaf) {
  const hlo::Instruction& instr = c.instructions[at];
  if (leaf == k_every_leaf && instr.opcode == hlo::Opcode::kGetTupleElement) {
    std::vector<Value> out;
    const std::size_t leaves = leaf_count(module.shape_of(instr));
    for (std::size_t m = 0; m < leaves; ++m) {
      if (auto from = moved_leaf(module, c, {at, m}))
        out.emplace_back(from->first, static_cast<std::int64_t>(from->second));
    }
    return out;
  }
  if (leaf == k_every_leaf) return {};
  if (auto from = moved_leaf(module, c, {at, static_cast<std::size_t>(leaf)}))
    return {{from->first, static_cast<std::int64_t>(from->second)}};
  return {};
}

// The state leaves leaf `leaf` of instruction `at` of `c` depends on through
// its parameter 0: followed leaf by leaf through tuple and
// get-tuple-element, and whole through every other op.
std::set<std::size_t> leaves_reached(const hlo::Module& module, const hlo::Computation& c, std::uint32_t at,
                                     std::int64_t leaf, std::size_t state_leaves) {
  std::set<std::size_t> out;
  std::set<Value> seen;
  std::vector<Value> stack{{at, leaf}};
  while (!stack.empty()) {
    auto [i, l] = stack.back();
    stack.pop_back();
    const hlo::Instruction& instr = c.instructions[i];
    if (!module.shape_of(instr).is_tuple) l = k_every_leaf;
    if (!seen.insert({i, l}).second) continue;
    if (instr.opcode == hlo::Opcode::kParameter) {
      if (l != k_every_leaf) {
        out.insert(static_cast<std::size_t>(l));
      } else {
        for (std::size_t e = 0; e < state_leaves; ++e) out.insert(e);
      }
      continue;
    }
    if (instr.opcode == hlo::Opcode::kGetTupleElement || (instr.opcode == hlo::Opcode::kTuple && l != k_every_leaf)) {
      for (const Value& v : moved_from(module, c, i, l)) stack.push_back(v);
      continue;
    }
    for (std::uint32_t o : c.operands_of(instr)) stack.emplace_back(o, k_every_leaf);
  }
  return out;
}

}  // namespace

LoopDataflow::LoopDataflow(const OpContext& op) : m_module(op.module) {
  const auto called = loop_computations(op.module, op.computation, op.instruction());
  if (!called) throw Unsupported("a while without its body or condition computation");
  m_body = &op.module.computations[called->body];
  m_condition = &op.module.computations[called->condition];
  if (m_body->root == hlo::k_none) throw Unsupported("a while body without a root");
  if (m_condition->root == hlo::k_none) throw Unsupported("a while condition without a root");
  if (op.operand_count() != 1) throw Unsupported("a while with other than one operand");
  m_leaves = leaf_count(op.operand_shape(0));
  m_condition_reads = leaves_reached(m_module, *m_condition, m_condition->root, k_every_leaf, m_leaves);
  m_reached.resize(m_leaves);
  m_passes_on.assign(m_leaves, -1);
}

bool LoopDataflow::passes_on(std::size_t k) {
  if (k >= m_leaves) return false;
  if (m_passes_on[k] < 0) {
    const ValueLeaf origin = leaf_origin(m_module, *m_body, {m_body->root, k});
    const bool passed = m_body->instructions[origin.first].opcode == hlo::Opcode::kParameter && origin.second == k;
    m_passes_on[k] = passed ? 1 : 0;
  }
  return m_passes_on[k] != 0;
}

const std::set<std::size_t>& LoopDataflow::reached(std::size_t e) {
  if (!m_reached.at(e))
    m_reached[e] = leaves_reached(m_module, *m_body, m_body->root, static_cast<std::int64_t>(e), m_leaves);
  return *m_reached[e];
}

std::set<std::size_t> LoopDataflow::leaves_read(std::size_t k) {
  std::vector<std::size_t> work(m_condition_reads.begin(), m_condition_reads.end());
  work.push_back(k);
  std::set<std::size_t> read;
  while (!work.empty()) {
    const std::size_t e = work.back();
    work.pop_back();
    if (e >= m_leaves || !read.insert(e).second) continue;  // zero iterations read the init's leaf itself
    for (std::size_t f : reached(e)) work.push_back(f);
  }
  return read;
}

}  // namespace hlo_index::indexing

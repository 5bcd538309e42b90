// while: the state (usually a tuple) goes through body= as long as
// condition= holds, a number of times known only at run time. The state's
// index spaces are its array leaves (tuple_leaves.hpp). A leaf the body
// passes on unchanged (the root's leaf k is, through tuple and
// get-tuple-element only, the parameter's leaf k) is the init's leaf k: the
// identity, exact. Any other leaf may depend, after some iterations, on every
// leaf it reaches through the body's dataflow, again and again, and on every
// leaf the condition reads (which decides how many iterations run): it reads
// those leaves whole, a sound superset marked approximate. Maps into the
// tuple operand name the leaf in their first result, as a call's do.
#include <algorithm>
#include <set>

#include "indexing/loop_counter.hpp"
#include "indexing/op_maps_internal.hpp"
#include "indexing/tuple_leaves.hpp"

namespace hlo_index::indexing::detail {

namespace {

struct Loop {
  const hlo::Computation* body = nullptr;
  const hlo::Computation* condition = nullptr;
};

Loop loop(const OpContext& op) {
  const auto called = loop_computations(op.module, op.computation, op.instruction());
  if (!called) throw Unsupported("a while without its body or condition computation");
  return {&op.module.computations[called->body], &op.module.computations[called->condition]};
}

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

// Leaf k of the body's root is the parameter's leaf k, moved by tuple and
// get-tuple-element only.
bool passed_on(const hlo::Module& module, const hlo::Computation& body, std::size_t k) {
  if (body.root == hlo::k_none) throw Unsupported("a while body without a root");
  const ValueLeaf origin = leaf_origin(module, body, {body.root, k});
  return body.instructions[origin.first].opcode == hlo::Opcode::kParameter && origin.second == k;
}

// The leaves output k may read: everything leaf k and the leaves the
// condition reads (which decide how often the body runs) reach through the
// body's dataflow, iteration after iteration (a fixed point).
std::set<std::size_t> leaves_read(const hlo::Module& module, const Loop& l, std::size_t k, std::size_t leaves) {
  if (l.condition->root == hlo::k_none) throw Unsupported("a while condition without a root");
  if (l.body->root == hlo::k_none) throw Unsupported("a while body without a root");
  const std::set<std::size_t> decides = leaves_reached(module, *l.condition, l.condition->root, k_every_leaf, leaves);
  std::vector<std::size_t> work(decides.begin(), decides.end());
  work.push_back(k);
  std::set<std::size_t> read;
  while (!work.empty()) {
    const std::size_t e = work.back();
    work.pop_back();
    if (!read.insert(e).second) continue;  // zero iterations read the init's leaf itself
    for (std::size_t f : leaves_reached(module, *l.body, l.body->root, static_cast<std::int64_t>(e), leaves))
      work.push_back(f);
  }
  return read;
}

}  // namespace

bool while_passes_on(const OpContext& op, std::size_t leaf) { return passed_on(op.module, *loop(op).body, leaf); }

std::set<std::size_t> while_leaves_read(const OpContext& op, std::size_t leaf) {
  return leaves_read(op.module, loop(op), leaf, leaf_count(op.operand_shape(0)));
}

std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 1) throw Unsupported("a while with other than one operand");
  const Loop l = loop(op);
  const hlo::Shape& state = op.operand_shape(0);
  const bool tuple_state = state.is_tuple;
  const std::size_t leaves = leaf_count(state);
  std::vector<MapSet> sets(1);
  const auto out_dims = op.output_dims(output);
  auto into = [&](IndexingMap map, std::size_t e) {
    if (tuple_state) map.results().insert(map.results().begin(), Expr::constant(static_cast<std::int64_t>(e)));
    return map;
  };
  if (passed_on(op.module, *l.body, output)) {
    sets[0].push_back(into(IndexingMap::identity(out_dims), output));
    return sets;
  }
  for (std::size_t e : leaves_read(op.module, l, output, leaves)) {
    const auto in = dimension_sizes(leaf_shape(state, e));
    if (build::product(in) == 0) continue;
    IndexingMap whole = build::map(out_dims, build::ranges(in.size()), in);
    whole.mark_approximate("state the body changes, read whole");
    sets[0].push_back(into(std::move(whole), e));
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail

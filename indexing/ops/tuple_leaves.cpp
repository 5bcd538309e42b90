#include "indexing/ops/tuple_leaves.hpp"

#include <algorithm>

#include "indexing/ops/op_context.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing {

std::size_t leaf_count(const hlo::Shape& shape) {
  if (!shape.is_tuple) return 1;
  std::size_t n = 0;
  for (const hlo::Shape& e : shape.elements) n += e.is_tuple ? leaf_count(e) : 1;
  return n;
}

std::size_t leaf_offset(const hlo::Shape& shape, std::size_t element) {
  if (!shape.is_tuple) return 0;
  std::size_t n = 0;
  for (std::size_t e = 0; e < element && e < shape.elements.size(); ++e) n += leaf_count(shape.elements[e]);
  return n;
}

namespace {

// The array leaf `leaf` of `shape` counting from its first; `path` gets its shape index.
const hlo::Shape* find_leaf(const hlo::Shape& shape, std::size_t leaf, std::vector<std::size_t>* path) {
  if (!shape.is_tuple) return leaf == 0 ? &shape : nullptr;
  for (std::size_t e = 0; e < shape.elements.size(); ++e) {
    const hlo::Shape& element = shape.elements[e];
    const std::size_t n = element.is_tuple ? leaf_count(element) : 1;
    if (leaf < n) {
      if (path != nullptr) path->push_back(e);
      return find_leaf(element, leaf, path);
    }
    leaf -= n;
  }
  return nullptr;
}

}  // namespace

const hlo::Shape& leaf_shape(const hlo::Shape& shape, std::size_t leaf) {
  const hlo::Shape* found = find_leaf(shape, leaf, nullptr);
  if (found == nullptr)
    throw Unsupported("output " + std::to_string(leaf) + " of a tuple of " + std::to_string(leaf_count(shape)) +
                      " arrays");
  return *found;
}

const hlo::Shape* find_leaf_shape(const hlo::Shape& shape, std::size_t leaf) { return find_leaf(shape, leaf, nullptr); }

namespace {

void collect_leaves(const hlo::Shape& shape, std::vector<const hlo::Shape*>& out) {
  if (!shape.is_tuple) {
    out.push_back(&shape);
    return;
  }
  for (const hlo::Shape& e : shape.elements) collect_leaves(e, out);
}

}  // namespace

std::vector<const hlo::Shape*> leaf_shapes(const hlo::Shape& shape) {
  std::vector<const hlo::Shape*> out;
  collect_leaves(shape, out);
  return out;
}

std::vector<std::size_t> leaf_path(const hlo::Shape& shape, std::size_t leaf) {
  std::vector<std::size_t> path;
  if (find_leaf(shape, leaf, &path) == nullptr) return {};
  return path;
}

std::optional<std::size_t> leaf_at(const hlo::Shape& shape, std::span<const std::size_t> path) {
  const hlo::Shape* at = &shape;
  std::size_t leaf = 0;
  for (std::size_t e : path) {
    if (!at->is_tuple || e >= at->elements.size()) return std::nullopt;
    leaf += leaf_offset(*at, e);
    at = &at->elements[e];
  }
  if (at->is_tuple) return std::nullopt;
  return leaf;
}

bool has_nested_tuple(const hlo::Shape& shape) {
  return shape.is_tuple &&
         std::any_of(shape.elements.begin(), shape.elements.end(), [](const hlo::Shape& e) { return e.is_tuple; });
}

std::string shape_index_text(std::span<const std::size_t> path) {
  std::string text = "{";
  for (std::size_t k = 0; k < path.size(); ++k) {
    if (k > 0) text += ",";
    text += std::to_string(path[k]);
  }
  return text + "}";
}

std::optional<ValueLeaf> moved_leaf(const hlo::Module& module, const hlo::Computation& c, ValueLeaf at) {
  const hlo::Instruction& instr = c.instructions.at(at.first);
  const auto operands = c.operands_of(instr);
  if (instr.opcode == hlo::Opcode::kGetTupleElement && operands.size() == 1) {
    const hlo::ShapeId tuple_id = c.instructions[operands[0]].shape;
    const hlo::Shape& tuple = module.shape(tuple_id);
    const std::int64_t index = parser::int_attribute(c, instr, "index").value_or(-1);
    if (!tuple.is_tuple || index < 0 || static_cast<std::size_t>(index) >= tuple.elements.size()) return std::nullopt;
    // A tuple of arrays: element `index` is leaf `index`, an array with the one leaf 0.
    if (module.is_flat_tuple(tuple_id))
      return at.second == 0 ? std::optional(ValueLeaf{operands[0], static_cast<std::size_t>(index)}) : std::nullopt;
    if (at.second >= leaf_count(tuple.elements[static_cast<std::size_t>(index)])) return std::nullopt;
    return ValueLeaf{operands[0], leaf_offset(tuple, static_cast<std::size_t>(index)) + at.second};
  }
  if (instr.opcode == hlo::Opcode::kTuple) {
    if (module.is_flat_tuple(instr.shape)) {
      // Leaf k is element k, taken whole from operand k: its leaf 0 when it is an array.
      if (at.second >= module.shape_of(instr).elements.size() || at.second >= operands.size()) return std::nullopt;
      const std::uint32_t operand = operands[at.second];
      if (module.shape_of(c.instructions[operand]).is_tuple) return std::nullopt;
      return ValueLeaf{operand, 0};
    }
    const std::vector<std::size_t> path = leaf_path(module.shape_of(instr), at.second);
    if (path.empty() || path.front() >= operands.size()) return std::nullopt;
    const std::uint32_t operand = operands[path.front()];
    const std::optional<std::size_t> m = leaf_at(module.shape_of(c.instructions[operand]), std::span(path).subspan(1));
    if (!m) return std::nullopt;
    return ValueLeaf{operand, *m};
  }
  return std::nullopt;
}

ValueLeaf leaf_origin(const hlo::Module& module, const hlo::Computation& c, ValueLeaf at) {
  // Operands come before their users in a well-formed computation; the bound
  // keeps a malformed cycle from looping.
  for (std::size_t steps = 0; steps <= c.instructions.size(); ++steps) {
    const std::optional<ValueLeaf> from = moved_leaf(module, c, at);
    if (!from) return at;
    at = *from;
  }
  return at;
}

}  // namespace hlo_index::indexing

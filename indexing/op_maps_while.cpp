// while: the state (usually a tuple) goes through body= as long as
// condition= holds, a number of times known only at run time. An element the
// body passes on unchanged (the root's element k is get-tuple-element k of
// the parameter) is the init's element k: the identity, exact. Any other
// element may depend, after some iterations, on every element it reaches
// through the body's dataflow, again and again, and on every element the
// condition reads (which decides how many iterations run): it reads those
// elements whole, a sound superset marked approximate. Maps into the tuple
// operand name the element in their first result, as a call's do.
#include <algorithm>
#include <set>

#include "indexing/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

namespace {

struct Loop {
  const hlo::Computation* body = nullptr;
  const hlo::Computation* condition = nullptr;
};

Loop loop(const OpContext& op) {
  auto find = [&](std::string_view key) -> const hlo::Computation* {
    std::string_view name = op.attribute(key).value_or("");
    while (!name.empty() && (name.front() == '%' || name.front() == ' ')) name.remove_prefix(1);
    const std::uint32_t c = op.module.find_computation(name);
    if (c == hlo::k_none) throw Unsupported(std::string("a while without its ").append(key).append(" computation"));
    return &op.module.computations[c];
  };
  return {find("body"), find("condition")};
}

// The state elements instruction `at` of `c` depends on through its
// parameter 0: get-tuple-element k of it is element k; the parameter read
// whole (not through get-tuple-element) is every element.
std::set<std::size_t> elements_reached(const hlo::Computation& c, std::uint32_t at, std::size_t elements) {
  std::set<std::size_t> out;
  std::vector<char> seen(c.instructions.size(), 0);
  std::vector<std::uint32_t> stack{at};
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    if (seen[i] != 0) continue;
    seen[i] = 1;
    const hlo::Instruction& instr = c.instructions[i];
    const auto operands = c.operands_of(instr);
    if (instr.opcode == hlo::Opcode::kGetTupleElement && operands.size() == 1 &&
        c.instructions[operands[0]].opcode == hlo::Opcode::kParameter) {
      out.insert(static_cast<std::size_t>(parser::int_attribute(c, instr, "index").value_or(0)));
      continue;
    }
    if (instr.opcode == hlo::Opcode::kParameter) {
      for (std::size_t e = 0; e < elements; ++e) out.insert(e);
      continue;
    }
    for (std::uint32_t o : operands) stack.push_back(o);
  }
  return out;
}

// What the body's root makes of element k: its operand k when the root is a tuple.
std::uint32_t root_element(const hlo::Computation& body, std::size_t k, bool tuple_state) {
  if (body.root == hlo::k_none) throw Unsupported("a while body without a root");
  if (!tuple_state) return body.root;
  const hlo::Instruction& root = body.instructions[body.root];
  if (root.opcode != hlo::Opcode::kTuple || k >= root.operand_count)
    throw Unsupported("a while body whose root is not a tuple of the state's elements");
  return body.operands_of(root)[k];
}

bool passed_on(const hlo::Computation& body, std::uint32_t produced, std::size_t k, bool tuple_state) {
  const hlo::Instruction& instr = body.instructions[produced];
  if (!tuple_state) return instr.opcode == hlo::Opcode::kParameter;
  const auto operands = body.operands_of(instr);
  return instr.opcode == hlo::Opcode::kGetTupleElement && operands.size() == 1 &&
         body.instructions[operands[0]].opcode == hlo::Opcode::kParameter &&
         parser::int_attribute(body, instr, "index").value_or(-1) == static_cast<std::int64_t>(k);
}

// The elements output k may read: everything element k and the elements the
// condition reads (which decide how often the body runs) reach through the
// body's dataflow, iteration after iteration (a fixed point).
std::set<std::size_t> elements_read(const Loop& l, std::size_t k, std::size_t elements, bool tuple_state) {
  if (l.condition->root == hlo::k_none) throw Unsupported("a while condition without a root");
  const std::set<std::size_t> decides = elements_reached(*l.condition, l.condition->root, elements);
  std::vector<std::size_t> work(decides.begin(), decides.end());
  work.push_back(k);
  std::set<std::size_t> read;
  while (!work.empty()) {
    const std::size_t e = work.back();
    work.pop_back();
    if (!read.insert(e).second) continue;  // zero iterations read the init's element itself
    for (std::size_t f : elements_reached(*l.body, root_element(*l.body, e, tuple_state), elements)) work.push_back(f);
  }
  return read;
}

const hlo::Shape& element_shape(const hlo::Shape& state, std::size_t e) {
  return state.is_tuple ? state.elements.at(e) : state;
}

}  // namespace

std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output) {
  if (op.operand_count() != 1) throw Unsupported("a while with other than one operand");
  const Loop l = loop(op);
  const hlo::Shape& state = op.operand_shape(0);
  const bool tuple_state = state.is_tuple;
  const std::size_t elements = tuple_state ? state.elements.size() : 1;
  std::vector<MapSet> sets(1);
  const hlo::Shape& out = op.output_shape(output);
  if (out.is_tuple) {
    sets[0].push_back(IndexingMap::undefined("a nested tuple element of a while state"));
    return sets;
  }
  const auto out_dims = dimension_sizes(out);
  auto into = [&](IndexingMap map, std::size_t e) {
    if (tuple_state) map.results().insert(map.results().begin(), Expr::constant(static_cast<std::int64_t>(e)));
    return map;
  };
  if (passed_on(*l.body, root_element(*l.body, output, tuple_state), output, tuple_state)) {
    sets[0].push_back(into(IndexingMap::identity(out_dims), output));
    return sets;
  }
  for (std::size_t e : elements_read(l, output, elements, tuple_state)) {
    const hlo::Shape& shape = element_shape(state, e);
    if (shape.is_tuple) {
      sets[0].push_back(IndexingMap::undefined("a nested tuple element of a while state"));
      continue;
    }
    const auto in = dimension_sizes(shape);
    if (build::product(in) == 0) continue;
    IndexingMap whole = build::map(out_dims, build::ranges(in.size()), in);
    whole.mark_approximate();
    sets[0].push_back(into(std::move(whole), e));
  }
  return sets;
}

}  // namespace hlo_index::indexing::detail

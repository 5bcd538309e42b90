#include "indexing/ops/output_dependence.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>

#include "indexing/maps/map_builders.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing {

namespace {

using hlo::Opcode;

constexpr std::int64_t k_all = -1;  // the whole value (every leaf of a tuple)

// What one value of a computation depends on among its parameters: whole
// arrays or tuple leaves (parameter, leaf (tuple_leaves.hpp) or k_all), and the parameters
// reached through an op whose maps are UNDEFINED (parameter, reason).
struct Reads {
  std::set<std::pair<std::size_t, std::int64_t>> elements;
  std::set<std::pair<std::size_t, std::string>> undefined;
};

std::string_view unquoted(std::string_view text) {
  while (!text.empty() && (text.front() == '%' || text.front() == ' ')) text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

}  // namespace

class OutputDependence::Walker {
public:
  explicit Walker(const hlo::Module& module) : m_module(module) {}

  const hlo::Module& module() const { return m_module; }

  // What leaf `element` of the root of computation `c` depends on (memoised).
  const Reads& of_root(std::uint32_t c, std::int64_t element) {
    const hlo::Computation& comp = m_module.computations.at(c);
    if (comp.root == hlo::k_none) throw Unsupported("a called computation without a root");
    if (!m_module.shape_of(comp.instructions[comp.root]).is_tuple) element = k_all;
    const auto key = std::make_pair(c, element);
    if (auto it = m_memo.find(key); it != m_memo.end()) return it->second;
    if (++m_depth > 64) throw Unsupported("calls nested too deeply");
    Reads reads = walk(comp, comp.root, element);
    --m_depth;
    return m_memo.emplace(key, std::move(reads)).first->second;
  }

  // What element `element` of instruction `i` of computation `c` depends on
  // among its operands (by operand position in place of parameter number).
  Reads of_operands(std::uint32_t c, std::uint32_t i, std::int64_t element) {
    const hlo::Computation& comp = m_module.computations.at(c);
    if (!m_module.shape_of(comp.instructions.at(i)).is_tuple) element = k_all;
    return walk(comp, i, element, comp.operands_of(comp.instructions[i]));
  }

private:
  struct Item {
    std::uint32_t instruction;
    std::int64_t element;
    std::size_t reason;  // 0, or 1 + the index of an UNDEFINED reason in m_reasons
    bool operator<(const Item& o) const {
      return std::tie(instruction, element, reason) < std::tie(o.instruction, o.element, o.reason);
    }
  };

  std::size_t reason_id(const std::string& reason) {
    auto it = m_reason_ids.emplace(reason, m_reasons.size() + 1).first;
    if (it->second == m_reasons.size() + 1) m_reasons.push_back(reason);
    return it->second;
  }

  const hlo::Computation& named(const hlo::Computation& c, const hlo::Instruction& instr, std::string_view key) {
    const std::uint32_t callee = m_module.find_computation(unquoted(c.attribute(instr, key).value_or("")));
    if (callee == hlo::k_none)
      throw Unsupported(std::string("a while without its ").append(key).append(" computation"));
    return m_module.computations[callee];
  }

  // The state leaves a while's output leaf `element` may read: the leaf itself
  // when the body passes it on unchanged; otherwise that leaf and those the
  // condition reads, closed under what the body makes of each. k_all: all.
  std::set<std::int64_t> while_reads(const hlo::Computation& c, const hlo::Instruction& instr, std::int64_t element) {
    const hlo::Computation& body = named(c, instr, "body");
    const hlo::Computation& condition = named(c, instr, "condition");
    const std::uint32_t body_index = static_cast<std::uint32_t>(&body - m_module.computations.data());
    const std::uint32_t condition_index = static_cast<std::uint32_t>(&condition - m_module.computations.data());
    if (element == k_all) return {k_all};
    if (body.root != hlo::k_none) {
      const auto leaf = static_cast<std::size_t>(element);
      const ValueLeaf origin = leaf_origin(m_module, body, {body.root, leaf});
      if (body.instructions[origin.first].opcode == Opcode::kParameter && origin.second == leaf) return {element};
    }
    std::set<std::int64_t> read;
    std::vector<std::int64_t> work{element};
    auto add_reads = [&](const Reads& reads) {
      for (const auto& [parameter, e] : reads.elements) work.push_back(e);
      if (!reads.undefined.empty()) work.push_back(k_all);
    };
    add_reads(of_root(condition_index, k_all));
    while (!work.empty()) {
      const std::int64_t e = work.back();
      work.pop_back();
      if (e == k_all) return {k_all};
      if (!read.insert(e).second) continue;  // zero iterations read the init's element itself
      add_reads(of_root(body_index, e));
    }
    return read;
  }

  // `sinks` (the operands of `start`, for of_operands) end the walk as parameters do, by position.
  Reads walk(const hlo::Computation& c, std::uint32_t start, std::int64_t element,
             std::span<const std::uint32_t> sinks = {}) {
    Reads out;
    std::set<Item> seen;
    std::vector<Item> work{{start, element, 0}};
    auto push = [&](std::uint32_t i, std::int64_t e, std::size_t reason) {
      if (i >= c.instructions.size()) return;
      if (!m_module.shape_of(c.instructions[i]).is_tuple) e = k_all;
      work.push_back({i, e, reason});
    };
    while (!work.empty()) {
      const Item item = work.back();
      work.pop_back();
      if (!seen.insert(item).second) continue;
      const hlo::Instruction& instr = c.instructions[item.instruction];
      const auto operands = c.operands_of(instr);
      const std::size_t reason = item.reason;
      if (!sinks.empty() && item.instruction != start) {
        for (std::size_t p = 0; p < sinks.size(); ++p) {
          if (sinks[p] != item.instruction) continue;
          if (reason != 0)
            out.undefined.insert({p, m_reasons[reason - 1]});
          else
            out.elements.insert({p, item.element});
        }
        continue;
      }
      auto every_operand = [&](std::size_t why) {
        for (std::uint32_t o : operands) push(o, k_all, why);
      };
      if (instr.opcode == Opcode::kParameter) {
        const auto parameter = static_cast<std::size_t>(instr.parameter_number);
        if (reason != 0)
          out.undefined.insert({parameter, m_reasons[reason - 1]});
        else
          out.elements.insert({parameter, item.element});
        continue;
      }
      if (c.has_missing_callee(instr)) {
        every_operand(reason);  // a call into what a truncated dump lacks may read anything
        continue;
      }
      const hlo::MapFamily family = hlo::op_traits(instr.opcode).maps;
      if (instr.opcode == Opcode::kGetTupleElement && operands.size() == 1) {
        // The leaves of element index=: one, or all of them.
        const std::size_t leaves = leaf_count(m_module.shape_of(instr));
        bool moved = false;
        for (std::size_t k = 0; k < leaves; ++k) {
          if (item.element != k_all && static_cast<std::size_t>(item.element) != k) continue;
          if (auto from = moved_leaf(m_module, c, {item.instruction, k})) {
            push(from->first, static_cast<std::int64_t>(from->second), reason);
            moved = true;
          }
        }
        if (!moved && leaves > 0) push(operands[0], k_all, reason);
      } else if (instr.opcode == Opcode::kTuple) {
        const auto from = item.element == k_all
                              ? std::nullopt
                              : moved_leaf(m_module, c, {item.instruction, static_cast<std::size_t>(item.element)});
        if (from)
          push(from->first, static_cast<std::int64_t>(from->second), reason);
        else
          every_operand(reason);
      } else if (family == hlo::MapFamily::kWhile && operands.size() == 1) {
        for (std::int64_t e : while_reads(c, instr, item.element)) push(operands[0], e, reason);
      } else if (family == hlo::MapFamily::kCall && c.callees_of(instr).size() == 1) {
        through(of_root(c.callees_of(instr)[0], item.element), operands, 0, reason, push);
      } else if (family == hlo::MapFamily::kConditional && !operands.empty()) {
        const std::vector<std::uint32_t> branches = conditional_branches(m_module, c, instr);
        push(operands[0], k_all, reason);  // the selector
        if (operands.size() != branches.size() + 1) {
          every_operand(reason);
          continue;
        }
        for (std::size_t b = 0; b < branches.size(); ++b)
          through(of_root(branches[b], item.element), operands, b + 1, reason, push);
      } else if (family == hlo::MapFamily::kNone || family == hlo::MapFamily::kCustomCall) {
        // Ops whose maps may be UNDEFINED (unknown ones, custom-calls of unknown
        // targets): the parameters an UNDEFINED map's operand reaches get it too.
        const OpContext op{m_module, c, item.instruction};
        const std::vector<MapSet> sets =
            output_to_input(op, item.element == k_all ? 0 : item.element, MapStyle::kExact);
        for (std::size_t j = 0; j < operands.size(); ++j) {
          push(operands[j], k_all, reason);
          if (j >= sets.size()) continue;
          for (const IndexingMap& m : sets[j])
            if (m.is_undefined()) push(operands[j], k_all, reason_id(m.undefined_reason()));
        }
      } else {
        every_operand(reason);
      }
    }
    return out;
  }

  // What a called computation's output reads, as reads of `operands`
  // (parameter p is operands[first + p]; a conditional's branch has one).
  template <typename Push>
  void through(const Reads& reads, std::span<const std::uint32_t> operands, std::size_t first, std::size_t reason,
               const Push& push) {
    const bool one_parameter = first != 0;
    auto operand = [&](std::size_t parameter) -> std::optional<std::uint32_t> {
      if (one_parameter) return parameter == 0 ? std::optional(operands[first]) : std::nullopt;
      return parameter < operands.size() ? std::optional(operands[parameter]) : std::nullopt;
    };
    for (const auto& [parameter, e] : reads.elements) {
      if (auto o = operand(parameter))
        push(*o, e, reason);
      else
        for (std::size_t k = first; k < operands.size(); ++k) push(operands[k], k_all, reason);  // unsure: all
    }
    for (const auto& [parameter, why] : reads.undefined) {
      const std::size_t id = reason_id(why);
      if (auto o = operand(parameter))
        push(*o, k_all, id);
      else
        for (std::size_t k = first; k < operands.size(); ++k) push(operands[k], k_all, id);
    }
  }

  const hlo::Module& m_module;
  std::map<std::pair<std::uint32_t, std::int64_t>, Reads> m_memo;
  std::vector<std::string> m_reasons;
  std::map<std::string, std::size_t> m_reason_ids;
  int m_depth = 0;
};

OutputDependence::OutputDependence(const hlo::Module& module) : m_walker(std::make_unique<Walker>(module)) {}

OutputDependence::~OutputDependence() = default;

std::vector<OutputDependence::OperandReads> OutputDependence::operand_reads(std::uint32_t computation,
                                                                            std::uint32_t instruction,
                                                                            std::size_t output) {
  const Reads reads = m_walker->of_operands(computation, instruction, static_cast<std::int64_t>(output));
  std::vector<OperandReads> out(
      m_walker->module().computations.at(computation).instructions.at(instruction).operand_count);
  for (const auto& [p, e] : reads.elements)
    if (p < out.size()) out[p].elements.insert(e);
  for (const auto& [p, why] : reads.undefined)
    if (p < out.size()) out[p].undefined.insert(why);
  return out;
}

std::vector<MapSet> OutputDependence::maps(std::uint32_t callee, std::size_t output, std::string_view why) {
  const hlo::Module& module = m_walker->module();
  const hlo::Computation& body = module.computations.at(callee);
  if (body.root == hlo::k_none) throw Unsupported("the called computation has no root");
  const hlo::Shape& root_shape = module.shape_of(body.instructions[body.root]);
  const hlo::Shape& out_shape = leaf_shape(root_shape, output);
  const std::vector<std::int64_t> out_dims = dimension_sizes(out_shape);

  std::vector<const hlo::Instruction*> parameters;
  for (const hlo::Instruction& i : body.instructions) {
    if (i.opcode != Opcode::kParameter || i.parameter_number < 0) continue;
    const auto p = static_cast<std::size_t>(i.parameter_number);
    if (parameters.size() <= p) parameters.resize(p + 1, nullptr);
    parameters[p] = &i;
  }
  const Reads& reads = m_walker->of_root(callee, root_shape.is_tuple ? static_cast<std::int64_t>(output) : k_all);
  std::vector<MapSet> sets(parameters.size());
  // Every element of array `shape`, for every output index (leaf `e` of a tuple parameter: named first).
  auto whole = [&](const hlo::Shape& shape, std::optional<std::int64_t> e) {
    const std::vector<std::int64_t> in = dimension_sizes(shape);
    IndexingMap map = build::map(out_dims, build::ranges(in.size()), in);
    if (e) map.results().insert(map.results().begin(), Expr::constant(*e));
    map.mark_approximate(why);
    return map;
  };
  // The leaves read of each parameter (k_all: every one), in leaf order.
  std::map<std::size_t, std::set<std::int64_t>> elements;
  for (const auto& [p, e] : reads.elements) elements[p].insert(e);
  for (const auto& [p, read] : elements) {
    if (p >= parameters.size() || parameters[p] == nullptr) continue;
    const hlo::Shape& shape = module.shape_of(*parameters[p]);
    if (!shape.is_tuple) {
      if (build::product(dimension_sizes(shape)) != 0) sets[p].push_back(whole(shape, std::nullopt));
      continue;
    }
    const std::vector<const hlo::Shape*> leaves = leaf_shapes(shape);
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      if (!read.contains(k_all) && !read.contains(static_cast<std::int64_t>(k))) continue;
      if (build::product(dimension_sizes(*leaves[k])) == 0) continue;
      sets[p].push_back(whole(*leaves[k], static_cast<std::int64_t>(k)));
    }
  }
  for (const auto& [p, undefined_why] : reads.undefined)
    if (p < sets.size()) sets[p].push_back(IndexingMap::undefined(undefined_why));
  return sets;
}

}  // namespace hlo_index::indexing

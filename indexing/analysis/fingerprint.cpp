#include "indexing/analysis/fingerprint.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "indexing/analysis/source_info.hpp"
#include "parser/canonical_names.hpp"

namespace hlo_index::analysis {

StableHash& StableHash::add(std::string_view text) {
  for (const char c : text) {
    m_state ^= static_cast<unsigned char>(c);
    m_state *= 0x100000001b3ull;
  }
  // A separator, so that ("ab", "c") and ("a", "bc") differ.
  m_state ^= 0xff;
  m_state *= 0x100000001b3ull;
  return *this;
}

StableHash& StableHash::add(std::uint64_t value) {
  std::array<char, 8> bytes{};
  for (std::size_t k = 0; k < 8; ++k) bytes[k] = static_cast<char>((value >> (8 * k)) & 0xff);
  return add(std::string_view(bytes.data(), bytes.size()));
}

std::string canonical_op_name(std::string_view op_name) {
  std::string out;
  std::size_t start = 0;
  while (start <= op_name.size()) {
    const std::size_t slash = std::min(op_name.find('/', start), op_name.size());
    if (!out.empty() || start > 0) out.push_back('/');
    out += parser::name_stem(op_name.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

namespace {

// Attributes that name things, vary between compiler runs, or describe no
// computation: left out of the identity. Calls are hashed by their callees' structure.
bool identity_attribute(const hlo::Attribute& a) {
  static constexpr std::array<std::string_view, 17> k_left_out = {"metadata",
                                                                  "backend_config",
                                                                  "frontend_attributes",
                                                                  "stack_frame_id",
                                                                  "control-predecessors",
                                                                  "channel_id",
                                                                  "calls",
                                                                  "to_apply",
                                                                  "body",
                                                                  "condition",
                                                                  "branch_computations",
                                                                  "called_computations",
                                                                  "true_computation",
                                                                  "false_computation",
                                                                  "statistics",
                                                                  "operation_queue_id",
                                                                  "origin"};
  if (std::find(k_left_out.begin(), k_left_out.end(), a.name) != k_left_out.end()) return false;
  return a.value.find('%') == std::string_view::npos;
}

class Builder {
public:
  explicit Builder(const hlo::Module& module)
      : m_module(module),
        m_structures(module.computations.size(), 0),
        m_done(module.computations.size(), 0),
        m_shapes(module.shapes.size()),
        m_locals(module.computations.size()) {}

  // A shape's text (layout included), printed once per interned shape: shapes repeat.
  const std::string& shape(hlo::ShapeId id) {
    if (id >= m_shapes.size()) m_shapes.resize(id + 1);
    if (!m_shapes[id]) m_shapes[id] = hlo::to_string(m_module.shape(id));
    return *m_shapes[id];
  }

  // The local description of an instruction: everything but its operands and names (once per
  // instruction: the structures and the fingerprints both ask).
  std::uint64_t local(std::uint32_t ci, std::uint32_t ii) {
    std::vector<std::optional<std::uint64_t>>& known = m_locals[ci];
    const hlo::Computation& c = m_module.computations[ci];
    if (known.empty()) known.resize(c.instructions.size());
    if (!known[ii]) known[ii] = computed_local(c, c.instructions[ii]);
    return *known[ii];
  }

  // A computation's structure: the data flow of its instructions, from the parameters to the root.
  std::uint64_t structure(std::uint32_t index) {
    if (m_done[index] == 2) return m_structures[index];
    if (m_done[index] == 1) return 0;  // a cycle (invalid HLO): no structure
    m_done[index] = 1;
    const hlo::Computation& c = m_module.computations[index];
    std::vector<std::uint64_t> flow(c.instructions.size(), 0);
    std::vector<char> state(c.instructions.size(), 0);
    std::vector<std::pair<std::uint32_t, bool>> stack;
    for (std::uint32_t start = 0; start < c.instructions.size(); ++start) {
      if (state[start] != 0) continue;
      stack.emplace_back(start, false);
      while (!stack.empty()) {
        auto [k, expanded] = stack.back();
        stack.pop_back();
        if (state[k] == 2) continue;
        if (!expanded) {
          state[k] = 1;
          stack.emplace_back(k, true);
          for (const std::uint32_t operand : c.operands_of(c.instructions[k])) {
            if (operand < c.instructions.size() && state[operand] == 0) stack.emplace_back(operand, false);
          }
          continue;
        }
        StableHash h;
        h.add(local(index, k));
        for (const std::uint32_t operand : c.operands_of(c.instructions[k]))
          h.add(operand < flow.size() ? flow[operand] : 0);
        flow[k] = h.value();
        state[k] = 2;
      }
    }
    StableHash h;
    h.add(c.root != hlo::k_none && c.root < flow.size() ? flow[c.root] : 0);
    m_structures[index] = h.value();
    m_done[index] = 2;
    return m_structures[index];
  }

  std::vector<std::uint64_t> take_structures() { return std::move(m_structures); }

private:
  std::uint64_t computed_local(const hlo::Computation& c, const hlo::Instruction& i) {
    StableHash h;
    h.add(m_module.opcode_text(i)).add(shape(i.shape));
    if (i.opcode == hlo::Opcode::kParameter) h.add(static_cast<std::uint64_t>(i.parameter_number));
    if (i.opcode == hlo::Opcode::kConstant) h.add(i.literal);
    for (const hlo::Attribute& a : c.attributes_of(i)) {
      if (identity_attribute(a)) h.add(a.name).add(a.value);
    }
    for (const std::uint32_t callee : c.callees_of(i)) h.add(callee == hlo::k_none ? 0 : structure(callee));
    return h.value();
  }

  const hlo::Module& m_module;
  std::vector<std::uint64_t> m_structures;
  std::vector<char> m_done;                                         // 0 not started, 1 in progress, 2 done
  std::vector<std::optional<std::string>> m_shapes;                 // per shape id, once printed
  std::vector<std::vector<std::optional<std::uint64_t>>> m_locals;  // per computation and instruction, once hashed
};

}  // namespace

ModuleFingerprints::ModuleFingerprints(const hlo::Module& module) : ModuleFingerprints(module, ModuleSources(module)) {}

ModuleFingerprints::ModuleFingerprints(const hlo::Module& module, const ModuleSources& sources) {
  Builder builder(module);
  std::unordered_map<std::uint64_t, std::uint32_t> seen;
  m_hashes.resize(module.computations.size());
  m_occurrence.resize(module.computations.size());
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    const hlo::Computation& c = module.computations[ci];
    m_hashes[ci].resize(c.instructions.size());
    m_occurrence[ci].resize(c.instructions.size());
    for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
      const hlo::Instruction& i = c.instructions[ii];
      StableHash h;
      h.add(builder.local(ci, ii));
      h.add(canonical_op_name(sources.own(c, i).op_name));
      for (const std::uint32_t operand : c.operands_of(i)) {
        if (operand >= c.instructions.size()) continue;
        const hlo::Instruction& o = c.instructions[operand];
        h.add(module.opcode_text(o)).add(builder.shape(o.shape));
        if (o.opcode == hlo::Opcode::kParameter) h.add(static_cast<std::uint64_t>(o.parameter_number));
      }
      m_hashes[ci][ii] = h.value();
      m_occurrence[ci][ii] = seen[h.value()]++;
    }
  }
  m_structures.resize(module.computations.size());
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) m_structures[ci] = builder.structure(ci);
}

std::string ModuleFingerprints::of(std::uint32_t computation, std::uint32_t instruction) const {
  const std::uint32_t k = m_occurrence[computation][instruction];
  const std::uint64_t h = m_hashes[computation][instruction];
  return k == 0 ? fmt::format("{:016x}", h) : fmt::format("{:016x}-{}", h, k);
}

std::uint64_t module_structure(const hlo::Module& module) {
  Builder builder(module);
  // Every computation's size and structure, in an order of their own (the text's may differ).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> parts;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci)
    parts.emplace_back(module.computations[ci].instructions.size(), builder.structure(ci));
  std::sort(parts.begin(), parts.end());
  StableHash h;
  h.add(module.entry < module.computations.size() ? builder.structure(module.entry) : 0);
  for (const auto& [size, structure] : parts) h.add(size).add(structure);
  return h.value();
}

}  // namespace hlo_index::analysis

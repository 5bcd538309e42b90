#include "parser/print.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "parser/name_lists.hpp"
#include "parser/scanners.hpp"

namespace hlo_index::parser {
namespace {

class Printer {
public:
  Printer(const hlo::Module& module, const PrintOptions& options, std::string& out)
      : m_module(module), m_options(options), m_out(out) {}

  void print() {
    if (m_module.has_header) {
      fmt::format_to(std::back_inserter(m_out), "HloModule {}", module_name());
      attributes(m_module.attributes);
      m_out += "\n\n";
    }
    if (m_options.stack_frame_tables) {
      for (const hlo::StackFrameTable& table : m_module.stack_frame_tables) {
        fmt::format_to(std::back_inserter(m_out), "{}\n", table.name);
        for (const hlo::TableEntry& e : table.entries)
          fmt::format_to(std::back_inserter(m_out), "{} {}\n", e.id, fold_blanks(e.value));
        m_out += "\n";
      }
    }
    for (std::uint32_t c = 0; c < m_module.computations.size(); ++c) {
      if (c) m_out += "\n";
      computation(c);
    }
  }

private:
  std::string_view module_name() const {
    return m_options.rename ? m_options.rename(hlo::k_none, hlo::k_none) : m_module.name;
  }
  std::string_view computation_name(std::uint32_t c) const {
    return m_options.rename ? m_options.rename(c, hlo::k_none) : m_module.computations[c].name;
  }
  std::string_view instruction_name(std::uint32_t c, std::uint32_t i) const {
    return m_options.rename ? m_options.rename(c, i) : m_module.computations[c].instructions[i].name;
  }

  bool dropped(std::string_view name) const {
    const auto& d = m_options.dropped_attributes;
    return std::find(d.begin(), d.end(), name) != d.end();
  }

  // Module and computation attributes: names of computations or instructions never occur in them.
  void attributes(std::span<const hlo::Attribute> list) {
    for (const hlo::Attribute& a : list) {
      if (!dropped(a.name)) fmt::format_to(std::back_inserter(m_out), ", {}={}", a.name, fold_blanks(a.value));
    }
  }

  void instruction_attributes(std::uint32_t ci, const hlo::Instruction& i) {
    m_name_lists.visit_attributes(ci, i, [this](const hlo::Attribute& a, const std::string* renamed) {
      if (!dropped(a.name))
        fmt::format_to(std::back_inserter(m_out), ", {}={}", a.name, renamed ? *renamed : fold_blanks(a.value));
    });
  }

  // The names the signature of computation `ci` prints: entry k takes that of the instruction
  // parameter(k), when there is one.
  std::vector<std::string_view> signature_names(std::uint32_t ci) const {
    const hlo::Computation& c = m_module.computations[ci];
    std::vector<std::string_view> names;
    for (const hlo::Parameter& p : c.signature) names.push_back(p.name);
    if (!m_options.rename) return names;
    for (std::uint32_t i = 0; i < c.instructions.size(); ++i) {
      const hlo::Instruction& instr = c.instructions[i];
      if (instr.opcode == hlo::Opcode::kParameter && instr.parameter_number >= 0 &&
          static_cast<std::uint64_t>(instr.parameter_number) < names.size())
        names[static_cast<std::size_t>(instr.parameter_number)] = instruction_name(ci, i);
    }
    return names;
  }

  void computation(std::uint32_t ci) {
    const hlo::Computation& c = m_module.computations[ci];
    if (c.is_entry) m_out += "ENTRY ";
    fmt::format_to(std::back_inserter(m_out), "%{}", computation_name(ci));
    if (c.signature_result) {
      m_out += " (";
      const std::vector<std::string_view> names = signature_names(ci);
      for (std::size_t k = 0; k < c.signature.size(); ++k)
        fmt::format_to(std::back_inserter(m_out), "{}{}: {}", k ? ", " : "", names[k],
                       hlo::to_string(m_module.shape(c.signature[k].shape)));
      fmt::format_to(std::back_inserter(m_out), ") -> {}", hlo::to_string(m_module.shape(*c.signature_result)));
    }
    m_out += " {\n";
    for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
      const hlo::Instruction& i = c.instructions[ii];
      fmt::format_to(std::back_inserter(m_out), "  {}%{} = {} {}(", i.is_root ? "ROOT " : "", instruction_name(ci, ii),
                     hlo::to_string(m_module.shape_of(i)), m_module.opcode_text(i));
      if (!i.literal.empty() || i.opcode == hlo::Opcode::kConstant || i.opcode == hlo::Opcode::kParameter) {
        m_out += fold_blanks(i.literal);
      } else {
        auto operands = c.operands_of(i);
        for (std::size_t k = 0; k < operands.size(); ++k)
          fmt::format_to(std::back_inserter(m_out), "{}%{}", k ? ", " : "", instruction_name(ci, operands[k]));
      }
      m_out += ")";
      instruction_attributes(ci, i);
      m_out += "\n";
    }
    m_out += "}";
    attributes(c.trailing_attributes);
    m_out += "\n";
  }

  const hlo::Module& m_module;
  const PrintOptions& m_options;
  std::string& m_out;
  NameListRenamer m_name_lists{m_module, m_options.rename};
};

}  // namespace

std::string fold_blanks(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const char* p = text.data();
  const char* end = p + text.size();
  bool pending_space = false;
  while (p < end) {
    const char* q = scan::skip_blank(p, end);
    if (q != p) {
      pending_space = true;
      p = q;
      continue;
    }
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    if (*p == '"' || *p == '\'') {
      const char* e = scan::quoted(p, end);
      out.append(p, e);
      p = e;
    } else {
      out += *p++;
    }
  }
  return out;
}

std::string print_module(const hlo::Module& module) { return print_module(module, PrintOptions{}); }

std::string print_module(const hlo::Module& module, const PrintOptions& options) {
  std::string out;
  Printer(module, options, out).print();
  return out;
}

}  // namespace hlo_index::parser

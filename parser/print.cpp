#include "parser/print.hpp"

#include <fmt/format.h>

#include "parser/scanners.hpp"

namespace hlo_index::parser {
namespace {

void print_attributes(std::string& out, std::span<const hlo::Attribute> attributes) {
  for (const hlo::Attribute& a : attributes) fmt::format_to(std::back_inserter(out), ", {}={}", a.name, fold_blanks(a.value));
}

void print_computation(std::string& out, const hlo::Module& module, const hlo::Computation& c) {
  if (c.is_entry) out += "ENTRY ";
  fmt::format_to(std::back_inserter(out), "%{}", c.name);
  if (c.signature_result) {
    out += " (";
    for (std::size_t k = 0; k < c.signature.size(); ++k)
      fmt::format_to(std::back_inserter(out), "{}{}: {}", k ? ", " : "", c.signature[k].name,
                     hlo::to_string(module.shape(c.signature[k].shape)));
    fmt::format_to(std::back_inserter(out), ") -> {}", hlo::to_string(module.shape(*c.signature_result)));
  }
  out += " {\n";
  for (const hlo::Instruction& i : c.instructions) {
    fmt::format_to(std::back_inserter(out), "  {}%{} = {} {}(", i.is_root ? "ROOT " : "", i.name,
                   hlo::to_string(module.shape_of(i)), module.opcode_text(i));
    if (!i.literal.empty() || i.opcode == hlo::Opcode::kConstant || i.opcode == hlo::Opcode::kParameter) {
      out += fold_blanks(i.literal);
    } else {
      auto operands = c.operands_of(i);
      for (std::size_t k = 0; k < operands.size(); ++k)
        fmt::format_to(std::back_inserter(out), "{}%{}", k ? ", " : "", c.instructions[operands[k]].name);
    }
    out += ")";
    print_attributes(out, c.attributes_of(i));
    out += "\n";
  }
  out += "}";
  print_attributes(out, c.trailing_attributes);
  out += "\n";
}

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

std::string print_module(const hlo::Module& module) {
  std::string out;
  if (module.has_header) {
    fmt::format_to(std::back_inserter(out), "HloModule {}", module.name);
    print_attributes(out, module.attributes);
    out += "\n\n";
  }
  for (const hlo::StackFrameTable& table : module.stack_frame_tables) {
    fmt::format_to(std::back_inserter(out), "{}\n", table.name);
    for (const hlo::TableEntry& e : table.entries) fmt::format_to(std::back_inserter(out), "{} {}\n", e.id, fold_blanks(e.value));
    out += "\n";
  }
  for (std::size_t c = 0; c < module.computations.size(); ++c) {
    if (c) out += "\n";
    print_computation(out, module, module.computations[c]);
  }
  return out;
}

}  // namespace hlo_index::parser

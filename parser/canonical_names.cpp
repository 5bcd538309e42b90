// Canonical names by stem and position, and the module re-printed under them.
#include "parser/canonical_names.hpp"

#include <fmt/format.h>

#include <map>

#include "parser/print.hpp"

namespace hlo_index::parser {
namespace {

bool is_number(std::string_view part) {
  return !part.empty() && part.find_first_not_of("0123456789") == std::string_view::npos;
}

// Hands out `stem`, `stem.1`, `stem.2`, ... in the order of the calls.
class Numbering {
public:
  std::string next(std::string stem) {
    std::size_t k = m_seen[stem]++;
    if (k != 0) fmt::format_to(std::back_inserter(stem), ".{}", k);
    return stem;
  }

private:
  std::map<std::string, std::size_t, std::less<>> m_seen;
};

}  // namespace

std::string name_stem(std::string_view name) {
  std::string stem;
  stem.reserve(name.size());
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = name.find('.', start);
    const std::string_view part = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!is_number(part)) {
      if (!stem.empty()) stem += '.';
      stem += part;
    }
    if (dot == std::string_view::npos) return stem;
    start = dot + 1;
  }
}

CanonicalNames canonical_names(const hlo::Module& module) {
  CanonicalNames names;
  Numbering computations;
  for (const hlo::Computation& c : module.computations) {
    std::string stem = name_stem(c.name);
    names.computations.push_back(computations.next(stem.empty() ? std::string("computation") : std::move(stem)));
    Numbering instructions;
    auto& out = names.instructions.emplace_back();
    out.reserve(c.instructions.size());
    for (const hlo::Instruction& i : c.instructions) {
      std::string instruction_stem = name_stem(i.name);
      out.push_back(instructions.next(instruction_stem.empty() ? std::string(module.opcode_text(i))
                                                               : std::move(instruction_stem)));
    }
  }
  if (!module.has_header && module.entry < names.computations.size()) {
    names.module = names.computations[module.entry];
  } else {
    names.module = name_stem(module.name);
    if (names.module.empty()) names.module = "module";
  }
  return names;
}

std::string print_canonical(const hlo::Module& module) {
  const CanonicalNames names = canonical_names(module);
  PrintOptions options;
  options.rename = [&names](std::uint32_t c, std::uint32_t i) -> std::string_view {
    if (c == hlo::k_none) return names.module;
    return i == hlo::k_none ? names.computations[c] : names.instructions[c][i];
  };
  options.dropped_attributes = {"metadata", "backend_config", "frontend_attributes", "stack_frame_id"};
  options.stack_frame_tables = false;
  return print_module(module, options);
}

std::optional<hlo::Module> with_canonical_names(const hlo::Module& module, DiagnosticEngine& diagnostics,
                                                const ParseOptions& options) {
  std::string name = module.source ? module.source->name() : std::string("<module>");
  name += " (canonical names)";
  DiagnosticEngine local;
  std::vector<hlo::Module> modules = parse_hlo_text(print_canonical(module), name, local, options);
  if (!local.has_errors() && modules.size() == 1) return std::move(modules.front());
  diagnostics.error(name, fmt::format("internal error: module '{}' re-printed under canonical names does not "
                                      "parse again:\n{}",
                                      module.name, render(local)));
  return std::nullopt;
}

}  // namespace hlo_index::parser

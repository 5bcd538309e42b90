// Canonical names by stem and position, and the module re-printed under them.
#include "parser/canonical_names.hpp"

#include <fmt/format.h>

#include <array>
#include <map>
#include <memory>

#include "parser/name_lists.hpp"
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

// Attributes that vary between compiler runs of one program: left out of the canonical print
// (rename_canonically keeps them: maps read backend_config and frontend_attributes).
constexpr std::array<std::string_view, 4> k_run_specific_attributes = {"metadata", "backend_config",
                                                                       "frontend_attributes", "stack_frame_id"};

Renaming renaming_to(const CanonicalNames& names) {
  return [&names](std::uint32_t c, std::uint32_t i) -> std::string_view {
    if (c == hlo::k_none) return names.module;
    return i == hlo::k_none ? names.computations[c] : names.instructions[c][i];
  };
}

// Strings gathered into one, to be viewed once it has its final place.
class TextSpans {
public:
  struct Span {
    std::size_t offset, size;
  };
  Span add(std::string_view piece) {
    const Span span{m_text.size(), piece.size()};
    m_text += piece;
    return span;
  }
  std::string take() { return std::move(m_text); }
  static std::string_view view(const std::string& text, Span span) { return {text.data() + span.offset, span.size}; }

private:
  std::string m_text;
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
  options.rename = renaming_to(names);
  options.dropped_attributes = {k_run_specific_attributes.begin(), k_run_specific_attributes.end()};
  options.stack_frame_tables = false;
  return print_module(module, options);
}

void rename_canonically(hlo::Module& module) {
  const CanonicalNames names = canonical_names(module);
  TextSpans text;
  // The name lists under the new names, worked out while the old names still stand (a
  // control-predecessors entry is found by its name); their views are set once the text holding
  // them is in place.
  struct RenamedValue {
    std::uint32_t computation;
    std::size_t attribute;
    TextSpans::Span value;
  };
  std::vector<RenamedValue> renamed_values;
  NameListRenamer name_lists(module, renaming_to(names));
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    const hlo::Computation& c = module.computations[ci];
    for (const hlo::Instruction& i : c.instructions) {
      name_lists.visit_attributes(ci, i, [&](const hlo::Attribute& a, const std::string* renamed) {
        if (renamed)
          renamed_values.push_back({ci, static_cast<std::size_t>(&a - c.attributes.data()), text.add(*renamed)});
      });
    }
  }
  std::vector<TextSpans::Span> computation_names;
  std::vector<std::vector<TextSpans::Span>> instruction_names;
  for (std::size_t ci = 0; ci < names.computations.size(); ++ci) {
    computation_names.push_back(text.add(names.computations[ci]));
    auto& spans = instruction_names.emplace_back();
    for (const std::string& name : names.instructions[ci]) spans.push_back(text.add(name));
  }
  const TextSpans::Span module_name = text.add(names.module);

  const std::string& owned = *module.synthesized_text.emplace_back(std::make_unique<std::string>(text.take()));
  for (const RenamedValue& v : renamed_values)
    module.computations[v.computation].attributes[v.attribute].value = TextSpans::view(owned, v.value);
  module.name = TextSpans::view(owned, module_name);
  for (std::size_t ci = 0; ci < module.computations.size(); ++ci) {
    hlo::Computation& c = module.computations[ci];
    c.name = TextSpans::view(owned, computation_names[ci]);
    for (std::size_t k = 0; k < c.instructions.size(); ++k) {
      hlo::Instruction& i = c.instructions[k];
      i.name = TextSpans::view(owned, instruction_names[ci][k]);
      // A signature's parameter takes the name of the instruction parameter(N), as print_module prints it.
      if (i.opcode == hlo::Opcode::kParameter && i.parameter_number >= 0 &&
          static_cast<std::uint64_t>(i.parameter_number) < c.signature.size())
        c.signature[static_cast<std::size_t>(i.parameter_number)].name = i.name;
    }
  }
}

}  // namespace hlo_index::parser

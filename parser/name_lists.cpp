#include "parser/name_lists.hpp"

#include <fmt/format.h>

#include <utility>

#include "parser/attributes.hpp"
#include "parser/scanners.hpp"

namespace hlo_index::parser {

NameListRenamer::NameListRenamer(const hlo::Module& module, Renaming renaming)
    : m_module(module), m_renaming(std::move(renaming)) {}

void NameListRenamer::visit_attributes(
    std::uint32_t ci, const hlo::Instruction& i,
    const std::function<void(const hlo::Attribute&, const std::string* renamed)>& visit) {
  const hlo::Computation& c = m_module.computations[ci];
  const auto callees = c.callees_of(i);
  std::size_t next_callee = 0;
  for (const hlo::Attribute& a : c.attributes_of(i)) {
    const bool calls = m_renaming && is_computation_attribute(a.name);
    bool names = (calls || (m_renaming && a.name == "control-predecessors")) &&
                 parse_computation_list(a.value, m_names, nullptr);
    // Every list of calls counts, also one the caller drops, to keep the later ones in step.
    const std::size_t first_callee = next_callee;
    if (names && calls) {
      names = next_callee + m_names.size() <= callees.size();  // always, in a module that parsed
      next_callee += m_names.size();
    }
    if (!names) {
      visit(a, nullptr);
      continue;
    }
    const char* first = scan::skip_blank(a.value.data(), a.value.data() + a.value.size());
    const bool braced = first != a.value.data() + a.value.size() && *first == '{';
    m_renamed.clear();
    if (braced) m_renamed += '{';
    for (std::size_t k = 0; k < m_names.size(); ++k) {
      std::string_view name = m_names[k];
      if (calls) {
        const std::uint32_t callee = callees[first_callee + k];
        if (callee != hlo::k_none) name = m_renaming(callee, hlo::k_none);
      } else {
        const std::uint32_t id = instruction_index(ci, name);
        if (id != hlo::k_none) name = m_renaming(ci, id);
      }
      fmt::format_to(std::back_inserter(m_renamed), "{}%{}", k ? ", " : "", name);
    }
    if (braced) m_renamed += '}';
    visit(a, &m_renamed);
  }
}

std::uint32_t NameListRenamer::instruction_index(std::uint32_t ci, std::string_view name) {
  if (m_index_of != ci) {
    m_index_of = ci;
    m_index.clear();
    const auto& instructions = m_module.computations[ci].instructions;
    for (std::uint32_t k = 0; k < instructions.size(); ++k) m_index.emplace(instructions[k].name, k);
  }
  auto it = m_index.find(name);
  return it == m_index.end() ? hlo::k_none : it->second;
}

}  // namespace hlo_index::parser

#include "indexing/analysis/instruction_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace hlo_index::analysis {

namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::optional<NamePattern> NamePattern::compile(const std::string& pattern, std::string* error) {
  try {
    return NamePattern(pattern, std::regex(pattern, std::regex::ECMAScript | std::regex::optimize));
  } catch (const std::regex_error& e) {
    if (error) *error = e.what();
    return std::nullopt;
  }
}

bool NamePattern::matches(std::string_view name) const { return std::regex_search(name.begin(), name.end(), m_regex); }

bool InstructionFilter::accepts_module(const hlo::Module& module) const { return listed(modules, module.name); }

bool InstructionFilter::accepts_computation(const hlo::Computation& computation) const {
  return listed(computations, computation.name);
}

bool InstructionFilter::accepts_instruction(const hlo::Module& module, const hlo::Computation& computation,
                                            const hlo::Instruction& instruction) const {
  if (!listed(opcodes, module.opcode_text(instruction))) return false;
  if (!kinds.empty()) {
    const std::optional<std::string_view> kind = computation.attribute(instruction, "kind");
    if (instruction.opcode != hlo::Opcode::kFusion || !kind || !listed(kinds, *kind)) return false;
  }
  return !match || match->matches(instruction.name);
}

std::optional<InstructionFilter> module_and_match_filter(std::vector<std::string> modules, const std::string& match,
                                                         std::ostream& err) {
  InstructionFilter filter;
  filter.modules = std::move(modules);
  if (match.empty()) return filter;
  std::string error;
  filter.match = NamePattern::compile(match, &error);
  if (filter.match) return filter;
  err << fmt::format("hlo-index: error: --match '{}' is not a regular expression (ECMAScript): {}\n", match, error);
  return std::nullopt;
}

bool check_module_names(const InstructionFilter& filter, const std::vector<hlo::Module>& modules, std::ostream& err) {
  std::vector<std::string_view> names;
  for (const hlo::Module& m : modules) names.push_back(m.name);
  bool ok = true;
  for (const std::string& name : filter.modules) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    err << fmt::format("hlo-index: error: no module named '{}' (modules: {})\n", name, fmt::join(names, ", "));
    ok = false;
  }
  return ok;
}

std::string without_sigil(std::string name) {
  if (!name.empty() && name.front() == '%') name.erase(0, 1);
  return name;
}

}  // namespace hlo_index::analysis

#include "indexing/analysis/instruction_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>
#include <span>

#include "indexing/analysis/computation_walk.hpp"

namespace hlo_index::analysis {

namespace {

bool listed(const std::vector<std::string>& names, std::string_view name) {
  return names.empty() || std::any_of(names.begin(), names.end(),
                                      [&](const std::string& pattern) { return name_matches(pattern, name); });
}

// Matches `c` against the set that starts after the `[` at `p`; returns the
// position after the closing `]` (npos: no closing `]`, the `[` is literal).
std::size_t match_set(std::string_view pattern, std::size_t p, char c, bool& matched) {
  std::size_t i = p + 1;
  const bool negated = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negated) ++i;
  bool in = false;
  bool first = true;
  for (; i < pattern.size() && (pattern[i] != ']' || first); first = false) {
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      in = in || (pattern[i] <= c && c <= pattern[i + 2]);
      i += 3;
    } else {
      in = in || pattern[i] == c;
      ++i;
    }
  }
  if (i >= pattern.size()) return std::string_view::npos;
  matched = in != negated;
  return i + 1;
}

bool glob_matches(std::string_view pattern, std::string_view name) {
  // Greedy with one backtrack point (the last `*`): linear in practice,
  // O(pattern x name) at worst, never exponential.
  std::size_t p = 0, n = 0;
  std::size_t star = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_n = n;
      continue;
    }
    if (p < pattern.size()) {
      if (pattern[p] == '?') {
        ++p;
        ++n;
        continue;
      }
      if (pattern[p] == '[') {
        bool matched = false;
        const std::size_t after = match_set(pattern, p, name[n], matched);
        if (after == std::string_view::npos ? name[n] == '[' : matched) {
          p = after == std::string_view::npos ? p + 1 : after;
          ++n;
          continue;
        }
      } else if (pattern[p] == name[n]) {
        ++p;
        ++n;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star + 1;
    n = ++star_n;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace

bool name_matches(std::string_view pattern, std::string_view name) {
  if (pattern.find_first_of("*?[") == std::string_view::npos) return pattern == name;
  return glob_matches(pattern, name);
}

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
  names.reserve(modules.size());
  for (const hlo::Module& m : modules) names.push_back(m.name);
  bool ok = true;
  for (const std::string& name : filter.modules) {
    if (std::any_of(names.begin(), names.end(), [&](std::string_view n) { return name_matches(name, n); })) continue;
    err << fmt::format("hlo-index: error: no module named '{}' (modules: {})\n", name, fmt::join(names, ", "));
    ok = false;
  }
  return ok;
}

namespace {

// Whether every value of the computation is a scalar (a reducer's, a comparator's).
bool all_scalar(const hlo::Module& module, const hlo::Computation& c) {
  return std::all_of(c.instructions.begin(), c.instructions.end(), [&](const hlo::Instruction& i) {
    const hlo::Shape& shape = module.shape_of(i);
    return !shape.is_tuple && shape.rank() == 0;
  });
}

// The computations an attribute value names: `%add`, `add`, or a list `{%a, %b}`.
// The computations an attribute's value names, looked up among the instruction's resolved
// callees first (a search of every computation by name, per instruction, was a quadratic part
// of summary on modules of thousands of computations).
std::vector<std::uint32_t> named_computations(const hlo::Module& module, std::string_view value,
                                              std::span<const std::uint32_t> callees) {
  std::vector<std::uint32_t> out;
  std::size_t at = 0;
  while (at < value.size()) {
    const std::size_t start = value.find_first_not_of("{}, %", at);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(value.find_first_of("{}, ", start), value.size());
    const std::string_view name = value.substr(start, end - start);
    const auto known = std::find_if(callees.begin(), callees.end(), [&](std::uint32_t c) {
      return c < module.computations.size() && module.computations[c].name == name;
    });
    const std::uint32_t callee = known != callees.end() ? *known : module.find_computation(name);
    if (callee != hlo::k_none) out.push_back(callee);
    at = end;
  }
  return out;
}

}  // namespace

std::vector<bool> scalar_computations(const hlo::Module& module) {
  const std::size_t n = module.computations.size();
  std::vector<std::size_t> scalar_references(n, 0), other_references(n, 0);
  for (const hlo::Computation& c : module.computations) {
    for (const hlo::Instruction& i : c.instructions) {
      std::vector<std::uint32_t> applied;
      if (i.opcode != hlo::Opcode::kCall) {
        for (const hlo::Attribute& a : c.attributes_of(i)) {
          const bool applies =
              a.name == "to_apply" || a.name == "comparator" || a.name == "select" || a.name == "scatter";
          // A custom call's computations may be anything; all-scalar ones are its comparators (TopK).
          const bool custom = i.opcode == hlo::Opcode::kCustomCall && a.name == "called_computations";
          if (!applies && !custom) continue;
          for (std::uint32_t callee : named_computations(module, a.value, c.callees_of(i))) {
            if (callee < n && (applies || all_scalar(module, module.computations[callee]))) applied.push_back(callee);
          }
        }
      }
      for (std::uint32_t callee : applied) ++scalar_references[callee];
      for (std::uint32_t callee : c.callees_of(i)) {
        if (callee < n && std::find(applied.begin(), applied.end(), callee) == applied.end())
          ++other_references[callee];
      }
    }
  }
  // A computation nothing calls (dumps keep dead reducers) is scalar when all its values are.
  std::vector<bool> scalar(n, false);
  for (std::size_t ci = 0; ci < n; ++ci) {
    if (ci == module.entry || other_references[ci] != 0) continue;
    scalar[ci] = scalar_references[ci] > 0 || all_scalar(module, module.computations[ci]);
  }
  return scalar;
}

std::string without_sigil(std::string name) {
  if (!name.empty() && name.front() == '%') name.erase(0, 1);
  return name;
}

std::vector<FoundInstruction> find_instructions(const std::vector<hlo::Module>& modules,
                                                const InstructionFilter& filter, const std::string& name) {
  std::vector<FoundInstruction> out;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    const hlo::Module& module = modules[m];
    if (!filter.accepts_module(module)) continue;
    std::vector<std::uint32_t> computations = analysed_computations(module);
    if (!name.empty()) {
      const std::vector<bool> fused = fusion_bodies(module);
      for (std::uint32_t ci : cut_off_computations(module))
        if (!fused[ci]) computations.push_back(ci);
      std::sort(computations.begin(), computations.end());
    }
    for (std::uint32_t ci : computations) {
      const hlo::Computation& c = module.computations[ci];
      for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
        const hlo::Instruction& i = c.instructions[ii];
        if (!name.empty() && i.name != name) continue;
        if (!filter.accepts_instruction(module, c, i)) continue;
        out.push_back({m, ci, ii});
      }
    }
  }
  return out;
}

namespace {

// Why a name found nowhere a command looks is not there: it is in a computation
// analysed through its caller, or not in the input at all.
std::string not_found_hint(const std::vector<hlo::Module>& modules, const std::string& name) {
  for (const hlo::Module& module : modules) {
    for (const hlo::Computation& c : module.computations) {
      for (const hlo::Instruction& i : c.instructions) {
        if (i.name == name)
          return fmt::format(
              "; '{}' is in computation {}, which is analysed through the instruction that calls it (a fusion "
              "body, a reducer): name that instruction",
              name, c.name);
      }
    }
  }
  return "; `hlo-index summary FILE --all-instructions` lists the names";
}

std::string instruction_list(const std::vector<hlo::Module>& modules, const std::vector<FoundInstruction>& found) {
  std::vector<std::string> names;
  for (std::size_t k = 0; k < found.size() && k < 5; ++k) {
    const hlo::Module& m = modules[found[k].module];
    const hlo::Computation& c = m.computations[found[k].computation];
    names.push_back(
        fmt::format("%{} (module {}, computation {})", c.instructions[found[k].instruction].name, m.name, c.name));
  }
  if (found.size() > 5) names.push_back(fmt::format("{} more", found.size() - 5));
  return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

OneInstruction find_one_instruction(const std::vector<hlo::Module>& modules, const InstructionFilter& filter,
                                    const std::string& name, const std::string& asked) {
  const std::vector<FoundInstruction> found = find_instructions(modules, filter, name);
  if (found.empty()) {
    return {std::nullopt, fmt::format("no instruction {}{}", name.empty() ? "matches " + asked : "named " + asked,
                                      name.empty() ? "" : not_found_hint(modules, name))};
  }
  if (found.size() > 1) {
    return {std::nullopt, fmt::format("{} instructions match {}: {}; narrow it with --module or an anchored --match",
                                      found.size(), asked, instruction_list(modules, found))};
  }
  return {found[0], {}};
}

}  // namespace hlo_index::analysis

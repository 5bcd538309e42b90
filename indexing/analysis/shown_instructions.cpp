#include "indexing/analysis/shown_instructions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <string_view>

#include "indexing/analysis/computation_walk.hpp"

namespace hlo_index::analysis {

namespace {

// Whether one of `patterns` (names or globs) matches `name`.
bool named(const std::vector<std::string>& patterns, std::string_view name) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& pattern) { return name_matches(pattern, name); });
}

// Instructions without operands (parameters, constants, iotas) have no maps to show: left
// out unless --all-computations or named.
bool shown_by_name(const InstructionFilter& filter, const hlo::Computation& c, const hlo::Instruction& i) {
  if (!filter.instructions.empty()) return named(filter.instructions, i.name);
  return filter.all_computations || !c.operands_of(i).empty();
}

// Where an instruction that is not shown lives: the fusions whose bodies hold it (it is
// analysed through them), e.g. "%fusion.3 in computation main".
std::vector<std::string> fusions_containing(const hlo::Module& module, std::string_view name) {
  std::vector<std::string> out;
  for (const hlo::Computation& c : module.computations) {
    for (const hlo::Instruction& i : c.instructions) {
      if (i.opcode != hlo::Opcode::kFusion) continue;
      for (std::uint32_t callee : c.callees_of(i)) {
        if (callee >= module.computations.size()) continue;
        const hlo::Computation& body = module.computations[callee];
        if (std::any_of(body.instructions.begin(), body.instructions.end(),
                        [&](const hlo::Instruction& b) { return name_matches(name, b.name); }))
          out.push_back(fmt::format("%{} in computation {}", i.name, c.name));
      }
    }
  }
  return out;
}

// Up to 5 names of instructions of shown computations that contain `name` or that `name`
// contains (a typo in the suffix, a sigil too many), shortest first.
std::vector<std::string> similar_names(const std::vector<hlo::Module>& modules, const InstructionFilter& filter,
                                       std::string_view name) {
  std::vector<std::string> out;
  if (name.empty()) return out;
  for (const hlo::Module& m : modules) {
    for (std::uint32_t ci : shown_computations(m, filter)) {
      for (const hlo::Instruction& i : m.computations[ci].instructions) {
        const bool near = i.name.find(name) != std::string_view::npos ||
                          (i.name.size() >= 3 && name.find(i.name) != std::string_view::npos);
        if (near && std::find(out.begin(), out.end(), i.name) == out.end()) out.emplace_back(i.name);
      }
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
  if (out.size() > 5) out.resize(5);
  return out;
}

// The error for an instruction name found in no shown computation.
std::string missing_instruction(const std::vector<hlo::Module>& modules, const InstructionFilter& filter,
                                const std::string& name, const std::vector<std::string>& fusions) {
  std::string elsewhere;  // a computation left out by default that holds it
  for (const hlo::Module& m : modules) {
    for (const hlo::Computation& c : m.computations) {
      for (const hlo::Instruction& i : c.instructions) {
        if (elsewhere.empty() && name_matches(name, i.name)) elsewhere = std::string(c.name);
      }
    }
  }
  if (fusions.empty() && !elsewhere.empty())
    return fmt::format(
        "'{}' is in computation {}, a scalar computation that ops apply (to_apply=, comparator=), which analyze "
        "leaves out by default: add --all-computations or --computation {}",
        name, elsewhere, elsewhere);
  if (fusions.empty()) {
    const std::vector<std::string> near = similar_names(modules, filter, name);
    return fmt::format("no instruction named '{}'{}", name,
                       near.empty() ? "" : fmt::format(" (did you mean {}?)", fmt::join(near, ", ")));
  }
  return fmt::format(
      "'{}' is inside the body of fusion {}; it is analysed through the fusion: --instruction {} (or "
      "--computation with the fused computation's name to analyse the body on its own)",
      name, fmt::join(fusions, ", "), fusions[0].substr(1, fusions[0].find(' ') - 1));
}

}  // namespace

std::vector<std::uint32_t> shown_computations(const hlo::Module& module, const InstructionFilter& filter) {
  if (filter.computations.empty()) {
    std::vector<std::uint32_t> out = analysed_computations(module);
    if (filter.all_computations) return out;
    const std::vector<bool> scalar = scalar_computations(module);
    std::erase_if(out, [&](std::uint32_t ci) { return scalar[ci]; });
    return out;
  }
  std::vector<std::uint32_t> out;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    if (named(filter.computations, module.computations[ci].name)) out.push_back(ci);
  }
  return out;
}

bool shows_instruction(const InstructionFilter& filter, const hlo::Module& module, const hlo::Computation& c,
                       const hlo::Instruction& i) {
  return shown_by_name(filter, c, i) && filter.accepts_instruction(module, c, i);
}

std::vector<FoundInstruction> shown_instructions(const std::vector<hlo::Module>& modules,
                                                 const InstructionFilter& filter) {
  std::vector<FoundInstruction> out;
  for (std::size_t k = 0; k < modules.size(); ++k) {
    const hlo::Module& module = modules[k];
    if (!filter.accepts_module(module)) continue;
    for (std::uint32_t ci : shown_computations(module, filter)) {
      const hlo::Computation& c = module.computations[ci];
      for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
        if (shows_instruction(filter, module, c, c.instructions[ii])) out.push_back({k, ci, ii});
      }
    }
  }
  return out;
}

bool check_shown_names(const InstructionFilter& filter, const std::vector<hlo::Module>& modules, std::ostream& err) {
  bool ok = true;
  for (const std::string& name : filter.computations) {
    const bool found = std::any_of(modules.begin(), modules.end(), [&](const hlo::Module& m) {
      return std::any_of(m.computations.begin(), m.computations.end(),
                         [&](const hlo::Computation& c) { return name_matches(name, c.name); });
    });
    if (!found) {
      err << fmt::format("hlo-index: error: no computation named '{}'\n", name);
      ok = false;
    }
  }
  if (!ok) return false;  // instructions are looked for in the computations named
  for (const std::string& name : filter.instructions) {
    bool shown = false;
    std::vector<std::string> fusions;
    for (const hlo::Module& m : modules) {
      for (std::uint32_t ci : shown_computations(m, filter)) {
        for (const hlo::Instruction& i : m.computations[ci].instructions) shown = shown || name_matches(name, i.name);
      }
      if (!shown) {
        for (std::string& f : fusions_containing(m, name)) fusions.push_back(std::move(f));
      }
    }
    if (shown) continue;
    ok = false;
    err << "hlo-index: error: " << missing_instruction(modules, filter, name, fusions) << "\n";
  }
  return ok;
}

std::size_t most_operands_shown(const std::vector<hlo::Module>& modules, const InstructionFilter& filter) {
  std::size_t most = 0;
  for (const hlo::Module& module : modules) {
    for (std::uint32_t ci : shown_computations(module, filter)) {
      const hlo::Computation& c = module.computations[ci];
      for (const hlo::Instruction& i : c.instructions) {
        if (shown_by_name(filter, c, i)) most = std::max(most, c.operands_of(i).size());
      }
    }
  }
  return most;
}

}  // namespace hlo_index::analysis

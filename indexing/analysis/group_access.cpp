#include "indexing/analysis/group_access.hpp"

#include <algorithm>
#include <map>

#include "indexing/analysis/access_verdict.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

namespace {

// Worse first: the verdict's rank, then the smaller share of bytes used.
bool worse(const Coalescing& a, const Coalescing& b) {
  const AccessVerdict va = access_verdict(a), vb = access_verdict(b);
  if (va.rank != vb.rank) return va.rank > vb.rank;
  return va.used_fraction < vb.used_fraction;
}

void touch_units(GroupAccess& access) {
  const std::int64_t bits = access.setup.operand_bits, unit_bits = access.setup.unit_bits;
  const std::int64_t slots = std::max<std::int64_t>(1, unit_bits / std::max<std::int64_t>(1, bits));
  std::map<std::int64_t, UnitTouched> units;
  std::vector<std::int64_t> distinct;
  for (std::size_t t = 0; t < access.reads.threads.size(); ++t) {
    for (std::int64_t offset : access.reads.threads[t]) {
      const std::int64_t index = offset * bits / unit_bits;
      auto [it, added] = units.try_emplace(index);
      UnitTouched& u = it->second;
      if (added) {
        u.unit = index;
        u.slot_reads.assign(slots, 0);
        u.first_thread.assign(slots, -1);
        u.last_thread.assign(slots, -1);
      }
      const auto slot = static_cast<std::size_t>((offset * bits % unit_bits) / bits % slots);
      ++u.slot_reads[slot];
      const auto thread = static_cast<std::int64_t>(t);
      if (u.first_thread[slot] < 0) u.first_thread[slot] = thread;
      u.last_thread[slot] = thread;
      distinct.push_back(offset);
      ++access.reads_total;
    }
  }
  std::sort(distinct.begin(), distinct.end());
  access.distinct_elements = std::unique(distinct.begin(), distinct.end()) - distinct.begin();
  for (auto& [unit, touched] : units) access.units.push_back(std::move(touched));
}

}  // namespace

GroupAccess group_access(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                         std::size_t operand) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  GroupAccess access;
  access.target = analysis.patterns().target(module);
  access.model = access_model(access.target, module, c, instr);
  const auto operands = c.operands_of(instr);
  if (operand >= operands.size()) {
    access.reason = "no such operand";
    return access;
  }
  const hlo::Shape& operand_shape = module.shape_of(c.instructions[operands[operand]]);
  const hlo::Shape& shape = module.shape_of(instr);
  const indexing::InstructionIndexing logical = analysis.indexing(computation, instruction, true, false);
  PhysicalIndexing& offsets = analysis.offsets();
  std::optional<indexing::IndexingMap> worst;
  const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(shape);
  for (std::size_t k = 0; k < logical.output_to_input.size() && k < leaves.size(); ++k) {
    if (operand >= logical.output_to_input[k].size()) continue;
    const hlo::Shape& out = *leaves[k];
    const layout::PhysicalLayout* out_layout = offsets.layout(out);
    if (out_layout == nullptr || offsets.layout(operand_shape) == nullptr) {
      access.reason = "the output or the operand has no layout to read through";
      continue;
    }
    const AccessSetup setup = operand_access(access.model, *out_layout, operand_shape);
    const indexing::MapSet physical = offsets.convert(logical.output_to_input[k][operand], out, operand_shape);
    for (std::size_t m = 0; m < physical.size(); ++m) {
      if (physical[m].is_known_empty()) continue;
      const Coalescing& verdict = analysis.patterns().of(physical[m], setup);
      if (worst && !worse(verdict, access.verdict)) continue;
      worst = physical[m];
      access.verdict = verdict;
      access.setup = setup;
      access.output = k;
      access.map = m;
      access.maps = physical.size();
    }
  }
  if (!worst) {
    if (access.reason.empty()) access.reason = "the instruction does not read the operand";
    return access;
  }
  access.reason.clear();
  access.reads = group_reads({*worst}, access.setup, 0);
  if (!access.reads.reason.empty()) access.reason = access.reads.reason;
  touch_units(access);
  return access;
}

}  // namespace hlo_index::analysis

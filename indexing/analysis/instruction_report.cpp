#include "indexing/analysis/instruction_report.hpp"

#include <algorithm>
#include <optional>

#include "indexing/analysis/fused_reads.hpp"
#include "indexing/ops/op_maps.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

namespace {

using indexing::IndexingMap;
using indexing::InstructionIndexing;
using indexing::MapSet;

// Between the map ids of two sets in a key of counts: no map has this id.
constexpr std::uint32_t k_set_end = UINT32_MAX;

// Moves the maps and read patterns into per-output operand lists, leaving
// out the operands not asked for and, for each output of a tuple-shaped
// instruction, the operands it does not read.
void arrange(InstructionIndexing indexing, ReadPatternTable patterns, bool tuple, const ReportRequest& request,
             InstructionReport& report) {
  report.output_to_input = !indexing.output_to_input.empty();
  report.input_to_output = !indexing.input_to_output.empty();
  const std::size_t outputs = std::max(indexing.output_to_input.size(), indexing.input_to_output.size());
  report.outputs.resize(outputs);
  std::vector<std::size_t> shown;
  for (std::size_t k = 0; k < outputs; ++k) {
    // A tuple's output shows the operands it reads (one of thousands in a wide tuple), any other
    // instruction's every operand.
    shown.clear();
    if (tuple) {
      for (const auto* rows : {&indexing.output_to_input, &indexing.input_to_output})
        if (k < rows->size())
          for (const auto& [j, maps] : (*rows)[k].stored())
            if (!maps.empty()) shown.push_back(j);
      std::sort(shown.begin(), shown.end());
      shown.erase(std::unique(shown.begin(), shown.end()), shown.end());
    } else {
      for (std::size_t j = 0; j < report.operand_names.size(); ++j) shown.push_back(j);
    }
    for (const std::size_t j : shown) {
      if (j >= report.operand_names.size() || (request.operand && *request.operand != j)) continue;
      OperandReport op{j, {}, {}, {}};
      if (report.output_to_input) op.output_to_input = indexing.output_to_input[k].take(j);
      if (report.input_to_output && j < indexing.input_to_output[k].size())
        op.input_to_output = indexing.input_to_output[k].take(j);
      if (k < patterns.size()) {
        const auto it = patterns[k].find(j);
        if (it != patterns[k].end()) op.read_patterns = std::move(it->second);
      }
      report.outputs[k].operands.push_back(std::move(op));
    }
  }
}

// The maps of the operands marked, the others left without maps (counting is the expensive part).
InstructionIndexing only_operands(const InstructionIndexing& indexing, const std::vector<bool>& kept) {
  InstructionIndexing out;
  out.output_to_input.resize(indexing.output_to_input.size());
  for (std::size_t k = 0; k < indexing.output_to_input.size(); ++k) {
    const auto& row = indexing.output_to_input[k];
    out.output_to_input[k].resize(row.size());
    for (const auto& [j, maps] : row.stored())
      if (j < kept.size() && kept[j]) out.output_to_input[k].set(j, maps);
  }
  return out;
}

void count(const MapSet& set, MapTotals& totals) {
  for (const IndexingMap& m : set) {
    ++totals.maps;
    if (m.is_undefined()) ++totals.undefined;
    if (m.approximate()) ++totals.approximate;
  }
}

}  // namespace

bool counted_through_body(const hlo::Module& module, const hlo::Instruction& instruction) {
  return instruction.opcode == hlo::Opcode::kFusion && module.shape_of(instruction).is_tuple;
}

InstructionUtilisation instruction_utilisation(ModuleAnalysis& analysis, std::uint32_t computation,
                                               std::uint32_t instruction, const InstructionIndexing& indexing) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  if (counted_through_body(module, instr)) {
    // Memoised per instruction (its body's shared loop is its own) and maps.
    std::vector<std::uint32_t> key{computation, instruction};
    for (const auto& per_output : indexing.output_to_input) {
      for (const MapSet& set : per_output) {
        key.push_back(k_set_end);
        for (const IndexingMap& m : set) key.push_back(analysis.interned_maps().intern(m));
      }
    }
    auto& memo = analysis.body_counts();
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    InstructionUtilisation counted =
        utilisation(module, c, instr, indexing, analysis.fused_uses(computation, instruction).get());
    memo.emplace(std::move(key), counted);
    return counted;
  }
  // Each operand is counted once per distinct (operand shape, maps) over the module.
  auto& memo = analysis.operand_counts();
  const auto operands = c.operands_of(instr);
  std::vector<std::vector<std::uint32_t>> keys(operands.size());
  std::vector<bool> missing(operands.size());
  bool any_missing = false;
  for (std::size_t j = 0; j < operands.size(); ++j) {
    keys[j].push_back(c.instructions[operands[j]].shape);
    // A tuple operand is counted only by ops whose maps name its leaves (utilisation.hpp).
    if (module.shape_of(c.instructions[operands[j]]).is_tuple)
      keys[j].push_back(indexing::reads_tuple_leaves_by_result(instr.opcode) ? 1 : 0);
    for (const auto& per_output : indexing.output_to_input) {
      if (j >= per_output.size()) continue;
      for (const IndexingMap& m : per_output[j]) keys[j].push_back(analysis.interned_maps().intern(m));
    }
    missing[j] = memo.find(keys[j]) == memo.end();
    any_missing = any_missing || missing[j];
  }
  // Every operand missing (the usual case): the maps as they are, without a copy.
  const bool all_missing = any_missing && std::all_of(missing.begin(), missing.end(), [](bool m) { return m; });
  InstructionUtilisation counted = all_missing   ? utilisation(module, c, instr, indexing)
                                   : any_missing ? utilisation(module, c, instr, only_operands(indexing, missing))
                                                 : utilisation(module, c, instr, InstructionIndexing{});
  for (std::size_t j = 0; j < operands.size(); ++j) {
    if (missing[j]) {
      memo.emplace(keys[j], counted.operands[j]);
    } else {
      counted.operands[j] = memo.at(keys[j]);
      counted.operands[j].operand = j;
      for (OperandUtilisation& leaf : counted.operands[j].leaves) leaf.operand = j;
    }
  }
  return counted;
}

InstructionReport report_instruction(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                                     const ReportRequest& request) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  InstructionReport report;
  report.computation = computation;
  report.instruction = instruction;
  for (std::uint32_t operand : c.operands_of(instr)) report.operand_names.emplace_back(c.instructions[operand].name);
  // Utilisation and read patterns both need the output -> operand maps.
  const bool counts = request.utilisation || request.read_patterns;
  InstructionIndexing indexing =
      analysis.indexing(computation, instruction, request.output_to_input || counts, request.input_to_output);
  if (request.utilisation) report.utilisation = instruction_utilisation(analysis, computation, instruction, indexing);
  ReadPatternTable patterns;
  if (request.read_patterns)
    patterns = read_patterns(module, c, instr, indexing, analysis.offsets(), analysis.patterns());
  if (!request.output_to_input) indexing.output_to_input.clear();
  if (request.physical) indexing = analysis.physical().apply(c, instr, std::move(indexing));
  const hlo::Shape& shape = module.shape_of(instr);
  arrange(std::move(indexing), std::move(patterns), shape.is_tuple, request, report);
  if (hlo_index::indexing::has_nested_tuple(shape)) {
    for (std::size_t k = 0; k < report.outputs.size(); ++k)
      report.outputs[k].shape_index = hlo_index::indexing::leaf_path(shape, k);
  }
  return report;
}

void MapTotals::add(const InstructionReport& report) {
  ++instructions;
  for (const OutputReport& output : report.outputs) {
    for (const OperandReport& op : output.operands) {
      count(op.output_to_input, *this);
      count(op.input_to_output, *this);
    }
  }
}

}  // namespace hlo_index::analysis

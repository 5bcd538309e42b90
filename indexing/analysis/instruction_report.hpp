// What `hlo-index analyze` reports about one instruction, ready for a
// renderer: per output the operands shown with their maps (logical or in
// physical offsets) and read patterns, and the operands' utilisation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "indexing/analysis/module_analysis.hpp"

namespace hlo_index::analysis {

struct ReportRequest {
  bool output_to_input = true;
  bool input_to_output = false;
  std::optional<std::size_t> operand;  // only this operand
  bool physical = false;               // maps between element offsets of the buffers
  bool utilisation = false;
  bool read_patterns = false;
};

struct OperandReport {
  std::size_t operand = 0;
  indexing::MapSet output_to_input;       // empty: not read, or the direction is not reported
  indexing::MapSet input_to_output;       // likewise
  std::vector<Coalescing> read_patterns;  // one per output -> operand map; empty: none
};

struct OutputReport {
  std::vector<OperandReport> operands;  // those shown, in order
  /// Where the output is in a tuple whose elements include tuples (its leaf's
  /// shape index, tuple_leaves.hpp); empty for other outputs, whose number says it.
  std::vector<std::size_t> shape_index;
};

struct InstructionReport {
  std::uint32_t computation = 0, instruction = 0;
  bool output_to_input = false, input_to_output = false;  // the directions reported
  std::vector<std::string> operand_names;                 // every operand's
  std::vector<OutputReport> outputs;
  std::optional<InstructionUtilisation> utilisation;
};

/// Whether the instruction's reads are counted by its fused body's shared-loop
/// model (a fusion with several outputs, fused_reads.hpp) rather than per map.
bool counted_through_body(const hlo::Module& module, const hlo::Instruction& instruction);

/// The utilisation analyze reports (`indexing` holds the output -> operand
/// maps): a fusion with several outputs by its body's shared-loop model.
InstructionUtilisation instruction_utilisation(ModuleAnalysis& analysis, std::uint32_t computation,
                                               std::uint32_t instruction,
                                               const indexing::InstructionIndexing& indexing);

InstructionReport report_instruction(ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                                     const ReportRequest& request);

/// Maps reported, over instructions.
struct MapTotals {
  std::size_t instructions = 0, maps = 0, undefined = 0, approximate = 0;
  void add(const InstructionReport& report);
};

}  // namespace hlo_index::analysis

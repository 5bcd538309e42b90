#include "app/picture_command.hpp"

#include <fmt/format.h>
#include <algorithm>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/picture_svg.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/group_access.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/source_position.hpp"

namespace hlo_index::app {

namespace {

using Found = analysis::FoundInstruction;
using analysis::find_instructions;

// Where a name that is not analysed on its own lives (a fusion body, a reducer).
std::optional<analysis::SliceChoice> slice_choice(const std::string& text) {
  if (text == "auto") return analysis::SliceChoice::kAuto;
  if (text == "grid") return analysis::SliceChoice::kGrid;
  if (text == "project") return analysis::SliceChoice::kProject;
  return std::nullopt;
}

// The operand to draw, or an error on `err`.
std::optional<std::size_t> chosen_operand(analysis::ModuleAnalysis& analysis, const Found& f,
                                          const PictureOptions& options, std::ostream& err) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[f.computation];
  const hlo::Instruction& instr = c.instructions[f.instruction];
  const auto operands = c.operands_of(instr);
  if (operands.empty()) {
    err << fmt::format(
        "hlo-index: error: %{} has no operands (a parameter, constant or iota): it reads nothing to draw; name an "
        "instruction that reads it\n",
        instr.name);
    return std::nullopt;
  }
  std::size_t operand = 0;
  if (options.operand) {
    operand = *options.operand;
    if (operand >= operands.size()) {
      err << fmt::format("hlo-index: error: --operand {} is out of range: %{} has {} operand{} (0 to {})\n", operand,
                         instr.name, operands.size(), operands.size() == 1 ? "" : "s", operands.size() - 1);
      return std::nullopt;
    }
  } else {
    operand = analysis::heaviest_operand(analysis, f.computation, f.instruction).value_or(0);
  }
  const hlo::Shape& shape = module.shape_of(c.instructions[operands[operand]]);
  if (shape.is_tuple || !shape.element_count()) {
    err << fmt::format(
        "hlo-index: error: operand {} %{} of %{} is {}: a picture is of one array of known size; choose another "
        "--operand\n",
        operand, c.instructions[operands[operand]].name, instr.name, shape.is_tuple ? "a tuple" : "of unbounded size");
    return std::nullopt;
  }
  return operand;
}

}  // namespace

bool write_output(const std::string& path, const std::string& text, std::ostream& out, std::ostream& err) {
  if (path == "-") {
    out << text;
    return true;
  }
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    err << fmt::format("hlo-index: error: cannot write '{}': {}; choose another -o path\n", path, std::strerror(errno));
    return false;
  }
  file << text;
  file.flush();
  if (!file) {
    err << fmt::format("hlo-index: error: writing '{}' failed\n", path);
    return false;
  }
  return true;
}

Picture draw_operand(analysis::ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                     std::size_t operand, const analysis::HeatmapOptions& options, analysis::ReadHeatmapMemo* memo,
                     const std::string& id_prefix) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const hlo::Instruction& read = c.instructions[c.operands_of(instr)[operand]];
  const hlo::Shape& shape = module.shape_of(read);
  PictureSubject subject;
  subject.file = module.source ? module.source->name() : std::string();
  subject.line = analysis::source_position(module, instr).line;
  subject.module = std::string(module.name);
  subject.computation = std::string(c.name);
  subject.instruction = std::string(instr.name);
  const std::optional<std::string_view> kind = c.attribute(instr, "kind");
  subject.kind = instr.opcode == hlo::Opcode::kFusion && kind ? fmt::format("fusion {}", *kind)
                                                              : std::string(module.opcode_text(instr));
  subject.operand = operand;
  subject.operand_name = std::string(read.name);
  subject.operand_shape = hlo::to_string(shape);
  subject.id_prefix = id_prefix;
  std::vector<std::int64_t> dims(shape.dims.begin(), shape.dims.end());
  const indexing::MapSet maps = analysis::operand_read_maps(analysis, computation, instruction, operand);
  const analysis::ReadHeatmap heatmap =
      memo != nullptr ? memo->of(maps, dims, options) : analysis::read_heatmap(maps, dims, options);
  const analysis::GroupAccess access = analysis::group_access(analysis, computation, instruction, operand);
  return {picture_svg(subject, heatmap, access), picture_summary(subject, heatmap, access)};
}

constexpr const char* k_picture_help =
    "Draws, as SVG, which elements of one operand an instruction reads and how often, from the same exact\n"
    "maps and counts as analyze --utilisation:\n"
    "  heat map   one cell per element, coloured by its reads (a read: one output element reading it, per\n"
    "             map); an operand larger than --max-cells per side is binned, each cell the mean over the\n"
    "             elements it covers (the caption says how many). The last two dimensions are rows and\n"
    "             columns; leading dimensions give a grid of slices, or with more than 16 slices a projection\n"
    "             (reads summed over them); --slices grid|project chooses. Runtime offsets (dynamic-slice,\n"
    "             gather): the reads of one execution with every offset at its lowest feasible value, and\n"
    "             hatched cells that other values may read. Tooltips give each cell's exact figures.\n"
    "  access     one thread group of the target's access model (--target: a GPU warp of 32 threads under\n"
    "             XLA's emitter, a TPU output tile over the operand's tiles, 16 CPU outputs over 64-byte\n"
    "             lines) and the transfer units its reads touch, with the verdict summary and lint give.\n"
    "Without --operand, the array operand with the most bytes read (a scalar only when nothing else is\n"
    "read). -o - writes the SVG to standard output;\n"
    "otherwise a line about the picture goes to standard output. The bytes depend on the input only.\n"
    "Bad input (exit code 2): no such instruction (or one inside a fusion body: picture the\n"
    "fusion), --match selecting none or several, an --operand out of range or not an array, an output\n"
    "that cannot be written.\n\n"
    "Examples:\n"
    "  hlo-index picture model.hlo --instruction fusion.3 -o fusion.3.svg\n"
    "  hlo-index picture model.hlo --match '^transpose_fusion$' --operand 1 --target tpu -o t.svg";

void add_picture_options(CLI::App& cmd, PictureOptions& options) {
  cmd.add_option("files", options.files, "HLO text files ('-' reads standard input) or directories")->required();
  cmd.add_option("--instruction", options.instruction,
                 "The instruction to draw (of a computation that is not a fusion body: a fusion, or any op)");
  cmd.add_option("--match", options.match,
                 "Or: the one instruction whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--operand", options.operand,
                 "The operand to draw (default: the array operand with the most bytes read)")
      ->type_name("K");
  cmd.add_option("-o,--output", options.output, "The SVG file to write ('-': standard output)")
      ->type_name("OUT.svg")
      ->required();
  add_target_option(cmd, options.target, "whose access model the thread group follows");
  cmd.add_option("--slices", options.slices,
                 "Leading dimensions of an operand of rank > 2: auto (a grid up to 16 slices, else a projection), "
                 "grid (the first 16 slices), project (summed)")
      ->check(CLI::IsMember({"auto", "grid", "project"}))
      ->capture_default_str();
  cmd.add_option("--max-cells", options.max_cells, "Cells per side of a slice before binning")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{256}))
      ->capture_default_str();
  add_analysis_run_options(cmd, options, "; the heat map's counting has the same limit");
}

void setup_picture_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<PictureOptions>();
  CLI::App* cmd = app.add_subcommand("picture", "An SVG of which elements one instruction reads, and how");
  cmd->footer(k_picture_help);
  add_picture_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_picture_command(*options, std::cout, std::cerr); });
}

int run_picture_command(const PictureOptions& options, std::ostream& out, std::ostream& err) {
  const std::string name = analysis::without_sigil(options.instruction);
  if (name.empty() && options.match.empty()) {
    err << "hlo-index: error: picture needs --instruction NAME (or --match REGEX selecting one instruction)\n";
    return k_exit_input_error;
  }
  const std::optional<analysis::SliceChoice> slices = slice_choice(options.slices);
  if (!slices) {
    err << fmt::format("hlo-index: error: unknown --slices '{}' (auto, grid or project)\n", options.slices);
    return k_exit_input_error;
  }
  std::optional<analysis::InstructionFilter> filter =
      analysis::module_and_match_filter(options.modules, options.match, err);
  if (!filter) return k_exit_input_error;
  const std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(options.files, options.allow_truncated, *filter, err);
  if (!modules) return k_exit_input_error;
  const std::string asked = name.empty() ? fmt::format("--match '{}'", options.match) : fmt::format("'{}'", name);
  const analysis::OneInstruction one = analysis::find_one_instruction(*modules, *filter, name, asked);
  if (!one.found) {
    err << "hlo-index: error: " << one.error << "\n";
    return k_exit_input_error;
  }
  const Found& chosen = *one.found;
  ScopedAnalysisLimits limits(options.isl_max_operations, options.time_limit_per_instruction,
                              options.work_budget_per_instruction);
  indexing::AnalysisOptions analysis_options;
  analysis_options.time_limit_per_instruction = options.time_limit_per_instruction;
  analysis_options.work_budget_per_instruction = options.work_budget_per_instruction;
  analysis::ModuleAnalysis analysis((*modules)[chosen.module], analysis_options);
  analysis.patterns().set_target(analysis::parse_target(options.target));
  const std::optional<std::size_t> operand = chosen_operand(analysis, chosen, options, err);
  if (!operand) return k_exit_input_error;
  analysis::HeatmapOptions heat;
  heat.max_rows = heat.max_columns = options.max_cells;
  heat.slices = *slices;
  heat.time_limit_seconds = options.time_limit_per_instruction;
  const Picture picture = draw_operand(analysis, chosen.computation, chosen.instruction, *operand, heat);
  if (!write_output(options.output, picture.svg, out, err)) return k_exit_input_error;
  (options.output == "-" ? err : out) << fmt::format(
      "wrote {}: {}\n", options.output == "-" ? "stdout" : options.output, picture.summary);
  return k_exit_ok;
}

}  // namespace hlo_index::app

#include "app/analyze_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "app/analyze_render.hpp"
#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/golden_file.hpp"
#include "app/isl_limit.hpp"
#include "app/profile_option.hpp"
#include "app/progress.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/ordered_work.hpp"
#include "indexing/analysis/shown_instructions.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/cost/cost_model.hpp"
#include "parser/canonical_names.hpp"

namespace hlo_index::app {
namespace {

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace

constexpr const char* k_analyze_help =
    "For every instruction (by default of every computation that is not a fusion body, in program\n"
    "order) prints, per operand, the maps from the instruction's output to the operand elements it\n"
    "reads (out2in) and/or from operand elements to the output elements they feed (in2out), in\n"
    "XLA's text form. A fusion's maps are composed through its fused computation and simplified\n"
    "after every step; maps equal as integer relations are printed once. Runtime variables (rt)\n"
    "are offsets known only at run time, clamped as XLA clamps them; their source says which\n"
    "operand holds them. UNDEFINED means hlo-index has no maps for that op yet; it never stops\n"
    "the analysis. A map marked (approximate) is a superset of the exact relation; the mark\n"
    "says why, e.g. `(approximate: whole arrays, analysis took longer than the per-instruction\n"
    "limit of 5 s)`. With\n"
    "--xla-compat the maps are XLA's text and the mark goes on the header line instead:\n"
    "`output -> operand (approximate):`, or `(3 maps, approximate: 1, 3)` when only some maps of\n"
    "the set are (positions from 1). An all-gather's output -> operand map is followed by\n"
    "`replica id:`, a map from the same domain to the position, within the replica group, of the\n"
    "replica whose buffer holds the element.\n"
    "With --physical every map is restated in element offsets of the buffers, through each array's\n"
    "layout (tiles included; see `hlo-index layout`): output offset -> operand offset; padding slots\n"
    "are outside the domains.\n"
    "With --expect GOLDEN the output is compared with the file instead of printed: nothing is printed\n"
    "when they are equal (exit 0), else a unified diff (exit 1); --update rewrites the file. With\n"
    "--canonical-names, names are by stem and position (docs/commands/analyze.md), so goldens survive renumbering.\n"
    "By default the scalar computations that ops apply (reducers, comparators: to_apply=, comparator=) and\n"
    "instructions without operands (parameters, constants, iotas) are left out: they are analysed through\n"
    "the ops that use them. --all-computations shows them too.\n"
    "A summary line counts instructions, maps, undefined and approximate maps.\n\n"
    "Examples:\n"
    "  hlo-index analyze model.hlo\n"
    "  hlo-index analyze model.hlo --instruction fusion.3 --direction both --one-line\n"
    "  hlo-index analyze model.hlo --format json > maps.json\n"
    "  hlo-index analyze tpu.hlo --instruction fusion.3 --physical   # offsets in the tiled buffers\n"
    "  hlo-index analyze model.hlo --xla-compat     # XLA's own maps and simplification policy\n"
    "  hlo-index analyze model.hlo --canonical-names --expect model.golden   # exit 1 and a diff if it changed";

void setup_analyze_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand("analyze", "Indexing maps of every instruction, fusions composed through");
  cmd->footer(k_analyze_help);
  cmd->add_option("files", options->files,
                  "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files, at "
                  "any depth, in sorted order)")
      ->required();
  cmd->add_option("--computation", options->computations, "Only instructions of this computation (repeatable)");
  cmd->add_option("--instruction", options->instructions,
                  "Only this instruction (repeatable; an instruction of a fusion body is analysed through its fusion)");
  cmd->add_option("--module", options->modules, "Only this module (repeatable)");
  cmd->add_flag("--all-computations", options->all_computations,
                "Also the scalar computations that ops apply (reducers, comparators: to_apply=, comparator=) and "
                "the instructions without operands (parameters, constants, iotas), which are left out by default");
  cmd->add_option("--match", options->match,
                  "Only instructions whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  cmd->add_option("--direction", options->direction, "out2in, in2out or both")
      ->check(CLI::IsMember({"out2in", "in2out", "both"}));
  cmd->add_option("--operand", options->operand, "Only operand K of each instruction");
  cmd->add_flag("!--no-simplify", options->simplify, "Print maps as built and composed, without simplification");
  cmd->add_flag("--xla-compat", options->xla_compat,
                "Reproduce XLA's maps, simplification policy, runtime-variable sources and replica ids, for "
                "comparing with XLA's own output (XLA's over-approximations are then marked approximate on the "
                "header line; docs/commands/analyze.md says where it deliberately differs)");
  cmd->add_flag("--one-line", options->one_line, "Print each map on one line (XLA's one-line form)");
  cmd->add_flag("--utilisation", options->utilisation,
                "Per operand: elements read at least once (exact), reads in total, read multiplicity, bytes, and "
                "the distinct maps it is read through; per module a summary");
  cmd->add_flag("--coalescing", options->coalescing,
                "Per operand map: whether its reads use the target's memory transfers well (coalesced, "
                "broadcast, strided N, uncoalesced, irregular), with the transfers per group against the minimum "
                "and the share of fetched bytes used, under the target's model and emitter (docs/target-models.md)");
  add_target_option(*cmd, options->target, "the --coalescing verdicts are for");
  cmd->add_flag("--physical", options->physical,
                "Maps between element offsets in the buffers (output offset -> operand offset), through the "
                "layouts and their tiles");
  cmd->add_flag("--cost", options->cost,
                "Per instruction: FLOPs (executed, and by XLA's HloCostAnalysis conventions where they differ), "
                "the bytes it moves from and to device memory in transfer units of the layouts, and the time a "
                "roofline model estimates on the device; per module the totals over how often each computation "
                "runs (docs/cost-model.md)");
  add_profile_option(
      *cmd, options->profile,
      "with --cost (which it implies), each instruction's measured time per execution beside the estimate");
  add_device_options(*cmd, options->device);
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  add_analysis_run_options(*cmd, *options, " and the rest of the module is analysed");
  cmd->add_option("--expect", options->expect,
                  "Compare the output with the golden file GOLDEN: nothing is printed when they are equal "
                  "(exit 0), else a unified diff from GOLDEN to the output (exit 1)")
      ->type_name("GOLDEN");
  cmd->add_flag("--update", options->update, "With --expect: write the output to GOLDEN instead (created if missing)");
  cmd->add_flag("--canonical-names", options->canonical_names,
                "Rename computations and instructions by name stem and position (fusion.123, fusion.7 -> fusion, "
                "fusion.1; the maps do not change), so goldens survive renumbering; --computation and "
                "--instruction then take the new names");
  cmd->callback([options, &exit_code] { exit_code = run_analyze_command(*options, std::cout, std::cerr); });
}

int run_analyze_command(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  if (options.update && options.expect.empty()) {
    err << "hlo-index: error: --update needs --expect GOLDEN\n";
    return k_exit_input_error;
  }
  if (options.expect.empty()) return analyze(options, out, err);
  std::ostringstream actual;
  const int code = analyze(options, actual, err);
  return code != k_exit_ok ? code : check_golden_file(options.expect, actual.str(), options.update, out, err);
}

namespace {

indexing::AnalysisOptions analysis_options(const AnalyzeOptions& options) {
  indexing::AnalysisOptions out;
  out.style = options.xla_compat ? indexing::MapStyle::kXla : indexing::MapStyle::kExact;
  out.simplify = options.simplify;
  out.time_limit_per_instruction = options.time_limit_per_instruction;
  out.work_budget_per_instruction = options.work_budget_per_instruction;
  return out;
}

analysis::ReportRequest report_request(const AnalyzeOptions& options) {
  analysis::ReportRequest request;
  request.output_to_input = options.direction != "in2out";
  request.input_to_output = options.direction != "out2in";
  request.operand = options.operand;
  request.physical = options.physical;
  request.utilisation = options.utilisation;
  request.read_patterns = options.coalescing;
  return request;
}

// --operand K must name an operand of some instruction shown; else nothing
// would be printed for any of them.
bool check_operand(const AnalyzeOptions& options, const analysis::InstructionFilter& filter,
                   const std::vector<hlo::Module>& modules, std::ostream& err) {
  if (!options.operand) return true;
  const std::size_t most = analysis::most_operands_shown(modules, filter);
  if (*options.operand < most) return true;
  err << fmt::format(
      "hlo-index: error: --operand {} is out of range: the instructions shown have at most {} operand{}{}\n",
      *options.operand, most, most == 1 ? "" : "s", most == 0 ? "" : fmt::format(" (0 to {})", most - 1));
  return false;
}

// The instructions shown, in program order over the modules.
std::vector<analysis::WorkItem> shown_items(const std::vector<hlo::Module>& modules,
                                            const analysis::InstructionFilter& filter) {
  std::vector<analysis::WorkItem> items;
  for (const analysis::FoundInstruction& f : analysis::shown_instructions(modules, filter))
    items.push_back({f.module, f.computation, f.instruction});
  analysis::set_affinities(modules, items);
  return items;
}

// One worker's analyses of one module.
struct WorkerState {
  WorkerState(const hlo::Module& module, const indexing::AnalysisOptions& options, const cost::Device& device)
      : analysis(module, options), costs(analysis, device) {}
  analysis::ModuleAnalysis analysis;
  cost::CostModel costs;
};

// How many runs of `module` (the `index`th) the profile holds, as its fusions that run once per
// run say (summary counts them the same way).
std::size_t runs_in_trace(const hlo::Module& module, std::size_t index, const cost::ProfileJoin& join,
                          const cost::Device& device) {
  analysis::ModuleAnalysis analysis(module, indexing::AnalysisOptions{});
  cost::CostModel costs(analysis, device);
  std::unordered_map<std::string_view, std::uint32_t> fusion_computation;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci)
    for (const hlo::Instruction& i : module.computations[ci].instructions)
      if (i.opcode == hlo::Opcode::kFusion) fusion_computation.emplace(i.name, ci);
  return join.runs_of_module(index, [&](std::string_view name) {
    const auto it = fusion_computation.find(name);
    if (it == fusion_computation.end()) return false;
    const cost::Executions runs = costs.executions(it->second);
    return runs.exact && runs.count == 1;
  });
}

// One instruction's report, with its cost when asked for.
struct AnalysedInstruction {
  analysis::InstructionReport report;
  std::optional<cost::InstructionCost> cost;
  cost::Executions runs;
};

// Feeds the renderer the reports in program order, opening and closing
// modules (every one, also those with nothing shown) and computations.
class ReportSequence {
public:
  // `several`: the input had several modules (before --module), so each is named.
  ReportSequence(const std::vector<hlo::Module>& modules, bool several, const AnalyzeOptions& options,
                 AnalyzeRenderer& renderer, analysis::MapTotals& totals, Progress& progress, const cost::Device* device,
                 const cost::ProfileJoin* profile)
      : m_modules(modules),
        m_several(several),
        m_options(options),
        m_renderer(renderer),
        m_totals(totals),
        m_progress(progress),
        m_device(device),
        m_profile(profile) {}

  void add(const analysis::WorkItem& item, const AnalysedInstruction& result) {
    const analysis::InstructionReport& report = result.report;
    if (item.module != m_module || item.computation != m_computation) close_computation();
    while (!m_module_open || m_module != item.module) {
      if (m_module_open) close_module();
      open_module(m_module_open ? m_module + 1 : m_next_module);
    }
    if (!m_computation_open) {
      m_renderer.begin_computation(m_modules[m_module].computations[item.computation]);
      m_computation = item.computation;
      m_computation_open = true;
    }
    if (report.utilisation) m_summary.add(*report.utilisation);
    if (result.cost) m_costs.add(*result.cost, result.runs);
    m_totals.add(report);
    std::optional<MeasuredExecution> measured;
    if (m_profile != nullptr) {
      const hlo::Computation& c = m_modules[m_module].computations[item.computation];
      if (auto time = m_profile->measured(m_module, c.instructions[item.instruction].name))
        measured = MeasuredExecution{*time, m_module_runs, result.runs};
    }
    m_renderer.instruction(m_modules[m_module], report, result.cost ? &*result.cost : nullptr,
                           measured ? &*measured : nullptr);
    m_progress.instruction_done();
  }

  void finish() {
    close_computation();
    if (m_module_open) close_module();
    while (m_next_module < m_modules.size()) {
      open_module(m_next_module);
      close_module();
    }
    m_renderer.finish(m_totals);
  }

private:
  void open_module(std::size_t k) {
    const hlo::Module& module = m_modules[k];
    m_progress.module(k, m_modules.size(), module.name);
    m_renderer.begin_module(module, m_several);
    if (m_options.coalescing) {
      const std::optional<analysis::Target> given = analysis::parse_target(m_options.target);
      m_renderer.target(module, given ? *given : analysis::detect_target(module), !given.has_value());
    }
    if (m_options.cost) m_renderer.device(module, cost::device_for(module, m_device), m_device != nullptr);
    if (m_profile != nullptr) m_module_runs = runs_in_trace(module, k, *m_profile, cost::device_for(module, m_device));
    m_module = k;
    m_next_module = k + 1;
    m_module_open = true;
    m_summary = UtilisationSummary{};
    m_costs = cost::CostTotals{};
  }
  void close_module() {
    const hlo::Module& module = m_modules[m_module];
    m_renderer.end_module(module, m_options.utilisation ? &m_summary : nullptr, m_options.cost ? &m_costs : nullptr,
                          m_options.cost ? &cost::device_for(module, m_device) : nullptr);
    m_module_open = false;
  }
  void close_computation() {
    if (!m_computation_open) return;
    m_renderer.end_computation(m_modules[m_module].computations[m_computation]);
    m_computation_open = false;
  }

  const std::vector<hlo::Module>& m_modules;
  bool m_several;
  const AnalyzeOptions& m_options;
  AnalyzeRenderer& m_renderer;
  analysis::MapTotals& m_totals;
  Progress& m_progress;
  UtilisationSummary m_summary;
  cost::CostTotals m_costs;
  const cost::Device* m_device = nullptr;  // --device or --device-file; else per module by its target
  const cost::ProfileJoin* m_profile = nullptr;
  std::size_t m_module_runs = 1;  // of the open module, in the profile
  std::size_t m_module = 0, m_next_module = 0;
  std::uint32_t m_computation = 0;
  bool m_module_open = false, m_computation_open = false;
};

void analyze_modules(const std::vector<hlo::Module>& modules, bool several, const AnalyzeOptions& options,
                     const analysis::InstructionFilter& filter, AnalyzeRenderer& renderer, Progress& progress,
                     const cost::Device* device, const cost::ProfileJoin* profile) {
  const analysis::ReportRequest request = report_request(options);
  const std::optional<analysis::Target> target = analysis::parse_target(options.target);
  analysis::MapTotals totals;
  ReportSequence sequence(modules, several, options, renderer, totals, progress, device, profile);
  const std::vector<analysis::WorkItem> items = shown_items(modules, filter);
  analysis::run_in_program_order(
      items, analysis::resolve_jobs(options.jobs),
      [&](std::size_t module) {
        auto state = std::make_unique<WorkerState>(modules[module], analysis_options(options),
                                                   cost::device_for(modules[module], device));
        if (options.coalescing) state->analysis.patterns().set_target(target);
        return state;
      },
      [&](WorkerState& state, const analysis::WorkItem& item) {
        AnalysedInstruction result{
            analysis::report_instruction(state.analysis, item.computation, item.instruction, request), {}, {}};
        if (options.cost) {
          result.cost = state.costs.cost(item.computation, item.instruction);
          result.runs = state.costs.executions(item.computation);
        }
        return result;
      },
      [&](std::size_t k, const AnalysedInstruction& result) { sequence.add(items[k], result); });
  sequence.finish();
}

// --match must select some instruction of the computations shown.
bool check_match(const analysis::InstructionFilter& filter, const AnalyzeOptions& options,
                 const std::vector<hlo::Module>& modules, std::ostream& err) {
  if (!filter.match || !analysis::shown_instructions(modules, filter).empty()) return true;
  err << fmt::format("hlo-index: error: no instruction matches --match '{}'\n", options.match);
  return false;
}

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  // The time limit also bounds what runs outside the analysis options (a fused body's reads).
  ScopedAnalysisLimits limits(options.isl_max_operations, options.time_limit_per_instruction,
                              options.work_budget_per_instruction);
  AnalyzeOptions opts = options;
  opts.cost = opts.cost || !opts.profile.empty();
  std::optional<analysis::InstructionFilter> filter = analysis::module_and_match_filter(opts.modules, opts.match, err);
  if (!filter) return k_exit_input_error;
  for (const std::string& n : opts.computations) filter->computations.push_back(analysis::without_sigil(n));
  for (const std::string& n : opts.instructions) filter->instructions.push_back(analysis::without_sigil(n));
  filter->all_computations = opts.all_computations;
  bool some_input_failed = false;
  std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(opts.files, opts.allow_truncated, err, &some_input_failed);
  if (!modules) return k_exit_input_error;
  if (opts.canonical_names)
    for (hlo::Module& module : *modules) parser::rename_canonically(module);
  const bool several = modules->size() > 1;
  if (!analysis::check_module_names(*filter, *modules, err)) return k_exit_input_error;
  std::erase_if(*modules, [&](const hlo::Module& m) { return !filter->accepts_module(m); });
  if (!analysis::check_shown_names(*filter, *modules, err) || !check_match(*filter, opts, *modules, err) ||
      !check_operand(opts, *filter, *modules, err))
    return k_exit_input_error;
  const std::optional<ChosenDevice> device = choose_device(opts.device, err);
  if (!device) return k_exit_input_error;
  std::optional<cost::Profile> profile;
  if (!read_profile_option(opts.profile, profile, err)) return k_exit_input_error;
  // Joined to the modules shown (the measured times of modules --module leaves out do not count).
  const std::optional<cost::ProfileJoin> join = profile ? std::optional(profile->join(*modules)) : std::nullopt;
  const std::unique_ptr<AnalyzeRenderer> renderer =
      opts.format == "text" ? make_text_renderer(opts, out) : make_json_renderer(opts, out);
  Progress progress(err, "hlo-index analyze", progress_wanted(opts.format) && opts.expect.empty());
  analyze_modules(*modules, several, opts, *filter, *renderer, progress, device->get(), join ? &*join : nullptr);
  return exit_code_after_input(some_input_failed, k_exit_ok, err);
}

}  // namespace

}  // namespace hlo_index::app

#include "app/report_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <memory>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/picture_command.hpp"
#include "app/progress.hpp"
#include "app/report_html.hpp"
#include "app/summary_command.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/read_heatmap.hpp"
#include "indexing/verdicts/linter.hpp"
#include "indexing/verdicts/summary.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::app {

using analysis::SummaryRow;

namespace {

// The computation and instruction of a row, by their names.
std::optional<std::pair<std::uint32_t, std::uint32_t>> locate(const hlo::Module& module, const SummaryRow& row) {
  const std::uint32_t ci = module.find_computation(row.computation);
  if (ci == hlo::k_none) return std::nullopt;
  const hlo::Computation& c = module.computations[ci];
  for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii)
    if (c.instructions[ii].name == row.name) return std::make_pair(ci, ii);
  return std::nullopt;
}

// The findings of the rows that have some (the summary counted them).
std::vector<analysis::LintFinding> findings_of(const hlo::Module& module, const std::vector<SummaryRow>& rows,
                                               const ReportOptions& options) {
  analysis::LintRuleSet every_rule;
  every_rule.set();
  analysis::Linter linter(module, every_rule, analysis::LintThresholds{});
  linter.set_target(analysis::parse_target(options.target));
  std::vector<analysis::LintFinding> out;
  for (const SummaryRow& row : rows) {
    if (row.lint_findings == 0) continue;
    if (auto at = locate(module, row)) {
      for (analysis::LintFinding& f : linter.lint(at->first, at->second)) out.push_back(std::move(f));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Pictures of the heaviest operand of the first `options.top` rows that read something;
// `page_index` makes the ids of the module's pictures unique on the page.
std::vector<ReportPicture> pictures_of(const hlo::Module& module, const std::vector<SummaryRow>& rows,
                                       const ReportOptions& options, std::size_t page_index) {
  indexing::AnalysisOptions analysis_options;
  analysis_options.time_limit_per_instruction = options.time_limit_per_instruction;
  analysis_options.work_budget_per_instruction = options.work_budget_per_instruction;
  analysis::ModuleAnalysis analysis(module, analysis_options);
  analysis.patterns().set_target(analysis::parse_target(options.target));
  analysis::HeatmapOptions heat;
  heat.max_rows = heat.max_columns = 64;  // pictures on a page: half the resolution, a quarter of the counting
  heat.time_limit_seconds = options.time_limit_per_instruction;
  analysis::ReadHeatmapMemo memo(analysis.offsets().maps());
  std::vector<ReportPicture> out;
  for (const SummaryRow& row : rows) {
    if (out.size() >= options.top) break;
    const auto at = locate(module, row);
    if (!at) continue;
    const std::optional<std::size_t> operand = analysis::heaviest_operand(analysis, at->first, at->second);
    if (!operand) continue;
    const hlo::Computation& c = module.computations[at->first];
    const hlo::Shape& shape = module.shape_of(c.instructions[c.operands_of(c.instructions[at->second])[*operand]]);
    if (shape.is_tuple || !shape.element_count()) continue;
    Picture p = draw_operand(analysis, at->first, at->second, *operand, heat, &memo,
                             fmt::format("m{}p{}-", page_index, out.size()));
    out.push_back({row.name, row.line, std::move(p.summary), std::move(p.svg)});
  }
  return out;
}

}  // namespace

constexpr const char* k_report_help =
    "Writes one self-contained HTML page (inline CSS, JavaScript and SVG; it loads nothing from the\n"
    "network, so it can be mailed or attached to a CI run) with, per module:\n"
    "  - the module's estimated time on the device (--device) and the summary table (as hlo-index summary:\n"
    "    time, %, bound, flops, bytes, AI, util, mult, access, lint, maps, line, kind, computation, name),\n"
    "    sorted by --sort; click a header to sort by it (again to reverse);\n"
    "  - the lint findings (every rule at its default thresholds, as hlo-index lint);\n"
    "  - the pictures (as hlo-index picture) of the first --top rows: for each, its operand with the most\n"
    "    read traffic.\n"
    "With --profile TRACE (as in summary) a `measured` column follows `time`, rows go by it unless --sort is\n"
    "given, and each module says its measured time against the estimate.\n"
    "--match, --module and --all-instructions select rows as in summary. The page's bytes depend on the\n"
    "input only (no date), so two reports diff cleanly. -o - writes the page to standard output.\n"
    "Bad input (exit code 2): a file that cannot be read or parsed, a bad --sort column, a --match selecting\n"
    "nothing, an output that cannot be written.\n\n"
    "Examples:\n"
    "  hlo-index report model.hlo -o report.html\n"
    "  hlo-index report dumps/ --top 10 --sort lint -o report.html";

void add_report_options(CLI::App& cmd, ReportOptions& options) {
  cmd.add_option("files", options.files,
                 "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files)")
      ->required();
  cmd.add_option("-o,--output", options.output, "The HTML file to write ('-': standard output)")
      ->type_name("OUT.html")
      ->required();
  cmd.add_option("--top", options.top, "Pictures of the first N rows of each module")
      ->type_name("N")
      ->capture_default_str();
  cmd.add_option("--max-rows", options.max_rows, "Table rows per module (the first N in the sort order)")
      ->type_name("N")
      ->capture_default_str();
  cmd.add_option("--sort", options.sort, "Order rows (and choose the pictures) by this summary column")
      ->each([&options](const std::string&) { options.sort_given = true; })
      ->type_name("COLUMN")
      ->capture_default_str();
  add_profile_option(cmd, options.profile,
                     "a `measured` column per run of the module and device beside the estimates, rows sorted by "
                     "it, and per module the measured time against the estimate");
  cmd.add_flag("--all-instructions", options.all_instructions,
               "A row per instruction of the non-fused computations, not only per fusion");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--match", options.match,
                 "Only instructions whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  add_target_option(cmd, options.target, "the access verdicts and pictures judge reads for");
  add_device_options(cmd, options.device);
  add_analysis_run_options(cmd, options);
}

void setup_report_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd =
      app.add_subcommand("report", "One HTML page: summary table, lint findings, pictures of the heaviest fusions");
  cmd->footer(k_report_help);
  add_report_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_report_command(*options, std::cout, std::cerr); });
}

int run_report_command(const ReportOptions& options, std::ostream& out, std::ostream& err) {
  // With a profile, rows go by measured time unless --sort says otherwise (as in summary).
  const std::string sort_name =
      !options.profile.empty() && !options.sort_given ? std::string("measured") : options.sort;
  const std::optional<analysis::SummaryColumn> sort = analysis::find_summary_column(sort_name);
  if (!sort) {
    err << fmt::format("hlo-index: error: unknown column '{}' for --sort (columns: {})\n", options.sort,
                       fmt::join(analysis::summary_column_names(), ", "));
    return k_exit_input_error;
  }
  std::optional<analysis::InstructionFilter> filter =
      analysis::module_and_match_filter(options.modules, options.match, err);
  if (!filter) return k_exit_input_error;
  const std::optional<ChosenDevice> device = choose_device(options.device, err);
  if (!device) return k_exit_input_error;
  bool some_input_failed = false;
  const std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(options.files, options.allow_truncated, *filter, err, &some_input_failed);
  if (!modules) return k_exit_input_error;
  std::optional<cost::Profile> profile;
  if (!read_profile_option(options.profile, profile, err)) return k_exit_input_error;

  ScopedAnalysisLimits limits(options.isl_max_operations, options.time_limit_per_instruction,
                              options.work_budget_per_instruction);
  ReportPage page;
  page.files = options.files;
  page.target = options.target.empty() ? "detected from each module" : options.target;
  page.sort = sort_name;
  page.all_instructions = options.all_instructions;
  page.profile = profile.has_value();
  std::size_t rows = 0, findings = 0, pictures = 0;
  {
    Progress progress(err, "hlo-index report", progress_wanted("text"));  // erased before the summary line
    analysis::SummaryRequest request = summary_request(options, *filter, progress, *modules, device->get());
    if (profile) request.profile = &*profile;
    std::vector<analysis::ModuleSummary> by_module = analysis::summarise_modules(*modules, request);
    for (std::size_t k = 0; k < modules->size(); ++k) {
      const hlo::Module& module = (*modules)[k];
      if (!filter->accepts_module(module)) continue;
      ReportModule m;
      m.name = std::string(module.name);
      m.file = module.source ? module.source->name() : std::string();
      m.totals = by_module[k].totals;
      m.device = by_module[k].device != nullptr ? by_module[k].device->name : std::string();
      m.measured_seconds = by_module[k].measured_seconds;
      m.estimated_seconds_measured = by_module[k].estimated_seconds_measured;
      m.profile_steps = by_module[k].profile_steps;
      std::vector<SummaryRow> all = std::move(by_module[k].rows);
      analysis::sort_rows(all, *sort);
      m.total_rows = all.size();
      for (const SummaryRow& r : all) {
        m.read = simplify::saturating_add(m.read, r.bytes_read);
        m.written = simplify::saturating_add(m.written, r.output_bytes);
      }
      m.findings = findings_of(module, all, options);
      m.pictures = pictures_of(module, all, options, page.modules.size());
      if (all.size() > options.max_rows) all.resize(options.max_rows);
      m.rows = std::move(all);
      rows += m.total_rows;
      findings += m.findings.size();
      pictures += m.pictures.size();
      page.modules.push_back(std::move(m));
    }
  }
  if (rows == 0 && (!options.match.empty())) {
    err << fmt::format("hlo-index: error: no instruction matches --match '{}'\n", options.match);
    return k_exit_input_error;
  }
  if (!write_output(options.output, report_html(page), out, err)) return k_exit_input_error;
  const char* what = options.all_instructions ? "instruction" : "fusion";
  (options.output == "-" ? err : out) << fmt::format(
      "wrote {}: {} module{}, {} {}{}, {} lint finding{}, {} picture{}\n",
      options.output == "-" ? "stdout" : options.output, page.modules.size(), page.modules.size() == 1 ? "" : "s", rows,
      what, rows == 1 ? "" : "s", findings, findings == 1 ? "" : "s", pictures, pictures == 1 ? "" : "s");
  return exit_code_after_input(some_input_failed, k_exit_ok, err);
}

}  // namespace hlo_index::app

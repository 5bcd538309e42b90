#include "app/report_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <limits>
#include <map>
#include <memory>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/picture_command.hpp"
#include "app/progress.hpp"
#include "app/report_charts.hpp"
#include "app/report_html.hpp"
#include "app/summary_command.hpp"
#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/read_heatmap.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/verdicts/summary.hpp"
#include "indexing/verdicts/summary_groups.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::app {

using analysis::SummaryRow;

namespace {

// The accepted modules in groups of one structure (fingerprint.hpp), each
// group in file order: the first is shown, the others named.
std::vector<std::vector<std::size_t>> identical_groups(const std::vector<hlo::Module>& modules,
                                                       const analysis::InstructionFilter& filter) {
  std::vector<std::vector<std::size_t>> groups;
  std::map<std::uint64_t, std::size_t> group_of;
  for (std::size_t k = 0; k < modules.size(); ++k) {
    if (!filter.accepts_module(modules[k])) continue;
    const auto [it, inserted] = group_of.try_emplace(analysis::module_structure(modules[k]), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(k);
  }
  return groups;
}

// The 1-based line of a view into the module's text; 0 when it is not in it.
std::size_t line_of(const hlo::Module& module, std::string_view text) {
  if (!module.source) return 0;
  const std::string_view all = module.source->text();
  if (text.data() < all.data() || text.data() + text.size() > all.data() + all.size()) return 0;
  return module.source->line_column(module.source->offset_of(text.data())).line;
}

std::string module_place(const hlo::Module& module) {
  if (!module.source) return std::string(module.name);
  const std::size_t line = line_of(module, module.name);
  return line > 0 ? fmt::format("{} ({}:{})", module.name, module.source->name(), line)
                  : fmt::format("{} ({})", module.name, module.source->name());
}

// The HLO a detail shows: the instruction's line, then a fusion's fused computation, at most
// `max_lines` lines (each cut at 600 characters: metadata makes them long).
void add_hlo(const hlo::Module& module, std::uint32_t ci, std::uint32_t ii, ReportDetail& detail) {
  constexpr std::size_t k_max_lines = 60, k_max_line = 600;
  auto add = [&](std::size_t line) {
    if (detail.hlo.size() >= k_max_lines) {
      ++detail.hlo_left_out;
      return;
    }
    std::string text(module.source->line_text(line));
    if (text.size() > k_max_line) text = text.substr(0, k_max_line) + " \u2026";
    detail.hlo.emplace_back(line, std::move(text));
  };
  const hlo::Computation& c = module.computations[ci];
  const hlo::Instruction& instr = c.instructions[ii];
  const std::size_t own = line_of(module, instr.name);
  if (own == 0) return;
  add(own);
  if (instr.opcode != hlo::Opcode::kFusion) return;
  const hlo::Computation* body = module.callee(c, instr);
  if (body == nullptr || body->instructions.empty()) return;
  const std::size_t first = line_of(module, body->name);
  std::size_t last = line_of(module, body->instructions.back().name);
  for (const hlo::Instruction& i : body->instructions) last = std::max(last, line_of(module, i.name));
  if (first == 0 || last < first) return;
  if (module.source->line_text(last + 1).find('}') != std::string_view::npos) ++last;
  for (std::size_t line = first; line <= last; ++line) add(line);
}

// What an operand reads, in one line, and whether a picture would show more than that.
std::pair<std::string, bool> operand_reads(const analysis::OperandUtilisation& u) {
  if (!u.defined()) return {"not counted: " + u.undefined_reason, false};
  if (u.tuple) return {fmt::format("a tuple of {}", cost::plural(u.leaves.size(), "leaf")), false};
  const std::int64_t size = u.operand_elements * std::max<std::int64_t>(u.element_bits, 1) / 8;
  const double utilisation = u.utilisation(), multiplicity = u.multiplicity();
  const std::string bound = u.distinct_read.exact && !u.depends_on_runtime ? "" : "at most ";
  if (u.distinct_read.value == 0) return {"nothing read", false};
  if (utilisation >= 1 && multiplicity <= 1)
    return {fmt::format("every element read once ({})", cost::human_bytes(u.bytes_read())), false};
  const std::string often = multiplicity <= 1 ? std::string("each element read once")
                                              : fmt::format("each element read {:.3g} times on average", multiplicity);
  return {fmt::format("{}{} of {} read ({:.1f}%), {}", bound, cost::human_bytes(u.bytes_read()),
                      cost::human_bytes(size), 100 * utilisation, often),
          u.operand_elements > 1};
}

constexpr unsigned long k_picture_isl_share = 10;

// The operands of a detail, with pictures (at most `max_pictures`) where they show something.
void add_operands(analysis::ModuleAnalysis& analysis, analysis::ReadHeatmapMemo& memo, const std::string& id_prefix,
                  std::size_t max_pictures, ReportDetail& detail) {
  const hlo::Module& module = analysis.module();
  const std::uint32_t ci = detail.row.computation_index, ii = detail.row.instruction_index;
  const hlo::Computation& c = module.computations[ci];
  const indexing::InstructionIndexing indexing = analysis.indexing(ci, ii, true, false);
  const analysis::InstructionUtilisation usage = analysis::instruction_utilisation(analysis, ci, ii, indexing);
  analysis::HeatmapOptions heat;
  heat.max_rows = heat.max_columns = 64;  // pictures on a page: half the resolution, a quarter of the counting
  heat.max_counts = 256;                  // and coarser cells before a picture costs more than a few hundred ms
  std::size_t pictures = 0;
  const auto operands = c.operands_of(c.instructions[ii]);
  for (const analysis::OperandUtilisation& u : usage.operands) {
    if (u.operand >= operands.size()) continue;
    const hlo::Instruction& o = c.instructions[operands[u.operand]];
    ReportOperand out{std::string(o.name), hlo::to_string(module.shape_of(o)), {}, {}, {}};
    auto [reads, worth_a_picture] = operand_reads(u);
    out.reads = std::move(reads);
    if (worth_a_picture && pictures >= max_pictures)
      out.reads +=
          fmt::format(" (hlo-index picture --instruction {} --operand {} draws it)", detail.row.name, u.operand);
    if (worth_a_picture && pictures < max_pictures) {
      // A page's pictures get a tenth of isl's budget per count: past it a block's count is its
      // box, an upper bound the picture marks (`hlo-index picture` counts with the whole budget).
      const indexing::ScopedIslOperationLimit cheaper(
          std::max(1UL, indexing::IslContext::get().operation_limit() / k_picture_isl_share));
      Picture p = draw_operand(analysis, ci, ii, u.operand, heat, &memo, fmt::format("{}o{}-", id_prefix, u.operand));
      out.svg = std::move(p.svg);
      out.picture_summary = std::move(p.summary);
      ++pictures;
    }
    detail.operands.push_back(std::move(out));
  }
}

// The first `top` kinds of row (rows of one identity, repeated layers, are one kind): by their
// time together when rows go by time, else in the rows' order; each with its HLO, operands and
// pictures. `links` gets every row of a detailed kind.
void add_details(const hlo::Module& module, const std::vector<SummaryRow>& sorted, const ReportOptions& options,
                 bool by_time, std::size_t page_index, ReportModule& m) {
  if (options.top == 0 || sorted.empty()) return;
  std::vector<analysis::FoldedRows> kinds = analysis::fold_repeats(sorted, by_time);
  if (kinds.size() > options.top) kinds.resize(options.top);
  for (const analysis::FoldedRows& kind : kinds) {
    ReportDetail d;
    d.anchor = fmt::format("m{}d{}", page_index, m.details.size());
    d.row = sorted[kind.first];
    d.copies = kind.members.size();
    d.seconds = kind.seconds;
    d.share = kind.share;
    for (std::size_t k = 1; k < kind.members.size() && d.others.size() < 8; ++k)
      d.others.push_back(sorted[kind.members[k]].name);
    for (const std::size_t k : kind.members) m.links.emplace(sorted[k].name, d.anchor);
    m.details.push_back(std::move(d));
  }
  indexing::AnalysisOptions analysis_options;
  analysis_options.time_limit_per_instruction = options.time_limit_per_instruction;
  analysis_options.work_budget_per_instruction = options.work_budget_per_instruction;
  analysis::ModuleAnalysis analysis(module, analysis_options);
  analysis.patterns().set_target(analysis::parse_target(options.target));
  analysis::ReadHeatmapMemo memo(analysis.offsets().maps());
  // Pictures cost the most (a count per block of cells, each an isl question): the first five
  // details get two each, the others say how to draw them.
  constexpr std::size_t k_pictured_details = 5, k_pictures_per_detail = 2;
  for (std::size_t k = 0; k < m.details.size(); ++k) {
    ReportDetail& d = m.details[k];
    add_hlo(module, d.row.computation_index, d.row.instruction_index, d);
    add_operands(analysis, memo, d.anchor + "-", k < k_pictured_details ? k_pictures_per_detail : 0, d);
  }
}

}  // namespace

constexpr const char* k_report_help =
    "Writes one self-contained HTML page (inline CSS, JavaScript and SVG; it loads nothing from the\n"
    "network, so it can be mailed or attached to a CI run). Modules of the same structure (PyTorch/XLA\n"
    "prints one per step) are shown once, the others named. Per module:\n"
    "  - the estimated time on the device (--device), FLOPs, bytes and findings, and the time by what\n"
    "    bounds it (compute, memory, launch overhead, collective) as one bar;\n"
    "  - a roofline: every fusion at its arithmetic intensity and attained FLOP rate under the device\n"
    "    model, under the device's memory and compute roofs, sized by its time (fusions of equal\n"
    "    FLOPs, bytes and time are one dot); a dot of a detailed fusion links to its detail;\n"
    "  - the estimated time by framework op: the metadata op_name paths as a tree (xprof's op profile);\n"
    "  - the --top heaviest kinds of fusion (the copies of a repeated layer are one kind, their time\n"
    "    added), each opening its detail: figures, the HLO it runs with line numbers, each operand's\n"
    "    reads (\"every element read once\", or how much and how often, with a picture as hlo-index\n"
    "    picture draws it where there is a shape to see: two per kind in the first five kinds, the\n"
    "    others naming the picture command that draws them), and its findings;\n"
    "  - the summary table (as hlo-index summary), sorted by --sort, at most --max-rows rows; click a\n"
    "    header to sort by it (again to reverse); a row's name links to its detail;\n"
    "  - the lint findings (every rule at its default thresholds, as hlo-index lint).\n"
    "With --profile TRACE (as in summary) a `measured` column follows `time`, rows go by it unless --sort is\n"
    "given, and each module says its measured time against the estimate.\n"
    "--match, --module and --all-instructions select rows as in summary. The page's bytes depend on the\n"
    "input only (no date), so two reports diff cleanly. -o - writes the page to standard output.\n"
    "Bad input (exit code 2): a file that cannot be read or parsed, a bad --sort column, a --match selecting\n"
    "nothing, an output that cannot be written.\n\n"
    "Examples:\n"
    "  hlo-index report model.hlo -o report.html\n"
    "  hlo-index report dumps/ --top 20 --sort lint -o report.html";

void add_report_options(CLI::App& cmd, ReportOptions& options) {
  cmd.add_option("files", options.files,
                 "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files)")
      ->required();
  cmd.add_option("-o,--output", options.output, "The HTML file to write ('-': standard output)")
      ->type_name("OUT.html")
      ->required();
  cmd.add_option("--top", options.top,
                 "Details (HLO, operands, pictures, findings) of the N heaviest kinds of row of each module")
      ->type_name("N")
      ->capture_default_str();
  cmd.add_option("--max-rows", options.max_rows, "Table rows per module (the first N in the sort order)")
      ->type_name("N")
      ->capture_default_str();
  cmd.add_option("--sort", options.sort,
                 "Order rows by this summary column (and choose the details: by time, each kind's time added)")
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
      app.add_subcommand("report", "One HTML page: where the time goes, the heaviest fusions in detail, findings");
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
  std::size_t rows = 0, findings = 0, pictures = 0, shown_modules = 0;
  {
    Progress progress(err, "hlo-index report", progress_wanted("text"));  // erased before the summary line
    analysis::SummaryRequest request = summary_request(options, *filter, progress, *modules, device->get());
    if (profile) request.profile = &*profile;
    const std::vector<std::vector<std::size_t>> groups = identical_groups(*modules, *filter);
    request.skip_modules.assign(modules->size(), 1);
    for (const std::vector<std::size_t>& group : groups) request.skip_modules[group.front()] = 0;
    request.keep_findings = true;
    std::vector<analysis::ModuleSummary> by_module = analysis::summarise_modules(*modules, request);
    for (const std::vector<std::size_t>& group : groups) {
      shown_modules += group.size();
      const std::size_t k = group.front();
      const hlo::Module& module = (*modules)[k];
      ReportModule m;
      m.name = std::string(module.name);
      m.file = module.source ? module.source->name() : std::string();
      for (std::size_t g = 1; g < group.size(); ++g) m.identical.push_back(module_place((*modules)[group[g]]));
      m.totals = by_module[k].totals;
      const cost::Device& chart_device =
          by_module[k].device != nullptr ? *by_module[k].device : cost::device_for(module, device->get());
      m.device = chart_device.name;
      m.measured_seconds = by_module[k].measured_seconds;
      m.estimated_seconds_measured = by_module[k].estimated_seconds_measured;
      m.profile_steps = by_module[k].profile_steps;
      std::vector<SummaryRow> all = std::move(by_module[k].rows);
      analysis::sort_rows(all, *sort);
      m.total_rows = all.size();
      for (SummaryRow& r : all) {
        m.read = simplify::saturating_add(m.read, r.bytes_read);
        m.written = simplify::saturating_add(m.written, r.output_bytes);
        m.seconds_by_bound[static_cast<std::size_t>(r.cost.bound)] += r.seconds();
        for (analysis::LintFinding& f : r.findings) m.findings.push_back(std::move(f));
        r.findings.clear();
      }
      std::sort(m.findings.begin(), m.findings.end());
      add_details(module, all, options, *sort == analysis::SummaryColumn::kTime, page.modules.size(), m);
      m.roofline = roofline_html(all, chart_device, m.links, fmt::format("m{}", page.modules.size()));
      m.op_tree = op_tree_html(analysis::op_name_tree(all), m.totals.seconds);
      if (all.size() > options.max_rows) all.resize(options.max_rows);
      m.rows = std::move(all);
      rows += m.total_rows;
      findings += m.findings.size();
      for (const ReportDetail& d : m.details)
        for (const ReportOperand& o : d.operands) pictures += o.svg.empty() ? 0 : 1;
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
      "wrote {}: {}{}, {} {}{}, {} lint finding{}, {} picture{}\n", options.output == "-" ? "stdout" : options.output,
      cost::plural(shown_modules, "module"),
      shown_modules > page.modules.size() ? fmt::format(" ({} distinct)", page.modules.size()) : std::string(), rows,
      what, rows == 1 ? "" : "s", findings, findings == 1 ? "" : "s", pictures, pictures == 1 ? "" : "s");
  return exit_code_after_input(some_input_failed, k_exit_ok, err);
}

}  // namespace hlo_index::app

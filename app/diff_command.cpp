#include "app/diff_command.hpp"

#include <fmt/format.h>

#include <future>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/progress.hpp"
#include "app/summary_command.hpp"
#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/verdicts/dump_diff.hpp"
#include "parser/canonical_names.hpp"

namespace hlo_index::app {

using analysis::DiffEntry;
using analysis::FigureChange;
using analysis::FusionChange;
using analysis::ModuleDiff;

namespace {

using json = nlohmann::ordered_json;

std::string plural(std::size_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// Modules pair by name without numeric parts; a single module on each side pairs whatever its name.
std::vector<std::pair<int, int>> pair_modules(const std::vector<hlo::Module>& a, const std::vector<hlo::Module>& b) {
  std::vector<std::pair<int, int>> pairs;
  if (a.size() == 1 && b.size() == 1) return {{0, 0}};
  std::vector<bool> taken(b.size(), false);
  for (std::size_t i = 0; i < a.size(); ++i) {
    int found = -1;
    for (std::size_t j = 0; j < b.size() && found < 0; ++j) {
      if (!taken[j] && parser::name_stem(a[i].name) == parser::name_stem(b[j].name)) found = static_cast<int>(j);
    }
    if (found >= 0) taken[static_cast<std::size_t>(found)] = true;
    pairs.emplace_back(static_cast<int>(i), found);
  }
  for (std::size_t j = 0; j < b.size(); ++j) {
    if (!taken[j]) pairs.emplace_back(-1, static_cast<int>(j));
  }
  return pairs;
}

struct Result {
  std::vector<ModuleDiff> modules;
  std::vector<std::string> only_old, only_new;  // module names
};

std::string figure_label(const std::string& figure) {
  std::string label = figure;
  for (char& c : label) c = c == '_' ? ' ' : c;
  return label;
}

std::string change_text(const FigureChange& f) {
  std::string text = fmt::format("{} \u2192 {}", f.before, f.after);
  if (f.relative) text += fmt::format(" ({:+.1f}%)", *f.relative * 100);
  if (f.regression) text += "  REGRESSION";
  return text;
}

// Tuple shapes of whole layers run to thousands of characters: the line keeps both ends.
constexpr std::size_t k_shape_width = 60;

std::string entry_text(const DiffEntry& e) {
  return fmt::format("{} ({}, {}, line {})", e.row.name, e.row.kind != "-" ? e.row.kind : e.row.opcode,
                     elide_middle(e.row.output_shape, k_shape_width), e.row.line);
}

void render_change(const FusionChange& c, std::ostream& out) {
  const auto& a = c.before->row;
  const auto& b = c.after->row;
  const std::string names = a.name == b.name ? a.name : fmt::format("{} \u2192 {}", a.name, b.name);
  out << fmt::format("changed  {} ({}, lines {} \u2192 {}, matched by {})\n", names, b.kind != "-" ? b.kind : b.opcode,
                     a.line, b.line, analysis::matched_by_name(c.matched_by));
  if (!c.ops_removed.empty() || !c.ops_added.empty()) {
    std::vector<std::string> ops;
    ops.reserve(c.ops_removed.size() + c.ops_added.size());
    for (const auto& op : c.ops_removed) ops.push_back(fmt::format("-{}", op));
    for (const auto& op : c.ops_added) ops.push_back(fmt::format("+{}", op));
    out << fmt::format("  {:<14} {}\n", "fused ops", fmt::join(ops, " "));
  }
  if (c.shapes_changed) {
    out << fmt::format("  {:<14} before {}\n", "shapes", c.before->shapes);
    out << fmt::format("  {:<14} after  {}\n", "", c.after->shapes);
  }
  for (const FigureChange& f : c.figures) out << fmt::format("  {:<14} {}\n", figure_label(f.figure), change_text(f));
}

bool any_regression(const Result& r) {
  return std::any_of(r.modules.begin(), r.modules.end(), [](const ModuleDiff& m) { return m.regression(); });
}

bool no_differences(const Result& r) {
  return r.only_old.empty() && r.only_new.empty() &&
         std::all_of(r.modules.begin(), r.modules.end(), [](const ModuleDiff& m) { return m.same(); });
}

std::size_t regressions(const ModuleDiff& m) {
  std::size_t n = 0;
  for (const FusionChange& c : m.changed) n += c.regression() ? 1 : 0;
  return n;
}

void render_text(const Result& r, const DiffOptions& o, bool all_instructions, std::ostream& out) {
  const std::string what = all_instructions ? "instruction" : "fusion";
  for (const std::string& name : r.only_old) out << fmt::format("module {} only in {}\n", name, o.old_file);
  for (const std::string& name : r.only_new) out << fmt::format("module {} only in {}\n", name, o.new_file);
  for (const ModuleDiff& m : r.modules) {
    const std::string names =
        m.old_name == m.new_name ? m.old_name : fmt::format("{} \u2192 {}", m.old_name, m.new_name);
    out << fmt::format("module {}: {} \u2192 {}, {} matched ({} by structure), {} changed, {} added, {} removed\n",
                       names, plural(m.old_entries.size(), what), m.new_entries.size(), m.matched,
                       m.matched_by_structure, m.changed.size(), m.added.size(), m.removed.size());
    for (const DiffEntry* e : m.removed) out << fmt::format("removed  {}\n", entry_text(*e));
    for (const DiffEntry* e : m.added) out << fmt::format("added    {}\n", entry_text(*e));
    for (const FusionChange& c : m.changed) render_change(c, out);
    // A dump from before fusion (XLA's benchmark modules) has no fusion at all.
    if (m.old_entries.empty() && m.new_entries.empty() && !all_instructions)
      out << "no fusion in this module: --all-instructions compares every instruction\n";
    for (const FigureChange& f : m.totals)
      out << fmt::format("total {:<14} {}\n", figure_label(f.figure), change_text(f));
  }
  if (no_differences(r)) {
    out << "no differences\n";
  } else if (any_regression(r)) {
    std::size_t fusions = 0, totals = 0;
    for (const ModuleDiff& m : r.modules) {
      fusions += regressions(m);
      totals += std::count_if(m.totals.begin(), m.totals.end(), [](const FigureChange& f) { return f.regression; });
    }
    std::vector<std::string> parts;
    if (fusions > 0) parts.push_back(plural(fusions, "changed " + what));
    if (totals > 0) parts.push_back(plural(totals, "module total"));
    out << fmt::format("regression: {} (threshold {}%)\n", fmt::join(parts, ", "), o.threshold);
  } else {
    out << "no regression\n";
  }
}

json figure_json(const FigureChange& f) {
  json j{{"figure", f.figure}, {"before", f.before}, {"after", f.after}};
  j["relative"] = f.relative ? json(*f.relative) : json(nullptr);
  j["regression"] = f.regression;
  return j;
}

json entry_json(const DiffEntry& e) {
  return json{{"name", e.row.name},
              {"computation", e.row.computation},
              {"line", e.row.line},
              {"kind", e.row.kind},
              {"opcode", e.row.opcode},
              {"output_shape", e.row.output_shape},
              {"canonical_name", e.canonical},
              {"logical_read_bytes", e.row.logical_read_bytes},
              {"bytes_read", e.row.bytes_read},
              {"lint_findings", e.row.lint_findings}};
}

void render_json(const Result& r, const DiffOptions& o, std::ostream& out) {
  json modules = json::array();
  for (const ModuleDiff& m : r.modules) {
    json removed = json::array(), added = json::array(), changed = json::array(), totals = json::array();
    for (const DiffEntry* e : m.removed) removed.push_back(entry_json(*e));
    for (const DiffEntry* e : m.added) added.push_back(entry_json(*e));
    for (const FusionChange& c : m.changed) {
      json figures = json::array();
      for (const FigureChange& f : c.figures) figures.push_back(figure_json(f));
      changed.push_back(json{{"before", entry_json(*c.before)},
                             {"after", entry_json(*c.after)},
                             {"matched_by", analysis::matched_by_name(c.matched_by)},
                             {"fused_ops_removed", c.ops_removed},
                             {"fused_ops_added", c.ops_added},
                             {"shapes_changed", c.shapes_changed},
                             {"figures", std::move(figures)},
                             {"regression", c.regression()}});
    }
    for (const FigureChange& f : m.totals) totals.push_back(figure_json(f));
    modules.push_back(json{{"old_name", m.old_name},
                           {"new_name", m.new_name},
                           {"old_rows", m.old_entries.size()},
                           {"new_rows", m.new_entries.size()},
                           {"matched", m.matched},
                           {"matched_by_structure", m.matched_by_structure},
                           {"removed", std::move(removed)},
                           {"added", std::move(added)},
                           {"changed", std::move(changed)},
                           {"totals", std::move(totals)},
                           {"regression", m.regression()}});
  }
  out << json{{"old", o.old_file},
              {"new", o.new_file},
              {"threshold_percent", o.threshold},
              {"modules_only_in_old", r.only_old},
              {"modules_only_in_new", r.only_new},
              {"modules", std::move(modules)},
              {"differences", !no_differences(r)},
              {"regression", any_regression(r)}}
             .dump(2)
      << "\n";
}

}  // namespace

constexpr const char* k_diff_help =
    "Matches the fusions of two dumps of one program and reports those added, removed and changed.\n"
    "Matching: first by canonical name (numeric suffixes dropped, position kept; see analyze --canonical-names)\n"
    "together with the structure (kind, the multiset of fused opcodes, operand and output shapes with layouts),\n"
    "then by structure alone (renumbered or reordered fusions), then by canonical name when the shapes agree\n"
    "apart from layouts and the arithmetic is the same (only ops that move data, such as transpose, copy or\n"
    "broadcast, differ); a fusion split in two is removed and its parts added. A changed fusion lists each figure of "
    "`hlo-index summary` that\n"
    "changed, before -> after: logical reads (every read x element size), bytes read, written, utilisation, "
    "multiplicity, access, maps, lint.\n"
    "A regression (exit code 1): bytes read or logical reads of a matched fusion or of a\n"
    "module's total growing by more than --threshold percent, an access verdict getting worse, maps becoming\n"
    "approximate or undefined, or more lint findings.\n\n"
    "Examples:\n"
    "  hlo-index diff before.hlo after.hlo\n"
    "  hlo-index diff before.hlo after.hlo --threshold 10 --format json";

void add_diff_options(CLI::App& cmd, DiffOptions& options) {
  cmd.add_option("old", options.old_file, "The HLO text file before ('-' reads standard input)")->required();
  cmd.add_option("new", options.new_file, "The HLO text file after")->required();
  cmd.add_option("--threshold", options.threshold,
                 "Relative increase of bytes read or logical reads, in percent, beyond which it is a regression")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_flag("--all-instructions", options.all_instructions,
               "Compare every instruction of the non-fused computations, not only fusions");
  add_target_option(cmd, options.target, "the access verdicts judge reads for");
  cmd.add_option("--match", options.match,
                 "Only instructions whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--format", options.format, "Output format: text or JSON")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_analysis_run_options(cmd, options);
}

void setup_diff_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DiffOptions>();
  CLI::App* cmd = app.add_subcommand("diff",
                                     "Fusions added, removed and changed between two dumps; exit 1 on a "
                                     "regression");
  cmd->footer(k_diff_help);
  add_diff_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_diff_command(*options, std::cout, std::cerr); });
}

int run_diff_command(const DiffOptions& options, std::ostream& out, std::ostream& err) {
  if (options.format != "text" && options.format != "json") {
    err << fmt::format("hlo-index: error: unknown format '{}' (text or json)\n", options.format);
    return k_exit_input_error;
  }
  analysis::InstructionFilter filter;
  for (const auto& n : options.modules) filter.modules.push_back(n);
  if (!options.match.empty()) {
    std::string error;
    filter.match = analysis::NamePattern::compile(options.match, &error);
    if (!filter.match) {
      err << fmt::format("hlo-index: error: --match '{}' is not a regular expression (ECMAScript): {}\n", options.match,
                         error);
      return k_exit_input_error;
    }
  }
  // Both files are read (and their errors reported) before giving up on either.
  const auto old_modules = analysis::load_modules({options.old_file}, options.allow_truncated, err);
  const auto new_modules = analysis::load_modules({options.new_file}, options.allow_truncated, err);
  if (!old_modules || !new_modules) return k_exit_input_error;
  if (!analysis::check_module_names(filter, *old_modules, err) ||
      !analysis::check_module_names(filter, *new_modules, err))
    return k_exit_input_error;

  ScopedAnalysisLimits limit(options.isl_max_operations, options.time_limit_per_instruction);
  analysis::SummaryRequest request;
  request.all_instructions = options.all_instructions;
  request.target = analysis::parse_target(options.target);
  request.filter = std::move(filter);
  request.analysis.time_limit_per_instruction = options.time_limit_per_instruction;
  analysis::DiffThresholds thresholds;
  thresholds.relative_increase = options.threshold / 100;

  Result result;
  {
    Progress progress(err, "hlo-index diff", progress_wanted(options.format));  // erased before the report
    request.on_row = [&progress](std::size_t) { progress.instruction_done(); };
    request.jobs = options.jobs;
    const auto pairs = pair_modules(*old_modules, *new_modules);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const auto [o, n] = pairs[k];
      if (o < 0 || n < 0) {
        const hlo::Module& only =
            o < 0 ? (*new_modules)[static_cast<std::size_t>(n)] : (*old_modules)[static_cast<std::size_t>(o)];
        if (request.filter.accepts_module(only)) (o < 0 ? result.only_new : result.only_old).emplace_back(only.name);
        continue;
      }
      const hlo::Module& a = (*old_modules)[static_cast<std::size_t>(o)];
      const hlo::Module& b = (*new_modules)[static_cast<std::size_t>(n)];
      if (!request.filter.accepts_module(a) && !request.filter.accepts_module(b)) continue;
      progress.module(k, pairs.size(), a.name);
      ModuleDiff d;
      d.old_name = std::string(a.name);
      d.new_name = std::string(b.name);
      // The two dumps are analysed at once, the old one on a second thread
      // (isl contexts and the limits are per thread; progress counts the new one).
      auto old_entries = std::async(std::launch::async, [&a, &request, &options] {
        ScopedAnalysisLimits thread_limit(options.isl_max_operations, options.time_limit_per_instruction);
        analysis::SummaryRequest quiet = request;
        quiet.on_row = nullptr;
        return analysis::diff_entries(a, quiet);
      });
      d.new_entries = analysis::diff_entries(b, request);
      d.old_entries = old_entries.get();
      analysis::diff_modules(d, thresholds);
      result.modules.push_back(std::move(d));
    }
  }
  if (options.format == "text")
    render_text(result, options, options.all_instructions, out);
  else
    render_json(result, options, out);
  return any_regression(result) ? k_exit_regression : k_exit_ok;
}

}  // namespace hlo_index::app

#include "app/diff_command.hpp"

#include <fmt/format.h>

#include <future>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/lint_command.hpp"
#include "app/progress.hpp"
#include "app/summary_command.hpp"
#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/verdicts/dump_diff.hpp"
#include "parser/canonical_names.hpp"

namespace hlo_index::app {

using analysis::DiffEntry;
using analysis::FigureChange;
using analysis::FusionChange;
using analysis::ModuleDiff;
using analysis::Regroup;

namespace {

using json = nlohmann::ordered_json;

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
  if (f.regression) {
    text += f.why.empty() ? "  REGRESSION" : fmt::format("  REGRESSION: {}", f.why);
  } else if (!f.why.empty()) {
    text += fmt::format("  not a regression: {}", f.why);
  }
  return text;
}

// Where an entry comes from in the user's program, when the dump says.
// (Framework op paths run long: the line keeps both ends; JSON has them whole.)
constexpr std::size_t k_op_name_width = 72;

std::string source_text(const DiffEntry& e) {
  if (e.row.op_name.empty() && e.row.source.empty()) return "";
  const std::string op_name = elide_middle(e.row.op_name, k_op_name_width);
  if (e.row.source.empty()) return fmt::format(" [{}]", op_name);
  if (e.row.op_name.empty()) return fmt::format(" [{}]", e.row.source);
  return fmt::format(" [{} at {}]", op_name, e.row.source);
}

// Tuple shapes of whole layers run to thousands of characters: the line keeps both ends.
constexpr std::size_t k_shape_width = 60;

std::string entry_text(const DiffEntry& e) {
  return fmt::format("{} ({}, {}, line {}, {}){}", e.row.name, e.row.kind != "-" ? e.row.kind : e.row.opcode,
                     elide_middle(e.row.output_shape, k_shape_width), e.row.line, cost::human_seconds(e.row.seconds()),
                     source_text(e));
}

std::string names_of(const std::vector<const DiffEntry*>& entries) {
  std::vector<std::string> names;
  names.reserve(entries.size());
  for (const DiffEntry* e : entries) names.push_back(fmt::format("{} (line {})", e->row.name, e->row.line));
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string regroup_title(const Regroup& r) {
  return fmt::format("{} {} \u2192 {}", r.split() ? "split " : "merged", names_of(r.before), names_of(r.after));
}

void render_regroup(const Regroup& r, std::ostream& out) {
  out << regroup_title(r) << source_text(*r.before.front()) << "\n";
  for (const FigureChange& f : r.figures) out << fmt::format("  {:<14} {}\n", figure_label(f.figure), change_text(f));
}

void render_change(const FusionChange& c, std::ostream& out) {
  const auto& a = c.before->row;
  const auto& b = c.after->row;
  const std::string names = a.name == b.name ? a.name : fmt::format("{} \u2192 {}", a.name, b.name);
  out << fmt::format("changed  {} ({}, lines {} \u2192 {}, matched by {}){}\n", names,
                     b.kind != "-" ? b.kind : b.opcode, a.line, b.line, analysis::matched_by_name(c.matched_by),
                     source_text(*c.after));
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

// One line per figure that decided the exit code, or (no regression) that grew without
// passing both the threshold and a floor.
struct Verdict {
  std::vector<std::string> regressions, below_floors;
};

Verdict verdict(const Result& r) {
  Verdict v;
  auto add = [&v](const std::string& where, const FigureChange& f) {
    if (f.why.empty() && !f.regression) return;
    const std::string line = fmt::format("{} {}: {} \u2192 {}{}", where, figure_label(f.figure), f.before, f.after,
                                         f.why.empty() ? "" : fmt::format(" ({})", f.why));
    (f.regression ? v.regressions : v.below_floors).push_back(line);
  };
  for (const ModuleDiff& m : r.modules) {
    for (const Regroup& g : m.regrouped) {
      const std::string name = g.split() ? g.before.front()->row.name : g.after.front()->row.name;
      for (const FigureChange& f : g.figures) add(fmt::format("{} {}", g.split() ? "split" : "merged", name), f);
    }
    for (const FusionChange& c : m.changed) {
      for (const FigureChange& f : c.figures) add(fmt::format("changed {}", c.after->row.name), f);
    }
    for (const FigureChange& f : m.totals) add(fmt::format("module {} total", m.new_name), f);
  }
  return v;
}

std::string floors_text(const DiffOptions& o) {
  std::string time = fmt::format("{} us", o.min_us);
  if (o.min_share > 0) time += fmt::format(" or {}% of the module's time", o.min_share);
  return fmt::format("threshold {}%, floors {} and {}", o.threshold, time, cost::human_bytes(o.min_bytes));
}

void render_verdict(const Result& r, const DiffOptions& o, std::ostream& out) {
  constexpr std::size_t k_most = 10;
  const Verdict v = verdict(r);
  auto list = [&out](const std::vector<std::string>& lines) {
    for (std::size_t k = 0; k < lines.size() && k < k_most; ++k) out << "  " << lines[k] << "\n";
    if (lines.size() > k_most) out << fmt::format("  ... and {} more\n", lines.size() - k_most);
  };
  if (no_differences(r)) {
    out << "no differences\n";
  } else if (!v.regressions.empty()) {
    out << fmt::format("regression (exit 1): {} beyond both the threshold and a floor ({}):\n",
                       cost::plural(v.regressions.size(), "change"), floors_text(o));
    list(v.regressions);
  } else if (!v.below_floors.empty()) {
    out << fmt::format("no regression (exit 0): {}, none beyond both the threshold and a floor ({}):\n",
                       cost::plural(v.below_floors.size(), "increase"), floors_text(o));
    list(v.below_floors);
  } else {
    out << fmt::format("no regression (exit 0): nothing grew ({})\n", floors_text(o));
  }
}

void render_text(const Result& r, const DiffOptions& o, bool all_instructions, std::ostream& out) {
  const std::string what = all_instructions ? "instruction" : "fusion";
  for (const std::string& name : r.only_old) out << fmt::format("module {} only in {}\n", name, o.old_file);
  for (const std::string& name : r.only_new) out << fmt::format("module {} only in {}\n", name, o.new_file);
  for (const ModuleDiff& m : r.modules) {
    const std::string names =
        m.old_name == m.new_name ? m.old_name : fmt::format("{} \u2192 {}", m.old_name, m.new_name);
    const auto splits = static_cast<std::size_t>(
        std::count_if(m.regrouped.begin(), m.regrouped.end(), [](const Regroup& g) { return g.split(); }));
    out << fmt::format(
        "module {}: {} \u2192 {}, {} matched ({} by structure), {} changed, {} split, {} merged, {} added, {} "
        "removed\n",
        names, cost::plural(m.old_entries.size(), what), m.new_entries.size(), m.matched, m.matched_by_structure,
        m.changed.size(), splits, m.regrouped.size() - splits, m.added.size(), m.removed.size());
    for (const DiffEntry* e : m.removed) out << fmt::format("removed  {}\n", entry_text(*e));
    for (const DiffEntry* e : m.added) out << fmt::format("added    {}\n", entry_text(*e));
    for (const Regroup& g : m.regrouped) render_regroup(g, out);
    for (const FusionChange& c : m.changed) render_change(c, out);
    // A dump from before fusion (XLA's benchmark modules) has no fusion at all.
    if (m.old_entries.empty() && m.new_entries.empty() && !all_instructions)
      out << "no fusion in this module: --all-instructions compares every instruction\n";
    for (const FigureChange& f : m.totals)
      out << fmt::format("total {:<14} {}\n", figure_label(f.figure), change_text(f));
  }
  render_verdict(r, o, out);
}

json figure_json(const FigureChange& f) {
  json j{{"figure", f.figure}, {"before", f.before}, {"after", f.after}};
  j["relative"] = f.relative ? json(*f.relative) : json(nullptr);
  j["regression"] = f.regression;
  j["why"] = f.why.empty() ? json(nullptr) : json(f.why);
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
              {"fingerprint", e.fingerprint},
              {"op_name", e.row.op_name.empty() ? json(nullptr) : json(e.row.op_name)},
              {"source", e.row.source.empty() ? json(nullptr) : json(e.row.source)},
              {"seconds", e.row.seconds()},
              {"bytes_written", static_cast<double>(e.row.cost.device_bytes_written) * e.row.runs.count},
              {"logical_read_bytes", e.row.logical_read_bytes},
              {"bytes_read", e.row.bytes_read},
              {"lint_findings", e.row.lint_findings}};
}

json explanation_json(const Result& r) {
  const Verdict v = verdict(r);
  return json{{"regressions", v.regressions}, {"below_floors", v.below_floors}};
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
    json regrouped = json::array();
    for (const Regroup& g : m.regrouped) {
      json before = json::array(), after = json::array(), figures = json::array();
      for (const DiffEntry* e : g.before) before.push_back(entry_json(*e));
      for (const DiffEntry* e : g.after) after.push_back(entry_json(*e));
      for (const FigureChange& f : g.figures) figures.push_back(figure_json(f));
      regrouped.push_back(json{{"kind", g.split() ? "split" : "merged"},
                               {"before", std::move(before)},
                               {"after", std::move(after)},
                               {"figures", std::move(figures)},
                               {"regression", g.regression()}});
    }
    modules.push_back(json{{"old_name", m.old_name},
                           {"new_name", m.new_name},
                           {"old_rows", m.old_entries.size()},
                           {"new_rows", m.new_entries.size()},
                           {"matched", m.matched},
                           {"matched_by_structure", m.matched_by_structure},
                           {"removed", std::move(removed)},
                           {"added", std::move(added)},
                           {"changed", std::move(changed)},
                           {"regrouped", std::move(regrouped)},
                           {"old_seconds", m.old_totals.seconds},
                           {"new_seconds", m.new_totals.seconds},
                           {"time_floor_seconds", m.time_floor},
                           {"totals", std::move(totals)},
                           {"regression", m.regression()}});
  }
  out << json{{"old", o.old_file},
              {"new", o.new_file},
              {"threshold_percent", o.threshold},
              {"min_seconds", o.min_us * 1e-6},
              {"min_time_share_percent", o.min_share},
              {"min_bytes", o.min_bytes},
              {"modules_only_in_old", r.only_old},
              {"modules_only_in_new", r.only_new},
              {"modules", std::move(modules)},
              {"differences", !no_differences(r)},
              {"regression", any_regression(r)},
              {"explanation", explanation_json(r)}}
             .dump(2)
      << "\n";
}

}  // namespace

constexpr const char* k_diff_help =
    "Matches the fusions of two dumps of one program and reports those added, removed, changed, split and merged.\n"
    "Matching: first by fingerprint (the fusion's structure, shapes and metadata op_name, not its name: survives\n"
    "renumbering and reordering), then by structure alone (kind, fused opcodes, operand and output shapes), then by\n"
    "canonical name when the shapes agree apart from layouts and the arithmetic is the same (only ops that move\n"
    "data, such as transpose, copy or broadcast, differ); then a fusion split in several (the new fusions' computing\n"
    "ops together are the old one's) or several merged into one, reported with the cost before and after.\n"
    "Each changed figure is shown before -> after: estimated time (over the runs, on the module's device), bytes\n"
    "read and written, logical reads, utilisation, multiplicity, access, maps, lint; per module the number of\n"
    "fusions, the estimated time and the bytes.\n"
    "A regression (exit code 1) is an increase beyond both --threshold percent and a floor: --min-us (or\n"
    "--min-share of the module's time, the larger) for times, --min-bytes for bytes read or written and for an\n"
    "access verdict getting worse (on the bytes read); more lint findings also count. Logical reads and maps\n"
    "are shown but never fail. The last lines say why the exit code is what it is.\n\n"
    "Examples:\n"
    "  hlo-index diff before.hlo after.hlo\n"
    "  hlo-index diff before.hlo after.hlo --threshold 10 --min-us 5 --format json";

void add_diff_options(CLI::App& cmd, DiffOptions& options) {
  cmd.add_option("old", options.old_file, "The HLO text file before ('-' reads standard input)")->required();
  cmd.add_option("new", options.new_file, "The HLO text file after")->required();
  cmd.add_option("--threshold", options.threshold,
                 "Relative increase of a time or byte count, in percent, beyond which it is a regression (with a "
                 "floor)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--min-us", options.min_us,
                 "Time floor: an estimated time must also grow by at least this many microseconds")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--min-share", options.min_share,
                 "Time floor as a percentage of the module's estimated time (the larger floor applies)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd.add_option_function<std::string>(
         "--min-bytes",
         [&options](const std::string& text) {
           auto size = parse_size(text);
           if (!size)
             throw CLI::ValidationError("--min-bytes",
                                        "expected a size such as 4096, 512KiB, 1MiB, got '" + text + "'");
           options.min_bytes = *size;
         },
         "Bytes floor: bytes read or written must also grow by at least SIZE; an access verdict getting worse "
         "counts on fusions reading at least SIZE")
      ->type_name("SIZE")
      ->default_str("1MiB");
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
  // Both files are read, at once, and their errors reported in order before giving up on either
  // (one after the other when both are standard input: the first reads it whole).
  std::ostringstream old_err, new_err;
  const auto launch = options.old_file == "-" && options.new_file == "-" ? std::launch::deferred : std::launch::async;
  auto old_load = std::async(launch, [&options, &old_err] {
    return analysis::load_modules({options.old_file}, options.allow_truncated, old_err);
  });
  if (launch == std::launch::deferred) old_load.wait();
  const auto new_modules = analysis::load_modules({options.new_file}, options.allow_truncated, new_err);
  const auto old_modules = old_load.get();
  err << old_err.str() << new_err.str();
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
  thresholds.min_seconds = options.min_us * 1e-6;
  thresholds.min_time_share = options.min_share / 100;
  thresholds.min_bytes = options.min_bytes;

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
        cost::CostTotals totals;
        auto entries = analysis::diff_entries(a, quiet, &totals);
        return std::make_pair(std::move(entries), totals.seconds);
      });
      cost::CostTotals new_totals;
      d.new_entries = analysis::diff_entries(b, request, &new_totals);
      d.new_totals.seconds = new_totals.seconds;
      auto [entries, old_seconds] = old_entries.get();
      d.old_entries = std::move(entries);
      d.old_totals.seconds = old_seconds;
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

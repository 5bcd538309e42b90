#include "app/lint_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "app/common_options.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/progress.hpp"
#include "app/sarif.hpp"
#include "indexing/analysis/dump_stage.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/verdicts/linter.hpp"

namespace hlo_index::app {

using analysis::baseline_key;
using analysis::find_lint_rule;
using analysis::k_lint_rule_count;
using analysis::lint_rules;
using analysis::Linter;
using analysis::LintFinding;
using analysis::LintRule;
using analysis::LintRuleInfo;
using analysis::LintRuleSet;
using analysis::LintThresholds;
using analysis::rule_info;

namespace {

using json = nlohmann::ordered_json;

std::string rule_list() {
  std::string out;
  for (const LintRuleInfo& r : lint_rules()) out.append(out.empty() ? "" : ", ").append(r.id);
  return out;
}

// The rules --enable and --disable leave on, or an error message.
std::optional<LintRuleSet> selected_rules(const LintOptions& options, std::ostream& err) {
  LintRuleSet rules;
  bool ok = true;
  auto lookup = [&](const std::string& id, const char* flag) -> std::optional<LintRule> {
    auto rule = find_lint_rule(id);
    if (!rule) {
      err << fmt::format("hlo-index: error: unknown rule '{}' in {} (rules: {})\n", id, flag, rule_list());
      ok = false;
    }
    return rule;
  };
  if (options.enable.empty()) rules.set();
  for (const std::string& id : options.enable) {
    if (auto rule = lookup(id, "--enable")) rules.set(static_cast<std::size_t>(*rule));
  }
  for (const std::string& id : options.disable) {
    if (auto rule = lookup(id, "--disable")) rules.reset(static_cast<std::size_t>(*rule));
  }
  if (!ok) return std::nullopt;
  return rules;
}

bool check_thresholds(const LintThresholds& t, std::ostream& err) {
  bool ok = true;
  auto fail = [&](const std::string& message) {
    err << "hlo-index: error: " << message << "\n";
    ok = false;
  };
  if (!(t.min_utilisation >= 0 && t.min_utilisation <= 1))
    fail(fmt::format("--min-utilisation must be between 0 and 1 (got {})", t.min_utilisation));
  if (!(t.max_multiplicity >= 0) || std::isinf(t.max_multiplicity))
    fail(fmt::format("--max-multiplicity must be a number >= 0 (got {})", t.max_multiplicity));
  if (!(t.min_saved_seconds >= 0) || std::isinf(t.min_saved_seconds))
    fail(fmt::format("--min-saved-us must be a number >= 0 (got {})", t.min_saved_seconds * 1e6));
  if (!(t.min_saved_share >= 0 && t.min_saved_share <= 1))
    fail(fmt::format("--min-saved-share must be between 0 and 1 (got {})", t.min_saved_share));
  if (t.duplicated_read_min_maps < 2)
    fail(fmt::format("--duplicated-read-min-maps must be at least 2 (got {})", t.duplicated_read_min_maps));
  const std::pair<const char*, std::int64_t> sizes[] = {{"--uncoalesced-min-bytes", t.uncoalesced_min_bytes},
                                                        {"--low-utilisation-min-bytes", t.low_utilisation_min_bytes},
                                                        {"--duplicated-read-min-bytes", t.duplicated_read_min_bytes}};
  for (const auto& [flag, value] : sizes) {
    if (value < 0) fail(fmt::format("{} must not be negative (got {})", flag, value));
  }
  return ok;
}

// A baseline file: one finding key per line (see baseline_key: `RULE MODULE FINGERPRINT
// OPERAND`, or the names of baselines written before fingerprints: `RULE MODULE COMPUTATION
// INSTRUCTION OPERAND`), `#` starts a comment (also after the key).
std::optional<std::set<std::string>> read_baseline(const std::string& path, std::ostream& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err << fmt::format("{}: error: cannot open baseline file\n", path);
    return std::nullopt;
  }
  std::set<std::string> keys;
  bool ok = true;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (fields.empty()) continue;
    std::string problem;
    if (fields.size() != 4 && fields.size() != 5) {
      problem = fmt::format(
          "expected 4 fields (RULE MODULE FINGERPRINT OPERAND) or 5 (RULE MODULE COMPUTATION INSTRUCTION "
          "OPERAND), found {}",
          fields.size());
    } else if (!find_lint_rule(fields[0])) {
      problem = fmt::format("unknown rule '{}'", fields[0]);
    } else if (fields.back() != "-" && fields.back().find_first_not_of("0123456789") != std::string::npos) {
      problem = fmt::format("the operand must be a number or '-', not '{}'", fields.back());
    }
    if (!problem.empty()) {
      err << fmt::format("{}:{}: error: {}\n", path, number, problem);
      ok = false;
      continue;
    }
    keys.insert(fmt::format("{}", fmt::join(fields, " ")));
  }
  if (!ok) return std::nullopt;
  return keys;
}

bool write_baseline(const std::string& path, const std::vector<LintFinding>& findings, std::ostream& err) {
  // Each key with the names it had when written, as a comment (names change, keys do not).
  std::map<std::string, std::string> keys;
  for (const LintFinding& f : findings) {
    keys.try_emplace(baseline_key(f), fmt::format("{}/{}", f.computation, f.instruction));
  }
  std::ofstream out(path, std::ios::binary);
  out << "# hlo-index lint baseline: findings to ignore, one per line:\n"
         "# RULE MODULE FINGERPRINT OPERAND ('-': the whole instruction). The fingerprint is the\n"
         "# instruction's structure, not its name: it survives renumbering and reordering.\n"
         "# Written by `hlo-index lint --write-baseline`; read by `--baseline`.\n";
  for (const auto& [key, names] : keys) out << key << "  # " << names << "\n";
  out.flush();
  if (!out) {
    err << fmt::format("{}: error: cannot write baseline file\n", path);
    return false;
  }
  err << fmt::format("hlo-index lint: wrote {} finding{} to {}\n", keys.size(), keys.size() == 1 ? "" : "s", path);
  return true;
}

std::string text_line(const LintFinding& f) {
  std::string out = f.file;
  if (f.line > 0) out += fmt::format(":{}:{}", f.line, f.column);
  const LintRuleInfo& rule = rule_info(f.rule);
  out.append(": ").append(level_name(rule.level)).append(": [").append(rule.id).append("] ");
  out.append(f.message);
  if (!f.op_name.empty() || !f.source.empty()) {
    std::vector<std::string> from;
    if (!f.op_name.empty()) from.push_back(f.op_name);
    if (!f.source.empty()) from.push_back(f.source);
    out.append(fmt::format(" [from {}]", fmt::join(from, " at ")));
  }
  out.append("\n");
  return out;
}

json finding_json(const LintFinding& f) {
  json j{{"rule", std::string(rule_info(f.rule).id)},
         {"level", std::string(level_name(rule_info(f.rule).level))},
         {"file", f.file},
         {"line", f.line},
         {"column", f.column},
         {"module", f.module},
         {"computation", f.computation},
         {"instruction", f.instruction}};
  if (f.operand) {
    j["operand"] = *f.operand;
    j["operand_name"] = f.operand_name;
  }
  j["fingerprint"] = f.fingerprint;
  j["op_name"] = f.op_name.empty() ? json(nullptr) : json(f.op_name);
  j["source"] = f.source.empty() ? json(nullptr) : json(f.source);
  j["message"] = f.message;
  j["values"] = f.values;
  return j;
}

std::size_t note_count(const std::vector<LintFinding>& findings) {
  return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(), [](const LintFinding& f) {
    return rule_info(f.rule).level == analysis::LintLevel::kNote;
  }));
}

struct Totals {
  std::size_t modules = 0, linted = 0, suppressed = 0;
  std::array<std::size_t, k_lint_rule_count> by_rule{};
};

std::string summary_text(const std::vector<LintFinding>& findings, const Totals& t, bool all_instructions) {
  std::string out = "hlo-index lint: ";
  if (findings.empty()) {
    out += "no findings";
  } else {
    std::vector<std::string> parts;
    for (const LintRuleInfo& r : lint_rules()) {
      const std::size_t n = t.by_rule[static_cast<std::size_t>(r.rule)];
      if (n != 0) parts.push_back(fmt::format("{}: {}", r.id, n));
    }
    out += fmt::format("{} finding{} ({})", findings.size(), findings.size() == 1 ? "" : "s", fmt::join(parts, ", "));
    const std::size_t notes = note_count(findings);
    if (notes == findings.size()) {
      out += notes == 1 ? ", a note" : ", all notes";
    } else if (notes != 0) {
      out += notes == 1 ? std::string(", 1 of them a note") : fmt::format(", {} of them notes", notes);
    }
  }
  const char* what = all_instructions ? "instruction" : "fusion";
  out += fmt::format("; {} {}{} linted in {} module{}", t.linted, what, t.linted == 1 ? "" : "s", t.modules,
                     t.modules == 1 ? "" : "s");
  if (t.suppressed != 0) out += fmt::format("; {} suppressed by the baseline", t.suppressed);
  return out + "\n";
}

json summary_json(const std::vector<LintFinding>& findings, const Totals& t, const LintRuleSet& rules) {
  json by_rule = json::object();
  for (const LintRuleInfo& r : lint_rules()) {
    const auto index = static_cast<std::size_t>(r.rule);
    if (rules[index]) by_rule[std::string(r.id)] = t.by_rule[index];
  }
  return json{{"findings", findings.size()},
              {"notes", note_count(findings)},
              {"by_rule", std::move(by_rule)},
              {"suppressed", t.suppressed},
              {"linted", t.linted},
              {"modules", t.modules}};
}

void list_rules(std::ostream& out) {
  for (const LintRuleInfo& r : lint_rules()) {
    out << r.id << ": " << r.summary << "\n";
    out << "  " << r.description << "\n";
    if (!r.thresholds.empty()) out << "  thresholds: " << r.thresholds << "\n";
  }
}

// `--explain RULE`: the rule's whole documentation; an unknown rule lists the rules.
int explain_rule(const std::string& id, std::ostream& out, std::ostream& err) {
  const std::optional<LintRule> rule = analysis::find_lint_rule(id);
  if (!rule) {
    err << "hlo-index lint: error: unknown rule '" << id << "' for --explain; the rules are:";
    for (const LintRuleInfo& r : lint_rules()) err << " " << r.id;
    err << "\n";
    return k_exit_input_error;
  }
  const LintRuleInfo& r = rule_info(*rule);
  out << r.id << ": " << r.summary << "\n\n" << r.description << "\n\n";
  if (!r.thresholds.empty()) out << "Thresholds: " << r.thresholds << "\n";
  out << "Usual fix: " << analysis::rule_fix(*rule) << "\n";
  out << "Disable with: hlo-index lint --disable " << r.id << "\n";
  return k_exit_ok;
}

}  // namespace

std::optional<std::int64_t> parse_size(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || p == text.data() || value < 0) return std::nullopt;
  std::string_view unit(p, static_cast<std::size_t>(end - p));
  if (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  int shift = -1;
  if (unit.empty() || unit == "B")
    shift = 0;
  else if (unit == "KiB")
    shift = 10;
  else if (unit == "MiB")
    shift = 20;
  else if (unit == "GiB")
    shift = 30;
  if (shift < 0 || value > (std::numeric_limits<std::int64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

void add_lint_options(CLI::App& cmd, LintOptions& options) {
  cmd.add_option("files", options.files,
                 "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files, at any "
                 "depth, in sorted order)");
  cmd.add_option("--format", options.format, "Output format: compiler-style text, JSON or SARIF 2.1.0")
      ->check(CLI::IsMember({"text", "json", "sarif"}))
      ->capture_default_str();
  cmd.add_option("--enable", options.enable, "Only these rules (comma-separated, repeatable; default: every rule)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("RULE");
  cmd.add_option("--disable", options.disable, "Not these rules (comma-separated, repeatable)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("RULE");
  cmd.add_flag("--list-rules", options.list_rules, "Print the rules with their thresholds and exit");
  cmd.add_option("--explain", options.explain,
                 "Print the documentation of RULE (what it means, its threshold, "
                 "what it does not flag, the usual fix) and exit");
  cmd.add_flag("--all-instructions", options.all_instructions,
               "Lint every instruction of the non-fused computations, not only the fusions");
  add_target_option(cmd, options.target, "uncoalesced-read judges reads for");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--match", options.match, "Only instructions whose name contains a match of this ECMAScript regex")
      ->type_name("REGEX");
  cmd.add_option("--baseline", options.baseline, "Drop the findings listed in FILE (written by --write-baseline)")
      ->type_name("FILE");
  cmd.add_option("--write-baseline", options.write_baseline,
                 "Write every current finding to FILE (sorted; --baseline is not applied) and exit 0")
      ->type_name("FILE");
  auto size_option = [&cmd](const char* name, std::int64_t& target, const char* help) {
    cmd.add_option_function<std::string>(
           name,
           [&target, name](const std::string& text) {
             auto size = parse_size(text);
             if (!size) {
               throw CLI::ValidationError(name, "expected a size such as 4096, 512KiB, 1MiB, got '" + text + "'");
             }
             target = *size;
           },
           help)
        ->type_name("SIZE")
        ->default_str("1MiB");
  };
  LintThresholds& t = options.thresholds;
  size_option("--uncoalesced-min-bytes", t.uncoalesced_min_bytes, "uncoalesced-read: only operands of at least SIZE");
  cmd.add_option("--min-utilisation", t.min_utilisation,
                 "low-utilisation: fires when less than this fraction of the operand is read")
      ->capture_default_str();
  size_option("--low-utilisation-min-bytes", t.low_utilisation_min_bytes,
              "low-utilisation: only operands of at least SIZE");
  cmd.add_option("--max-multiplicity", t.max_multiplicity,
                 "costly-recompute: only producers a fusion evaluates more than this many times per element")
      ->capture_default_str();
  cmd.add_option_function<double>(
         "--min-saved-us", [&t](double us) { t.min_saved_seconds = us * 1e-6; },
         "costly-recompute, missed-fusion: fire only when the estimated time saved (over the runs of the "
         "computation) is at least this many microseconds")
      ->type_name("US")
      ->default_str("1");
  cmd.add_option("--min-saved-share", t.min_saved_share,
                 "costly-recompute, missed-fusion: ... and at least this share of the module's estimated time")
      ->capture_default_str();
  add_device_options(cmd, options.device);
  cmd.add_option("--duplicated-read-min-maps", t.duplicated_read_min_maps,
                 "duplicated-read: fires when an operand is read through at least this many distinct maps, two of "
                 "them overlapping")
      ->capture_default_str();
  size_option("--duplicated-read-min-bytes", t.duplicated_read_min_bytes,
              "duplicated-read: only operands of at least SIZE");
  add_analysis_run_options(cmd, options, " (an unknown-indexing finding)");
}

void setup_lint_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LintOptions>();
  CLI::App* cmd = app.add_subcommand("lint", "Warnings about the memory reads of every fusion, for CI");
  cmd->footer(
      "Lints every fusion of every computation that is not a fusion body (the fusion decisions CI cares\n"
      "about; --all-instructions adds every other instruction) from its exact indexing maps:\n"
      "  uncoalesced-read      strided or irregular reads by consecutive GPU threads (one thread per output\n"
      "                        element, warps of 32, 128-byte segments), operands >= --uncoalesced-min-bytes\n"
      "  low-utilisation       reads less than --min-utilisation (0.5) of an operand\n"
      "                        >= --low-utilisation-min-bytes\n"
      "  costly-recompute      a fusion recomputes a fused producer where computing it once in a fusion of its\n"
      "                        own saves >= --min-saved-us (1) and >= --min-saved-share (0.01) of the module's\n"
      "                        estimated time on --device (high-multiplicity, its former name, still selects it)\n"
      "  duplicated-read       a fusion reads common elements of an operand through >= --duplicated-read-min-maps\n"
      "                        (2) distinct maps, operands >= --duplicated-read-min-bytes\n"
      "  unknown-indexing      note: an instruction hlo-index cannot analyse (one each, with the reason)\n"
      "  approximate-indexing  note: an instruction with approximate maps (counts are upper bounds)\n"
      "  missed-fusion         a producer whose intermediate its consumers read back, where fusing it (as XLA's\n"
      "                        rules allow) saves >= --min-saved-us and >= --min-saved-share of the module's time\n"
      "Dumps taken before optimisation (no fusions) are said to be so once per module; the fusion-decision\n"
      "rules (costly-recompute, missed-fusion) do not judge them.\n"
      "Size thresholds default to 1MiB (the operand's whole size). --list-rules lists the rules, --explain RULE\n"
      "explains one (what it means, what it does not flag, the usual fix).\n"
      "Output: `FILE:LINE:COL: warning: [rule] message` lines (`note:` for the two notes, which say what\n"
      "hlo-index could not judge exactly) on stdout, sorted by file, line, column and\n"
      "rule (or --format json / sarif); diagnostics and a summary line (`hlo-index lint: N findings (rule: n,\n"
      "...)`) on stderr. A baseline file lists findings to ignore by rule, module, computation, instruction\n"
      "and operand (no line numbers, so it survives edits): --write-baseline FILE writes the current ones.\n"
      "Warnings make the exit code 1; notes alone do not.\n\n"
      "Examples:\n"
      "  hlo-index lint model.hlo\n"
      "  hlo-index lint model.hlo --disable approximate-indexing --min-utilisation 0.25\n"
      "  hlo-index lint dumps/*.hlo --write-baseline lint.baseline   # accept what is there today\n"
      "  hlo-index lint dumps/*.hlo --baseline lint.baseline --format sarif > lint.sarif");
  add_lint_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_lint_command(*options, std::cout, std::cerr); });
}

namespace {

// Checks the command line; prints what is wrong. The rules to run, or nullopt.
std::optional<LintRuleSet> checked_options(const LintOptions& options, std::ostream& err) {
  if (options.files.empty()) {
    err << "hlo-index: error: lint needs at least one file (see --help)\n";
    return std::nullopt;
  }
  const std::optional<LintRuleSet> rules = selected_rules(options, err);
  const bool thresholds_ok = check_thresholds(options.thresholds, err);
  if (options.format != "text" && options.format != "json" && options.format != "sarif") {
    err << fmt::format("hlo-index: error: unknown format '{}' (text, json or sarif)\n", options.format);
    return std::nullopt;
  }
  if (!thresholds_ok) return std::nullopt;
  return rules;
}

// The findings of every module, sorted.
std::vector<LintFinding> lint_modules(const std::vector<hlo::Module>& modules, LintRuleSet rules,
                                      const LintOptions& options, const analysis::InstructionFilter& filter,
                                      const cost::Device* device, Totals& totals, Progress& progress) {
  for (const hlo::Module& module : modules) totals.modules += filter.accepts_module(module) ? 1 : 0;
  const std::vector<analysis::WorkItem> items = analysis::linted_items(modules, filter, options.all_instructions);
  totals.linted = items.size();
  const std::optional<analysis::Target> target = analysis::parse_target(options.target);
  std::vector<LintFinding> findings;
  std::optional<std::size_t> shown_module;
  analysis::run_in_program_order(
      items, analysis::resolve_jobs(options.jobs),
      [&](std::size_t module) {
        auto linter = std::make_unique<Linter>(modules[module], rules, options.thresholds);
        linter->set_target(target);
        linter->set_device(device);
        return linter;
      },
      [](Linter& linter, const analysis::WorkItem& item) { return linter.lint(item.computation, item.instruction); },
      [&](std::size_t k, std::vector<LintFinding>&& found) {
        if (shown_module != items[k].module) {
          shown_module = items[k].module;
          progress.module(items[k].module, modules.size(), modules[items[k].module].name);
        }
        for (LintFinding& f : found) findings.push_back(std::move(f));
        progress.instruction_done();
      });
  std::sort(findings.begin(), findings.end());
  return findings;
}

void drop_baseline(const std::set<std::string>& baseline, std::vector<LintFinding>& findings, Totals& totals) {
  const auto kept = std::remove_if(findings.begin(), findings.end(), [&](const LintFinding& f) {
    return baseline.count(baseline_key(f)) != 0 || baseline.count(analysis::legacy_baseline_key(f)) != 0;
  });
  totals.suppressed = static_cast<std::size_t>(findings.end() - kept);
  findings.erase(kept, findings.end());
}

void print_findings(const std::vector<LintFinding>& findings, const Totals& totals, LintRuleSet rules,
                    const std::string& format, std::ostream& out) {
  if (format == "text") {
    for (const LintFinding& f : findings) out << text_line(f);
  } else if (format == "json") {
    json list = json::array();
    for (const LintFinding& f : findings) list.push_back(finding_json(f));
    json document{{"findings", std::move(list)}, {"summary", summary_json(findings, totals, rules)}};
    out << document.dump(2) << "\n";
  } else {
    out << sarif_log(findings).dump(2) << "\n";
  }
}

}  // namespace

int run_lint_command(const LintOptions& options, std::ostream& out, std::ostream& err) {
  if (options.list_rules) {
    list_rules(out);
    return k_exit_ok;
  }
  if (!options.explain.empty()) return explain_rule(options.explain, out, err);
  const std::optional<LintRuleSet> rules = checked_options(options, err);
  if (!rules) return k_exit_input_error;
  std::optional<std::set<std::string>> baseline;
  if (!options.baseline.empty() && options.write_baseline.empty()) {
    baseline = read_baseline(options.baseline, err);
    if (!baseline) return k_exit_input_error;
  }
  const std::optional<analysis::InstructionFilter> filter =
      analysis::module_and_match_filter(options.modules, options.match, err);
  if (!filter) return k_exit_input_error;
  const std::optional<ChosenDevice> device = choose_device(options.device, err);
  if (!device) return k_exit_input_error;
  bool some_input_failed = false;
  const std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(options.files, options.allow_truncated, *filter, err, &some_input_failed);
  if (!modules) return k_exit_input_error;
  for (const hlo::Module& module : *modules) {
    if (!filter->accepts_module(module)) continue;
    const analysis::DumpStage stage = analysis::dump_stage(module);
    if (stage.before_optimisation)
      err << fmt::format(
          "hlo-index lint: note: module {} is a dump taken before optimisation ({}): XLA's layout assignment and "
          "fusion would change its reads, and costly-recompute and missed-fusion do not judge it\n",
          module.name, stage.evidence);
  }

  ScopedAnalysisLimits limit(options.isl_max_operations, options.time_limit_per_instruction);
  Totals totals;
  std::vector<LintFinding> findings;
  {
    Progress progress(err, "hlo-index lint", progress_wanted(options.format));  // erased before the findings
    findings = lint_modules(*modules, *rules, options, *filter, device->get(), totals, progress);
  }
  if (!options.write_baseline.empty()) {
    return write_baseline(options.write_baseline, findings, err) ? k_exit_ok : k_exit_input_error;
  }
  if (baseline) drop_baseline(*baseline, findings, totals);
  for (const LintFinding& f : findings) ++totals.by_rule[static_cast<std::size_t>(f.rule)];
  print_findings(findings, totals, *rules, options.format, out);
  err << summary_text(findings, totals, options.all_instructions);
  // Notes say what hlo-index could not judge; only warnings, findings about the HLO, fail the run.
  return exit_code_after_input(some_input_failed,
                               note_count(findings) == findings.size() ? k_exit_ok : k_exit_lint_findings, err);
}

}  // namespace hlo_index::app

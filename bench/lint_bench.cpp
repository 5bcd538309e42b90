// bench/lint: lints every file given (default: every file of ../shared/corpus)
// with the default rules and thresholds, as `hlo-index lint` does, and reports
// per file the parse and lint times and the findings, the total, and the
// slowest instructions. Single-threaded. Prints figures only.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_clock.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/verdicts/linter.hpp"
#include "parser/parse.hpp"

namespace {

struct Timed {
  double seconds = 0;
  std::string name;  // computation/instruction
  std::string file;
};

std::vector<std::string> corpus_files(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

using hlo_index::bench::peak_rss_kib;
using hlo_index::bench::seconds_since;
using namespace hlo_index;

struct Totals {
  std::vector<Timed> timings;
  std::array<std::size_t, analysis::k_lint_rule_count> by_rule{};
  double parse = 0, lint = 0;
  std::size_t findings = 0, linted = 0, failed = 0;
};

// Lints one module, timing each instruction; returns the findings.
std::size_t lint_module(const hlo::Module& module, bool all_instructions, const std::string& path, Totals& totals,
                        std::size_t& linted) {
  std::size_t findings = 0;
  analysis::Linter linter(module, analysis::LintRuleSet().set(), {});
  for (std::uint32_t ci : analysis::analysed_computations(module)) {
    const hlo::Computation& c = module.computations[ci];
    for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
      if (!analysis::linted_instruction(c.instructions[ii], all_instructions)) continue;
      const auto t = std::chrono::steady_clock::now();
      const auto found = linter.lint(ci, ii);
      totals.timings.push_back(
          {seconds_since(t), std::string(c.name) + "/" + std::string(c.instructions[ii].name), path});
      ++linted;
      findings += found.size();
      for (const auto& f : found) ++totals.by_rule[static_cast<std::size_t>(f.rule)];
    }
  }
  return findings;
}

void bench_file(const std::string& path, bool all_instructions, Totals& totals) {
  parser::DiagnosticEngine diagnostics;
  auto source = parser::read_source(path, diagnostics);
  if (!source) {
    ++totals.failed;
    return;
  }
  auto start = std::chrono::steady_clock::now();
  auto modules = parser::parse_hlo(source, diagnostics, {true});
  const double parse_s = seconds_since(start);
  if (diagnostics.has_errors()) ++totals.failed;
  std::size_t findings = 0, linted = 0;
  start = std::chrono::steady_clock::now();
  for (const hlo::Module& module : modules) findings += lint_module(module, all_instructions, path, totals, linted);
  const double lint_s = seconds_since(start);
  std::printf("%9.3f %9.3f %8zu %9zu  %s (%.1f MB)%s\n", parse_s, lint_s, linted, findings, path.c_str(),
              static_cast<double>(source->text().size()) / 1e6, diagnostics.has_errors() ? " [parse errors]" : "");
  totals.parse += parse_s;
  totals.lint += lint_s;
  totals.findings += findings;
  totals.linted += linted;
}

void print_totals(Totals& totals, std::size_t files, bool all_instructions) {
  std::printf(
      "total: %zu files (%zu with errors), parse %.3f s, lint %.3f s, %zu %s linted, %zu findings, peak RSS "
      "%.1f MiB\n",
      files, totals.failed, totals.parse, totals.lint, totals.linted, all_instructions ? "instructions" : "fusions",
      totals.findings, static_cast<double>(peak_rss_kib()) / 1024);
  std::printf("findings by rule:");
  for (const analysis::LintRuleInfo& r : analysis::lint_rules())
    std::printf(" %.*s %zu", static_cast<int>(r.id.size()), r.id.data(),
                totals.by_rule[static_cast<std::size_t>(r.rule)]);
  std::printf("\n");
  auto& timings = totals.timings;
  std::sort(timings.begin(), timings.end(), [](const Timed& a, const Timed& b) { return a.seconds > b.seconds; });
  for (std::size_t k = 0; k < timings.size() && k < 5; ++k) {
    std::printf("  slowest #%zu: %.2f ms  %s  (%s)\n", k + 1, timings[k].seconds * 1e3, timings[k].name.c_str(),
                timings[k].file.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool all_instructions = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--all-instructions") {
      all_instructions = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: lint_bench [--all-instructions] [FILE...]   (default: every file of ../shared/corpus)\n");
      return 0;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) files = corpus_files("../shared/corpus");
  if (files.empty()) {
    std::fprintf(stderr, "lint_bench: no files (and no ../shared/corpus)\n");
    return 2;
  }
  Totals totals;
  std::printf("%9s %9s %8s %9s  %s\n", "parse s", "lint s", "linted", "findings", "file");
  for (const std::string& path : files) bench_file(path, all_instructions, totals);
  print_totals(totals, files.size(), all_instructions);
  return 0;
}

// libFuzzer target: what `hlo-index analyze --utilisation --coalescing --physical`
// and `hlo-index lint` do with a module, under small limits so each input stays
// fast: inputs past 64 KiB are skipped, isl gets a small operation budget and
// every instruction a short time limit (past them the answers are UNDEFINED or
// upper bounds, which is the behaviour under test, not a failure).
#include <cstddef>
#include <cstdint>
#include <string>

#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/verdicts/linter.hpp"
#include "parser/parse.hpp"

namespace {

using namespace hlo_index;

constexpr std::size_t k_max_input = 64 * 1024;
constexpr double k_time_limit_seconds = 0.5;
constexpr std::size_t k_max_instructions = 64;  // per module and pass, to bound the time per input

void analyze(const hlo::Module& module) {
  indexing::AnalysisOptions options;
  options.time_limit_per_instruction = k_time_limit_seconds;
  analysis::ModuleAnalysis analysis(module, options);
  analysis::ReportRequest request;
  request.input_to_output = true;
  request.physical = true;
  request.utilisation = true;
  request.read_patterns = true;
  std::size_t done = 0;
  for (std::uint32_t ci = 0; ci < module.computations.size() && done < k_max_instructions; ++ci) {
    for (std::uint32_t ii = 0; ii < module.computations[ci].instructions.size() && done < k_max_instructions; ++ii) {
      (void)analysis::report_instruction(analysis, ci, ii, request);
      ++done;
    }
  }
}

void lint(const hlo::Module& module) {
  analysis::Linter linter(module, analysis::LintRuleSet().set(), analysis::LintThresholds{});
  std::size_t done = 0;
  for (std::uint32_t ci = 0; ci < module.computations.size() && done < k_max_instructions; ++ci) {
    for (std::uint32_t ii = 0; ii < module.computations[ci].instructions.size() && done < k_max_instructions; ++ii) {
      if (!analysis::linted_instruction(module.computations[ci].instructions[ii], true)) continue;
      (void)linter.lint(ci, ii);
      ++done;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > k_max_input) return 0;
  indexing::IslContext::get().set_operation_limit(50'000);
  const indexing::ScopedTimeLimit time_limit(k_time_limit_seconds);
  parser::DiagnosticEngine diagnostics;
  const std::vector<hlo::Module> modules =
      parser::parse_hlo_text(std::string(reinterpret_cast<const char*>(data), size), "<fuzz>", diagnostics);
  for (const hlo::Module& module : modules) {
    analyze(module);
    lint(module);
  }
  return 0;
}

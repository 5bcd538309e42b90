// bench/analyze: analyses every instruction of one file (both directions,
// exact style) and reports the parse time, the whole analysis time, the
// slowest instructions and the peak memory, all from the same run.
// Single-threaded. Prints figures only.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_clock.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "parser/parse.hpp"

namespace {
struct Timed {
  double seconds;
  std::string name;
};
}  // namespace

int main(int argc, char** argv) {
  using hlo_index::bench::peak_rss_kib;
  using hlo_index::bench::seconds_since;
  using namespace hlo_index;
  if (argc < 2) {
    std::fprintf(stderr, "usage: analyze_bench FILE [both] [--xla-compat] [--slowest N]\n");
    return 2;
  }
  const std::string path = argv[1];
  bool both = false, xla = false;
  std::size_t slowest = 5;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "both") both = true;
    if (a == "--xla-compat") xla = true;
    if (a == "--slowest" && i + 1 < argc) slowest = std::stoul(argv[++i]);
  }
  parser::DiagnosticEngine diagnostics;
  auto source = parser::read_source(path, diagnostics);
  if (!source) return 2;
  auto start = std::chrono::steady_clock::now();
  auto modules = parser::parse_hlo(source, diagnostics, {true});
  const double parse_s = seconds_since(start);
  const long rss_parsed = peak_rss_kib();

  indexing::AnalysisOptions options;
  options.style = xla ? indexing::MapStyle::kXla : indexing::MapStyle::kExact;
  std::vector<Timed> timings;
  std::size_t instructions = 0, maps = 0, hits = 0;
  std::size_t simplify_hits = 0, simplify_misses = 0, verdict_hits = 0, verdict_misses = 0;
  start = std::chrono::steady_clock::now();
  for (const hlo::Module& module : modules) {
    indexing::IndexingAnalysis analysis(module, options);
    for (std::uint32_t c = 0; c < module.computations.size(); ++c) {
      const hlo::Computation& comp = module.computations[c];
      for (std::uint32_t i = 0; i < comp.instructions.size(); ++i) {
        auto t = std::chrono::steady_clock::now();
        auto result = analysis.analyze(c, i, true, both);
        timings.push_back({seconds_since(t), std::string(comp.name) + "/" + std::string(comp.instructions[i].name)});
        ++instructions;
        for (const auto& output : result.output_to_input)
          for (const auto& set : output) maps += set.size();
        for (const auto& output : result.input_to_output)
          for (const auto& set : output) maps += set.size();
      }
    }
    hits += analysis.memo_hits();
    simplify_hits += analysis.final_memo().simplify_hits();
    simplify_misses += analysis.final_memo().simplify_misses();
    verdict_hits += analysis.final_memo().verdict_hits();
    verdict_misses += analysis.final_memo().verdict_misses();
  }
  const double analyze_s = seconds_since(start);
  std::sort(timings.begin(), timings.end(), [](const Timed& a, const Timed& b) { return a.seconds > b.seconds; });
  std::printf("file: %s (%.1f MB)\n", path.c_str(), static_cast<double>(source->text().size()) / 1e6);
  std::printf("parse: %.3f s, peak RSS after parsing %.1f MiB\n", parse_s, static_cast<double>(rss_parsed) / 1024);
  std::printf(
      "analysis (%s%s): %zu instructions (every computation, fusion bodies included), %zu maps, %zu memo hits\n",
      both ? "both directions" : "out2in", xla ? ", xla-compat" : "", instructions, maps, hits);
  std::printf(
      "composed maps: final simplifications %zu from the memo, %zu computed; dedup verdicts %zu from the "
      "memo, %zu computed\n",
      simplify_hits, simplify_misses, verdict_hits, verdict_misses);
  std::printf("analysis: %.3f s total, peak RSS %.1f MiB\n", analyze_s, static_cast<double>(peak_rss_kib()) / 1024);
  for (std::size_t k = 0; k < timings.size() && k < slowest; ++k) {
    std::printf("  slowest #%zu: %.2f ms  %s\n", k + 1, timings[k].seconds * 1e3, timings[k].name.c_str());
  }
  return diagnostics.has_errors() ? 1 : 0;
}

// bench/tile: tiles every fusion of the files given (default: every file of ../shared/corpus) and runs
// the tile search on it, as `hlo-index tile FILE --instruction F` does on the module's default device;
// reports the time per fusion (derivation and search; the module's maps are shared, as in one run of
// the command over a module), the slowest fusions, how many XLA would tile, and whether a second run
// with a fresh analysis gives the same answer (determinism). Single-threaded. Prints figures only.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_clock.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/tiles/tile_search.hpp"
#include "parser/parse.hpp"

namespace {

using namespace hlo_index;
using hlo_index::bench::seconds_since;

struct Timed {
  double seconds = 0;
  std::string name;
};

std::vector<std::string> corpus_files(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  if (!std::filesystem::exists(dir)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

// The search's answer as text, for the determinism check.
std::string answer(const tiles::TiledFusion& f, const tiles::TileSearch& s) {
  std::string out = f.constraints.to_string() + ";";
  for (const tiles::TilingEstimate& e : s.best) out += fmt::format("({}) {:.9g};", fmt::join(e.sizes, ","), e.seconds);
  return out + s.note;
}

struct Totals {
  std::vector<Timed> timings;
  std::size_t fusions = 0, xla_tiles = 0, no_tiling = 0, beyond = 0, differ = 0, failed = 0;
};

std::vector<std::string> run_module(const hlo::Module& module, const std::string& path, Totals* totals) {
  std::vector<std::string> answers;
  analysis::ModuleAnalysis analysis(module, indexing::AnalysisOptions{});
  cost::CostModel costs(analysis, cost::device_for(module, nullptr));
  for (std::uint32_t ci : analysis::analysed_computations(module)) {
    const hlo::Computation& c = module.computations[ci];
    for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
      if (c.instructions[ii].opcode != hlo::Opcode::kFusion) continue;
      const auto t = std::chrono::steady_clock::now();
      const tiles::TiledFusion f = tiles::tile_instruction(analysis, ci, ii);
      const tiles::TileSearch s = tiles::search_tilings(f, costs, 5);
      const double seconds = seconds_since(t);
      answers.push_back(answer(f, s));
      if (totals == nullptr) continue;
      ++totals->fusions;
      totals->timings.push_back({seconds, fmt::format("{} {}", path, c.instructions[ii].name)});
      if (f.all_tiled) ++totals->xla_tiles;
      if (s.best.empty()) ++totals->no_tiling;
      if (s.accepted_exactly > 0) ++totals->beyond;
    }
  }
  return answers;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) files.emplace_back(argv[i]);
  if (files.empty()) files = corpus_files("../shared/corpus");
  if (files.empty()) files = corpus_files("/work/shared/corpus");
  Totals totals;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& path : files) {
    parser::DiagnosticEngine diagnostics;
    auto source = parser::read_source(path, diagnostics);
    if (!source) {
      ++totals.failed;
      continue;
    }
    const auto modules = parser::parse_hlo(source, diagnostics, {true});
    for (const hlo::Module& module : modules) {
      const std::vector<std::string> first = run_module(module, path, &totals);
      const std::vector<std::string> second = run_module(module, path, nullptr);
      for (std::size_t k = 0; k < first.size(); ++k) totals.differ += k >= second.size() || first[k] != second[k];
    }
  }
  const double total = seconds_since(start);
  std::vector<Timed> t = totals.timings;
  std::sort(t.begin(), t.end(), [](const Timed& a, const Timed& b) { return a.seconds > b.seconds; });
  std::vector<double> s;
  s.reserve(t.size());
  for (const Timed& x : t) s.push_back(x.seconds);
  std::sort(s.begin(), s.end());
  auto at = [&](double q) {
    return s.empty() ? 0.0 : s[std::min(s.size() - 1, static_cast<std::size_t>(q * static_cast<double>(s.size())))];
  };
  const auto over = static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](double x) { return x > 1.0; }));
  std::printf("tile bench: %zu files, %zu fusions in %.2f s (each searched twice for determinism)\n", files.size(),
              totals.fusions, total);
  std::printf(
      "per fusion (first run: tiles + search): median %.4f s, p90 %.4f s, p99 %.4f s, max %.4f s; over 1 s: %zu\n",
      at(0.5), at(0.9), at(0.99), s.empty() ? 0.0 : s.back(), over);
  std::printf(
      "XLA would tile %zu fusions; no tiling found for %zu; tilings XLA rejects accepted by exact counts in %zu\n",
      totals.xla_tiles, totals.no_tiling, totals.beyond);
  std::printf("answers differing between the two runs: %zu; unreadable files: %zu\n", totals.differ, totals.failed);
  std::printf("slowest:\n");
  for (std::size_t k = 0; k < t.size() && k < 10; ++k) std::printf("  %.4f s  %s\n", t[k].seconds, t[k].name.c_str());
  return 0;
}

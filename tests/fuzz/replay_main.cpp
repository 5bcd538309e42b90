// Replays saved inputs through a fuzz target's LLVMFuzzerTestOneInput without
// libFuzzer, so any compiler and the normal test suite run them:
//   fuzz_replay_<target> [--max-seconds S] [--mutants N] FILE_OR_DIR...
//   fuzz_replay_<target> --print-mutant K FILE
// With --mutants N each input also runs as N structure-aware mutants (hlo_mutator.hpp),
// mutant k of a file from a seed of its name and k; --print-mutant prints one of them.
// Directories are read one level deep, in sorted order. Each input must return
// within S seconds (default 5): a slower one fails the run, and one still
// running after 4 S is reported as a hang by a watchdog, which exits. A crash
// shows as the last "FILE ..." line without its verdict. Each input's peak
// memory (VmHWM, reset before it through /proc/self/clear_refs) must stay under
// --max-mb (default 512): runaway allocations fail the run too (not under
// AddressSanitizer, whose quarantine keeps freed memory resident).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "hlo_mutator.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// Under AddressSanitizer freed memory stays resident in its quarantine (and
// shadow memory doubles the rest), so peaks are not the program's: no memory limit.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool k_memory_checked = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool k_memory_checked = false;
#else
constexpr bool k_memory_checked = true;
#endif
#else
constexpr bool k_memory_checked = true;
#endif
using Clock = std::chrono::steady_clock;

std::vector<fs::path> inputs_of(const std::vector<std::string>& arguments) {
  std::vector<fs::path> out;
  for (const std::string& argument : arguments) {
    const fs::path path(argument);
    if (!fs::is_directory(path)) {
      if (fs::exists(path)) out.push_back(path);
      continue;  // a missing directory (no regressions yet) is no input
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(path)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    out.insert(out.end(), files.begin(), files.end());
  }
  return out;
}

// The peak resident set of the process, in MiB, since the last reset_peak().
double peak_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024;  // "VmHWM:  1234 kB"
  }
  return 0;
}

void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The seed of mutant `k` of `path`: FNV-1a of its file name, then k.
std::uint64_t mutant_seed(const fs::path& path, std::size_t k) {
  std::uint64_t h = 14695981039346656037ull;
  for (const char c : path.filename().string()) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h ^ (static_cast<std::uint64_t>(k) * 0x9e3779b97f4a7c15ull);
}

// The input being run and when it started, for the watchdog.
std::atomic<std::size_t> g_current{0};
std::atomic<long> g_current_mutant{-1};  // -1: the input itself
std::atomic<std::int64_t> g_started_ns{0};
std::atomic<bool> g_done{false};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

void watch(const std::vector<fs::path>& inputs, double hang_seconds) {
  while (!g_done.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double running = static_cast<double>(now_ns() - g_started_ns.load()) * 1e-9;
    if (!g_done.load() && running > hang_seconds) {
      std::fprintf(stderr, "\nHANG: %s (mutant %ld) still running after %.1f s\n", inputs[g_current.load()].c_str(),
                   g_current_mutant.load(), running);
      std::_Exit(1);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  double max_seconds = 5;
  double max_mb = 512;
  std::size_t mutants = 0;
  long print_mutant = -1;
  std::vector<std::string> arguments;
  for (int k = 1; k < argc; ++k) {
    const std::string argument = argv[k];
    if (argument == "--max-seconds" && k + 1 < argc) {
      max_seconds = std::stod(argv[++k]);
    } else if (argument == "--max-mb" && k + 1 < argc) {
      max_mb = std::stod(argv[++k]);
    } else if (argument == "--mutants" && k + 1 < argc) {
      mutants = std::stoul(argv[++k]);
    } else if (argument == "--print-mutant" && k + 1 < argc) {
      print_mutant = std::stol(argv[++k]);
    } else {
      arguments.push_back(argument);
    }
  }
  const std::vector<fs::path> inputs = inputs_of(arguments);
  if (inputs.empty()) {
    std::fprintf(stderr, "no inputs (give files or directories)\n");
    return 2;
  }
  if (print_mutant >= 0) {
    const std::string mutant = hlo_index::fuzz::mutate_hlo(
        contents(inputs[0]), mutant_seed(inputs[0], static_cast<std::size_t>(print_mutant)));
    std::fwrite(mutant.data(), 1, mutant.size(), stdout);
    return 0;
  }
  g_started_ns = now_ns();
  std::thread watchdog(watch, std::cref(inputs), 4 * max_seconds);
  std::size_t failed = 0;
  std::size_t runs = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string original = contents(inputs[k]);  // once for the input and all its mutants
    for (long m = -1; m < static_cast<long>(mutants); ++m) {
      const std::string data =
          m < 0 ? original : hlo_index::fuzz::mutate_hlo(original, mutant_seed(inputs[k], static_cast<std::size_t>(m)));
      if (m >= 0 && data == original) continue;
      ++runs;
      if (m < 0)
        std::printf("%s ...", inputs[k].c_str());
      else
        std::printf("%s (mutant %ld) ...", inputs[k].c_str(), m);
      std::fflush(stdout);
      g_current = k;
      g_current_mutant = m;
      reset_peak();
      const double base_mb = peak_mb();
      g_started_ns = now_ns();
      const auto start = Clock::now();
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()), data.size());
      const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
      const double mb = peak_mb() - base_mb;
      const char* verdict = seconds > max_seconds             ? "TOO SLOW"
                            : k_memory_checked && mb > max_mb ? "TOO MUCH MEMORY"
                                                              : "ok";
      failed += verdict[0] == 'o' ? 0 : 1;
      std::printf(" %s (%.3f s, +%.0f MiB)\n", verdict, seconds, mb);
    }
  }
  g_done = true;
  watchdog.join();
  std::printf("%zu inputs (%zu runs with mutants), %zu over %.1f s or %.0f MiB\n", inputs.size(), runs, failed,
              max_seconds, max_mb);
  return failed == 0 ? 0 : 1;
}

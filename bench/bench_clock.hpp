// Timing and peak memory for the benchmarks.
#pragma once

#include <sys/resource.h>

#include <chrono>

namespace hlo_index::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace hlo_index::bench

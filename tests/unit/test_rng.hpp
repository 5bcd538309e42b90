// A portable, deterministic random source for the brute-force tests. The
// standard distributions (std::uniform_int_distribution, ...) are
// implementation-defined and give different sequences with different standard
// libraries; std::mt19937_64 itself is fully specified, so drawing from it
// directly makes a seed reproduce the same cases on every machine.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace hlo_index::test {

class Rng {
public:
  explicit Rng(std::uint64_t seed) : m_engine(seed) {}

  /// Uniform in [lo, hi] (lo <= hi). Reduction modulo the span: a negligible
  /// bias for the small spans the tests draw from, and the same on every machine.
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    assert(lo <= hi);
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    const std::uint64_t draw = span == 0 ? m_engine() : m_engine() % span;  // span 0: the whole 64-bit range
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + draw);
  }
  /// True with probability percent / 100.
  bool chance(int percent) { return uniform(0, 99) < percent; }
  /// Uniform in [0, n) (n > 0).
  std::size_t index(std::size_t n) { return static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(n) - 1)); }
  /// A random permutation of 0..n-1.
  std::vector<std::int64_t> permutation(std::size_t n) {
    std::vector<std::int64_t> p(n);
    std::iota(p.begin(), p.end(), 0);
    for (std::size_t i = n; i > 1; --i) std::swap(p[i - 1], p[index(i)]);
    return p;
  }
  /// One element of a non-empty vector.
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[index(v.size())];
  }
  /// A random subset of 0..n-1 of size k, sorted.
  std::vector<std::int64_t> subset(std::size_t n, std::size_t k) {
    auto p = permutation(n);
    p.resize(k);
    std::sort(p.begin(), p.end());
    return p;
  }

private:
  std::mt19937_64 m_engine;
};

}  // namespace hlo_index::test

// bench/maps: times the indexing-map engine. Prints figures; never part of
// the test suite (targets are checked by reading the output).
//  1. compose + simplify of the seed documents' examples, per step;
//  2. a chain of 50 alternating reshapes 64x64x64 <-> 512x512 <-> 262144,
//     composed and simplified step by step, as a fusion walk would;
//  3. counting of large sets.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

#include "indexing/maps/count.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"

using namespace hlo_index;
using indexing::IndexingMap;
using simplify::Expr;

namespace {

double seconds_of(const std::function<void()>& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best and median of `runs` timings of f, in milliseconds.
std::pair<double, double> best_median_ms(int runs, const std::function<void()>& f) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) t.push_back(seconds_of(f) * 1e3);
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// Output index of shape `out` -> index of shape `in` with the same linear
// (row-major) position: the o2i map of a reshape, before simplification.
IndexingMap reshape_map(const std::vector<std::int64_t>& out, const std::vector<std::int64_t>& in) {
  std::vector<simplify::Variable> dims;
  Expr linear;
  for (std::size_t i = 0; i < out.size(); ++i) {
    dims.push_back({{0, out[i] - 1}, ""});
    linear = linear * out[i] + Expr::dim(static_cast<std::uint32_t>(i));
  }
  std::vector<Expr> results;
  std::int64_t stride = 1;
  for (std::size_t j = in.size(); j-- > 0;) {
    Expr r = simplify::floor_div(linear, stride);
    if (j > 0) r = simplify::mod(r, in[j]);
    results.insert(results.begin(), r);
    stride *= in[j];
  }
  IndexingMap m(simplify::Domain(dims, {}, {}), results);
  indexing::MapSimplifyOptions preserve;
  preserve.replace_points = false;
  indexing::simplify(m, preserve);
  return m;
}

void seed_examples() {
  struct Case {
    const char* name;
    const char* first;
    const char* second;
  } cases[] = {
      {"reshape 10x10x10 -> 50x20 -> 10x10x10",
       "(d0, d1, d2) -> ((d0 * 100 + d1 * 10 + d2) floordiv 20, (d0 * 100 + d1 * 10 + d2) mod 20), domain: d0 in [0, "
       "9], d1 in [0, 9], d2 in [0, 9]",
       "(d0, d1) -> ((d0 * 20 + d1) floordiv 100, ((d0 * 20 + d1) mod 100) floordiv 10, (d0 * 20 + d1) mod 10), "
       "domain: d0 in [0, 49], d1 in [0, 19]"},
      {"transpose then transpose (p0 dedup example)",
       "(d0, d1, d2) -> (d0, d2, d1), domain: d0 in [0, 9], d1 in [0, 49], d2 in [0, 19]",
       "(d0, d1, d2) -> (d1, d0, d2), domain: d0 in [0, 9], d1 in [0, 19], d2 in [0, 49]"},
      {"softmax: broadcast then reduce",
       "(d0, d1, d2) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124]",
       "(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], s0 in [0, 124]"},
      {"producer and consumer with constraints",
       "(d0)[s0] -> (d0 floordiv 2, s0), domain: d0 in [0, 29], s0 in [0, 24], s0 mod 5 in [0, 0]",
       "(d0, d1)[s0] -> (d1, d0 * 4 + s0), domain: d0 in [0, 9], d1 in [0, 19], s0 in [0, 3], d0 mod 2 in [0, 0]"},
      {"slice of pad (interior padding)", "(d0) -> (d0 * 2 + 1), domain: d0 in [0, 9]",
       "(d0) -> ((d0 - 1) floordiv 2), domain: d0 in [1, 19], (d0 - 1) mod 2 in [0, 0]"},
  };
  fmt::print("compose + simplify, seed examples (best / median of 200 runs):\n");
  for (const Case& c : cases) {
    IndexingMap a = indexing::parse_map(c.first), b = indexing::parse_map(c.second);
    IndexingMap result;
    auto [best, median] = best_median_ms(200, [&] {
      result = indexing::compose(a, b);
      indexing::simplify(result);
    });
    fmt::print("  {:<46} {:7.3f} ms / {:7.3f} ms   -> {}\n", c.name, best, median, indexing::print_map(result));
  }
}

void reshape_chain() {
  const std::vector<std::vector<std::int64_t>> shapes = {{64, 64, 64}, {512, 512}, {262144}, {512, 512}};
  IndexingMap walk = IndexingMap::identity(shapes[0]);
  std::vector<IndexingMap> steps;
  steps.reserve(50);
  // Step k: output shape shapes[k % 4] read from shapes[(k + 1) % 4].
  for (int k = 0; k < 50; ++k) steps.push_back(reshape_map(shapes[k % 4], shapes[(k + 1) % 4]));
  double worst = 0;
  double total = seconds_of([&] {
    for (const IndexingMap& step : steps) {
      double t = seconds_of([&] {
        walk = indexing::compose(walk, step);
        indexing::simplify(walk);
      });
      worst = std::max(worst, t);
    }
  });
  fmt::print("50-step reshape chain 64x64x64 <-> 512x512 <-> 262144: {:.2f} ms total, {:.3f} ms worst step\n",
             total * 1e3, worst * 1e3);
  fmt::print("  result: {}\n", indexing::print_map(walk));
}

void counting() {
  struct Case {
    const char* name;
    const char* map;
  } cases[] = {
      {"1024^3 box, d0 mod 3 constraint",
       "(d0, d1, d2) -> (d0, d2), domain: d0 in [0, 1023], d1 in [0, 1023], d2 in [0, 1023], d0 mod 3 in [0, 0]"},
      {"8192x8192x128 reduce",
       "(d0, d1)[s0] -> (d0, d1, s0), domain: d0 in [0, 8191], d1 in [0, 8191], s0 in [0, 127]"},
      {"window 512 over 1M (reduce-window)", "(d0)[s0] -> (d0 + s0), domain: d0 in [0, 1048575], s0 in [0, 511]"},
      {"strided, padded (interior 1)",
       "(d0, d1) -> ((d0 - 1) floordiv 2, d1), domain: d0 in [1, 8191], d1 in [0, 4095], (d0 - 1) mod 2 in [0, 0]"},
  };
  fmt::print("counting (best / median of 20 runs; domain, image, relation):\n");
  for (const Case& c : cases) {
    IndexingMap m = indexing::parse_map(c.map);
    indexing::Count d, i, r;
    auto [best, median] = best_median_ms(20, [&] {
      d = indexing::count_domain(m);
      i = indexing::count_image(m);
      r = indexing::count_relation(m);
    });
    fmt::print("  {:<40} {:8.3f} ms / {:8.3f} ms   {} / {} / {}{}\n", c.name, best, median, d.value, i.value, r.value,
               d.exact && i.exact && r.exact ? "" : " (upper bound)");
  }
}

}  // namespace

int main() {
  seed_examples();
  reshape_chain();
  counting();
  return 0;
}

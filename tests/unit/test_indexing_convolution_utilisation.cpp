// Utilisation counts of convolutions against the convolution semantics,
// evaluated directly (not from the maps): for each output element, the window
// positions whose dilated, padded input position holds a real input element
// (not padding, not a base-dilation hole) read one input and one kernel
// element per input feature of the group; the others read nothing.
//  - random small convolutions (padding incl. negative, lhs/rhs dilation,
//    stride, rhs_reversal, feature and batch groups, permuted dim_labels):
//    distinct elements read and (output, operand element) pairs per operand,
//    by enumerating every output element;
//  - the weight-gradient convolution of the deepseek3 dump (window 128 over a
//    padded input of size 1), counted per spatial dimension: too large to
//    enumerate, small enough to count its one window dimension.
#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "indexing/analysis/utilisation.hpp"
#include "parser/parse.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_convolution_utilisation_cases {

using namespace hlo_index;

namespace {

using Tuple = std::vector<std::int64_t>;

struct Window {
  std::int64_t size = 1, stride = 1, low = 0, high = 0, base = 1, dilation = 1;
  bool reversal = false;
};

// The input index window position s of output position o reads, or -1 where
// it meets padding or a base-dilation hole.
std::int64_t input_position(const Window& w, std::int64_t n, std::int64_t o, std::int64_t s) {
  const std::int64_t q = o * w.stride + s * w.dilation - w.low;
  if (q < 0 || q % w.base != 0 || q / w.base >= n) return -1;
  return q / w.base;
}

std::int64_t output_size(const Window& w, std::int64_t n) {
  const std::int64_t padded = (n - 1) * w.base + 1 + w.low + w.high;
  const std::int64_t extent = (w.size - 1) * w.dilation + 1;
  return padded < extent ? 0 : (padded - extent) / w.stride + 1;
}

// A convolution with its dimension roles: roles[0] batch (kernel: input
// feature), roles[1] feature (kernel: output feature), roles[2 + i] spatial i.
struct Convolution {
  std::vector<Window> window;
  Tuple in_roles, kernel_roles, out_roles;
  std::int64_t batch = 1, features = 1, out_features = 1;
  std::int64_t feature_groups = 1, batch_groups = 1;
  Tuple in_spatial;

  std::size_t rank() const { return window.size() + 2; }
  std::int64_t kernel_features() const { return features / feature_groups; }
  std::int64_t out_batch() const { return batch / batch_groups; }
  Tuple dims(const Tuple& roles, const Tuple& by_role) const {
    Tuple d(rank());
    for (std::size_t r = 0; r < rank(); ++r) d[static_cast<std::size_t>(roles[r])] = by_role[r];
    return d;
  }
  Tuple input_dims() const {
    Tuple by_role{batch, features};
    by_role.insert(by_role.end(), in_spatial.begin(), in_spatial.end());
    return dims(in_roles, by_role);
  }
  Tuple kernel_dims() const {
    Tuple by_role{kernel_features(), out_features};
    for (const Window& w : window) by_role.push_back(w.size);
    return dims(kernel_roles, by_role);
  }
  Tuple output_dims() const {
    Tuple by_role{out_batch(), out_features};
    for (std::size_t i = 0; i < window.size(); ++i) by_role.push_back(output_size(window[i], in_spatial[i]));
    return dims(out_roles, by_role);
  }
};

std::string shape(const Tuple& dims) {
  std::string s = "f32[";
  for (std::size_t i = 0; i < dims.size(); ++i) s.append(i ? "," : "").append(std::to_string(dims[i]));
  return s + "]";
}

std::string labels(const Tuple& roles, char first, char second) {
  std::string s(roles.size(), '?');
  s[static_cast<std::size_t>(roles[0])] = first;
  s[static_cast<std::size_t>(roles[1])] = second;
  for (std::size_t i = 2; i < roles.size(); ++i) s[static_cast<std::size_t>(roles[i])] = static_cast<char>('0' + i - 2);
  return s;
}

std::string hlo_text(const Convolution& c) {
  auto field = [&](const char* name, auto f) {
    std::string out = " ";
    out.append(name).append("=");
    for (std::size_t i = 0; i < c.window.size(); ++i) out.append(i ? "x" : "").append(f(c.window[i]));
    return out;
  };
  std::string window = field("size", [](const Window& w) { return std::to_string(w.size); }).substr(1);
  window += field("stride", [](const Window& w) { return std::to_string(w.stride); });
  window += field("pad", [](const Window& w) { return std::to_string(w.low) + "_" + std::to_string(w.high); });
  window += field("lhs_dilate", [](const Window& w) { return std::to_string(w.base); });
  window += field("rhs_dilate", [](const Window& w) { return std::to_string(w.dilation); });
  window += field("rhs_reversal", [](const Window& w) { return std::string(w.reversal ? "1" : "0"); });
  std::string text = "HloModule conv\nENTRY e {\n  x = ";
  text += shape(c.input_dims());
  text += " parameter(0)\n  k = ";
  text += shape(c.kernel_dims());
  text += " parameter(1)\n  ROOT y = ";
  text += shape(c.output_dims());
  text += " convolution(x, k), window={";
  text += window;
  text += "}, dim_labels=";
  text += labels(c.in_roles, 'b', 'f');
  text += "_";
  text += labels(c.kernel_roles, 'i', 'o');
  text += "->";
  text += labels(c.out_roles, 'b', 'f');
  text += ", feature_group_count=";
  text += std::to_string(c.feature_groups);
  text += ", batch_group_count=";
  text += std::to_string(c.batch_groups);
  text += "\n}\n";
  return text;
}

analysis::InstructionUtilisation root_utilisation(const std::string& hlo) {
  parser::DiagnosticEngine diagnostics;
  std::vector<hlo::Module> modules = parser::parse_hlo_text(hlo, "conv.hlo", diagnostics);
  INFO(parser::render(diagnostics));
  REQUIRE(modules.size() == 1);
  const hlo::Module& m = modules[0];
  const hlo::Computation& comp = m.computations[m.entry];
  indexing::IndexingAnalysis analysis(m, {});
  auto indexing = analysis.analyze(m.entry, comp.root, true, false);
  return analysis::utilisation(m, comp, comp.instructions[comp.root], indexing);
}

struct Counts {
  std::set<Tuple> distinct[2];  // operand elements read
  std::set<Tuple> pairs[2];     // (output element, operand element)
};

void for_each_index(const Tuple& dims, const std::function<void(const Tuple&)>& f) {
  Tuple i(dims.size(), 0);
  for (std::int64_t d : dims) {
    if (d == 0) return;
  }
  while (true) {
    f(i);
    std::size_t k = dims.size();
    while (k > 0 && ++i[k - 1] == dims[k - 1]) i[--k] = 0;
    if (k == 0) return;
  }
}

// The reads of every output element, from the convolution semantics.
Counts reference(const Convolution& c) {
  Counts counts;
  const std::size_t spatial = c.window.size();
  const std::int64_t groups = c.feature_groups * c.batch_groups, per_group = c.out_features / groups;
  Tuple window_sizes;
  for (const Window& w : c.window) window_sizes.push_back(w.size);
  for_each_index(c.output_dims(), [&](const Tuple& out) {
    const std::int64_t b = out[static_cast<std::size_t>(c.out_roles[0])];
    const std::int64_t f = out[static_cast<std::size_t>(c.out_roles[1])];
    for_each_index(window_sizes, [&](const Tuple& s) {
      Tuple in(c.rank()), kernel(c.rank());
      for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t x =
            input_position(c.window[i], c.in_spatial[i], out[static_cast<std::size_t>(c.out_roles[2 + i])], s[i]);
        if (x < 0) return;
        in[static_cast<std::size_t>(c.in_roles[2 + i])] = x;
        kernel[static_cast<std::size_t>(c.kernel_roles[2 + i])] =
            c.window[i].reversal ? c.window[i].size - 1 - s[i] : s[i];
      }
      for (std::int64_t ci = 0; ci < c.kernel_features(); ++ci) {
        in[static_cast<std::size_t>(c.in_roles[0])] = c.batch_groups > 1 ? (f / per_group) * c.out_batch() + b : b;
        in[static_cast<std::size_t>(c.in_roles[1])] =
            c.feature_groups > 1 ? (f / per_group) * c.kernel_features() + ci : ci;
        kernel[static_cast<std::size_t>(c.kernel_roles[0])] = ci;
        kernel[static_cast<std::size_t>(c.kernel_roles[1])] = f;
        const Tuple* read[2] = {&in, &kernel};
        for (std::size_t k = 0; k < 2; ++k) {
          counts.distinct[k].insert(*read[k]);
          Tuple pair = out;
          pair.insert(pair.end(), read[k]->begin(), read[k]->end());
          counts.pairs[k].insert(pair);
        }
      }
    });
  });
  return counts;
}

Convolution random_convolution(test::Rng& r) {
  while (true) {
    Convolution c;
    const std::size_t spatial = static_cast<std::size_t>(r.uniform(1, 2));
    c.window.resize(spatial);
    for (Window& w : c.window) {
      w.size = r.uniform(1, 3);
      w.stride = r.uniform(1, 3);
      w.low = r.uniform(-1, 3);
      w.high = r.uniform(-1, 3);
      w.base = r.chance(50) ? 1 : r.uniform(2, 3);
      w.dilation = r.chance(60) ? 1 : 2;
      w.reversal = r.chance(40);
      c.in_spatial.push_back(r.uniform(1, 4));
    }
    c.in_roles = r.permutation(spatial + 2);
    c.kernel_roles = r.permutation(spatial + 2);
    c.out_roles = r.permutation(spatial + 2);
    c.batch = r.uniform(1, 4);
    c.features = r.uniform(1, 4);
    const int mode = static_cast<int>(r.uniform(0, 2));
    if (mode == 1) c.feature_groups = c.features;  // depthwise when 1 < features
    if (mode == 2) c.batch_groups = c.batch;
    c.out_features = c.feature_groups * c.batch_groups * r.uniform(1, 2);
    bool fits = true;
    for (std::size_t i = 0; i < spatial; ++i) fits = fits && output_size(c.window[i], c.in_spatial[i]) > 0;
    if (fits) return c;
  }
}

}  // namespace

TEST_CASE("utilisation of random small convolutions equals their semantics", "[indexing][utilisation][bruteforce]") {
  test::Rng r(20261124);
  int over_padding_or_holes = 0, groups = 0;
  for (int trial = 0; trial < 150; ++trial) {
    const Convolution c = random_convolution(r);
    const std::string hlo = hlo_text(c);
    INFO(hlo);
    const auto u = root_utilisation(hlo);
    const Counts expected = reference(c);
    REQUIRE(u.operands.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      INFO("operand " << k);
      REQUIRE(u.operands[k].defined());
      CHECK(u.operands[k].distinct_read.exact);
      CHECK(u.operands[k].distinct_read.value == static_cast<std::int64_t>(expected.distinct[k].size()));
      CHECK(u.operands[k].total_reads.value == static_cast<std::int64_t>(expected.pairs[k].size()));
    }
    // A kernel element counted at every window position would be read once
    // per (output element, input feature) pair of its output feature.
    std::int64_t every_position = 1;
    for (std::int64_t d : c.output_dims()) every_position *= d;
    every_position *= c.kernel_features();
    for (const Window& w : c.window) every_position *= w.size;
    if (static_cast<std::int64_t>(expected.pairs[1].size()) < every_position) ++over_padding_or_holes;
    if (c.feature_groups > 1 || c.batch_groups > 1) ++groups;
  }
  CHECK(over_padding_or_holes > 40);
  CHECK(groups > 20);
}

TEST_CASE("utilisation of the deepseek3 weight-gradient convolution: each kernel element read once per batch element",
          "[indexing][utilisation]") {
  // convolution.334 of fused_computation.131.clone.1 in the maxtext deepseek3
  // reference dump: bf0_i0o->b0f, window={size=128 pad=127_127 rhs_reversal=1}
  // over an input of spatial size 1.
  Convolution c;
  c.window = {Window{.size = 128, .low = 127, .high = 127, .reversal = true}};
  c.in_spatial = {1};
  c.in_roles = {0, 1, 2};
  c.kernel_roles = {0, 2, 1};
  c.out_roles = {0, 2, 1};
  c.batch = 128;
  c.features = 1536;
  c.out_features = 192;
  REQUIRE(c.output_dims() == Tuple{128, 128, 192});
  // One spatial dimension: count its (output position, window position)
  // pairs that meet the input and the kernel positions they use.
  std::int64_t meeting = 0;
  std::set<std::int64_t> kernel_positions, input_positions;
  const Window& w = c.window[0];
  for (std::int64_t o = 0; o < output_size(w, 1); ++o) {
    for (std::int64_t s = 0; s < w.size; ++s) {
      const std::int64_t x = input_position(w, 1, o, s);
      if (x < 0) continue;
      ++meeting;
      kernel_positions.insert(w.size - 1 - s);
      input_positions.insert(x);
    }
  }
  const std::int64_t reads = c.out_batch() * c.out_features * c.kernel_features() * meeting;
  const auto u = root_utilisation(hlo_text(c));
  CHECK(u.operands[1].distinct_read.value ==
        c.kernel_features() * c.out_features * static_cast<std::int64_t>(kernel_positions.size()));
  CHECK(u.operands[1].total_reads.value == reads);
  CHECK(u.operands[0].distinct_read.value == c.batch * c.features * static_cast<std::int64_t>(input_positions.size()));
  CHECK(u.operands[0].total_reads.value == reads);
  // Every kernel element is read, each by the 128 batch elements of its own
  // output position (XLA's map: by all 128 x 128 output positions).
  CHECK(u.operands[1].multiplicity() == Approx(static_cast<double>(c.out_batch())));
}

}  // namespace test_indexing_convolution_utilisation_cases

// Brute-force checks of the maps of XLA GPU's library custom-calls, cuBLAS
// GEMMs and cuDNN convolutions, on random small shapes (fixed seeds).
//
// The expected relations are evaluated from the semantics, independently of
// indexing/: a GEMM's D element reads the A and B elements of its dot product
// (evaluated from the dimension numbers), C at its index, the bias at the
// output's minor physical dimensions, every scale; damax reads everything D
// reads. A convolution's terms are evaluated from the forward convolution's
// definition (convolution_reference.hpp): every (output, input, kernel)
// triple that meets in one product; the forward call's output element reads
// the input and kernel elements of its terms, a backward-input element (an
// input element) reads the output and kernel elements of the terms that
// read it, a backward-filter element (a kernel element) the input and output
// elements of the terms that multiply it. The maps of the custom-call, and of
// a call whose body returns its result, enumerated point by point, must be
// exactly these relations (supersets only where marked approximate), and the
// operand -> output maps exactly their inverses.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "convolution_reference.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_gpu_library_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;
// [output][operand]: the pairs (output element, operand element).
using Expected = std::vector<std::vector<Relation>>;

using test::all_points;

std::string shape_text(const std::string& type, const Point& dims, const Point& minor_to_major = {}) {
  std::string out = fmt::format("{}[{}]", type, fmt::join(dims, ","));
  if (!minor_to_major.empty()) out += fmt::format("{{{}}}", fmt::join(minor_to_major, ","));
  return out;
}

struct Operand {
  std::string type = "f32";
  Point dims;
  Point minor_to_major;
};

// The relation of a set and whether any of its maps is approximate.
std::pair<Relation, bool> relation_of(const MapSet& set) {
  Relation out;
  bool approximate = false;
  for (const IndexingMap& map : set) {
    REQUIRE(map.runtime_count() == 0);
    approximate = approximate || map.approximate();
    if (map.is_known_empty()) continue;
    const Relation one = test::relation_of_any_runtime(map);
    out.insert(one.begin(), one.end());
  }
  return {out, approximate};
}

void check_relation(const MapSet& set, const Relation& expected) {
  const auto [actual, approximate] = relation_of(set);
  if (approximate) {
    for (const auto& pair : expected) CHECK(actual.count(pair) == 1);
  } else {
    CHECK(actual == expected);
  }
}

// The maps of `instruction` (or of the entry's root) against `expected`, in both directions.
void check_maps(const hlo::Module& m, std::uint32_t instruction, const Expected& expected,
                std::size_t outputs_checked) {
  const hlo::Computation& c = m.computations[m.entry];
  indexing::IndexingAnalysis analysis(m, {});
  const indexing::InstructionIndexing maps = analysis.analyze(m.entry, instruction, true, true);
  const std::size_t operands = c.instructions[instruction].operand_count;
  for (std::size_t k = 0; k < outputs_checked; ++k) {
    for (std::size_t j = 0; j < operands; ++j) {
      INFO("output " << k << ", operand " << j);
      check_relation(maps.output_to_input.at(k).at(j), expected[k][j]);
      const auto& row = maps.input_to_output.at(k);
      check_relation(j < row.size() ? row[j] : MapSet{}, test::inverse(expected[k][j]));
    }
  }
}

// The custom-call alone (every result), and inside a called computation that
// returns its result 0 (composition through the get-tuple-element).
void check_custom_call(const std::vector<Operand>& operands, const std::string& result_shape,
                       const std::string& result0_shape, const std::string& call, const Expected& expected) {
  std::string params, names, signature;
  for (std::size_t j = 0; j < operands.size(); ++j) {
    const std::string shape = shape_text(operands[j].type, operands[j].dims, operands[j].minor_to_major);
    params += fmt::format("  p{} = {} parameter({})\n", j, shape, j);
    names += fmt::format("{}p{}", j ? ", " : "", j);
  }
  const std::string alone = fmt::format("HloModule alone\nENTRY e {{\n{}  ROOT r = {} custom-call({}){}\n}}\n", params,
                                        result_shape, names, call);
  // A tuple result passes its element 0 out through a get-tuple-element.
  const bool tuple = result_shape.front() == '(';
  const std::string called = fmt::format(
      "HloModule called\nbody {{\n{0}  {6}cc = {1} custom-call({2}){3}\n{5}}}\nENTRY e {{\n{0}  ROOT c = {4} "
      "call({2}), to_apply=body\n}}\n",
      params, result_shape, names, call, result0_shape,
      tuple ? fmt::format("  ROOT r = {} get-tuple-element(cc), index=0\n", result0_shape) : "", tuple ? "" : "ROOT ");
  {
    INFO(alone);
    const auto modules = test::parse_ok(alone);
    const hlo::Module& m = modules[0];
    check_maps(m, m.computations[m.entry].root, expected, expected.size());
  }
  {
    INFO(called);
    const auto modules = test::parse_ok(called);
    const hlo::Module& m = modules[0];
    check_maps(m, m.computations[m.entry].root, expected, 1);
  }
}

// Every output element of `dims` reads `reads(out)` of operand j of output k.
template <typename Fn>
Relation relation_from(const Point& dims, Fn&& reads) {
  Relation out;
  for (const Point& o : all_points(dims))
    for (const Point& in : reads(o)) out.insert({o, in});
  return out;
}

// Every element any output element reads, as the relation of a scalar output.
Relation whole(const Relation& r) {
  Relation out;
  for (const auto& [o, in] : r) out.insert({Point{}, in});
  return out;
}

// The reads of a scalar reduction over an output with reads `reads` (per operand).
std::vector<Relation> whole_reads(const std::vector<Relation>& reads) {
  std::vector<Relation> out;
  out.reserve(reads.size());
  for (const Relation& r : reads) out.push_back(whole(r));
  return out;
}

Point default_order(std::size_t rank) {
  Point m2m;
  for (std::size_t i = rank; i-- > 0;) m2m.push_back(static_cast<std::int64_t>(i));
  return m2m;
}

// ---------------------------------------------------------------------------
// cuBLAS GEMMs.

struct DotCase {
  Point lhs, rhs, out;
  Point lhs_batch, rhs_batch, lhs_contracting, rhs_contracting, lhs_free, rhs_free;
};

// Random dimension numbers: up to one batch, one or two contracting and one
// free dimension per operand, in random positions.
DotCase random_dot(test::Rng& r) {
  DotCase d;
  const std::int64_t batch = r.uniform(0, 1), contracting = r.uniform(1, 2);
  const std::int64_t lhs_free = r.uniform(0, 1), rhs_free = r.uniform(0, 1);
  Point batch_sizes, contracting_sizes;
  for (std::int64_t i = 0; i < batch; ++i) batch_sizes.push_back(r.uniform(1, 2));
  for (std::int64_t i = 0; i < contracting; ++i) contracting_sizes.push_back(r.uniform(1, 3));
  auto layout = [&](std::int64_t free, Point& dims, Point& b, Point& k, Point& f) {
    const std::size_t rank = static_cast<std::size_t>(batch + contracting + free);
    const Point positions = r.permutation(rank);
    dims.assign(rank, 0);
    std::size_t at = 0;
    for (std::int64_t i = 0; i < batch; ++i, ++at) {
      b.push_back(positions[at]);
      dims[static_cast<std::size_t>(positions[at])] = batch_sizes[static_cast<std::size_t>(i)];
    }
    for (std::int64_t i = 0; i < contracting; ++i, ++at) {
      k.push_back(positions[at]);
      dims[static_cast<std::size_t>(positions[at])] = contracting_sizes[static_cast<std::size_t>(i)];
    }
    for (std::size_t i = 0; i < rank; ++i) {
      if (dims[i] == 0) {
        f.push_back(static_cast<std::int64_t>(i));
        dims[i] = r.uniform(1, 3);
      }
    }
  };
  layout(lhs_free, d.lhs, d.lhs_batch, d.lhs_contracting, d.lhs_free);
  layout(rhs_free, d.rhs, d.rhs_batch, d.rhs_contracting, d.rhs_free);
  d.out = batch_sizes;
  for (std::int64_t f : d.lhs_free) d.out.push_back(d.lhs[static_cast<std::size_t>(f)]);
  for (std::int64_t f : d.rhs_free) d.out.push_back(d.rhs[static_cast<std::size_t>(f)]);
  return d;
}

// The lhs and rhs elements output element `o` of the dot multiplies.
std::pair<std::vector<Point>, std::vector<Point>> dot_reads(const DotCase& d, const Point& o) {
  Point sizes;
  for (std::int64_t k : d.lhs_contracting) sizes.push_back(d.lhs[static_cast<std::size_t>(k)]);
  std::vector<Point> lhs, rhs;
  for (const Point& k : all_points(sizes)) {
    Point l(d.lhs.size()), r(d.rhs.size());
    std::size_t at = 0;
    for (std::size_t i = 0; i < d.lhs_batch.size(); ++i, ++at) {
      l[static_cast<std::size_t>(d.lhs_batch[i])] = o[at];
      r[static_cast<std::size_t>(d.rhs_batch[i])] = o[at];
    }
    for (std::int64_t f : d.lhs_free) l[static_cast<std::size_t>(f)] = o[at++];
    for (std::int64_t f : d.rhs_free) r[static_cast<std::size_t>(f)] = o[at++];
    for (std::size_t i = 0; i < k.size(); ++i) {
      l[static_cast<std::size_t>(d.lhs_contracting[i])] = k[i];
      r[static_cast<std::size_t>(d.rhs_contracting[i])] = k[i];
    }
    lhs.push_back(l);
    rhs.push_back(r);
  }
  return {lhs, rhs};
}

std::string int_list(const Point& v) { return fmt::format("[{}]", fmt::join(v, ",")); }

std::string quoted_list(const Point& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += fmt::format("{}\"{}\"", i ? "," : "", v[i]);
  return out + "]";
}

const char* const k_epilogues[] = {"DEFAULT",  "BIAS",      "RELU",          "BIAS_RELU", "GELU",
                                   "GELU_AUX", "BIAS_GELU", "BIAS_GELU_AUX", "SILU",      "BIAS_SILU"};

}  // namespace

TEST_CASE("cuBLAS GEMM custom-calls: the dot of backend_config, C, bias, scales, aux and damax",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1701);
  std::map<std::string, int> seen;
  for (int round = 0; round < 100; ++round) {
    const int kind = static_cast<int>(rng.uniform(0, 2));  // legacy, Lt, Lt FP8
    const DotCase d = random_dot(rng);
    const bool beta = rng.chance(40);
    const std::string epilogue = kind == 0 ? "DEFAULT" : k_epilogues[rng.uniform(0, kind == 2 ? 4 : 9)];
    const bool bias = epilogue.rfind("BIAS", 0) == 0, aux = epilogue.find("AUX") != std::string::npos;
    const bool damax = kind == 2 && rng.chance(50);
    const bool workspace = rng.chance(70);
    const Point out_order = rng.chance(50) ? rng.permutation(d.out.size()) : default_order(d.out.size());
    // The bias has the rank of the rhs free dimensions and runs along the output's most minor ones.
    const std::size_t bias_rank = d.rhs_free.size();
    if (bias && bias_rank > d.out.size()) continue;
    Point bias_dims(bias_rank);
    const Point bias_order = rng.chance(30) ? rng.permutation(bias_rank) : default_order(bias_rank);
    for (std::size_t i = 0; i < bias_rank; ++i)
      bias_dims[static_cast<std::size_t>(bias_order[i])] = d.out[static_cast<std::size_t>(out_order[i])];

    std::vector<Operand> operands = {{kind == 2 ? "f8e4m3fn" : "f32", d.lhs, {}},
                                     {kind == 2 ? "f8e4m3fn" : "f32", d.rhs, {}}};
    enum class Role { kA, kB, kC, kBias, kScalar };
    std::vector<Role> roles = {Role::kA, Role::kB};
    if (beta) {
      operands.push_back({"f32", d.out, {}});
      roles.push_back(Role::kC);
    }
    if (kind == 2) {
      for (int s = 0; s < 2; ++s) {
        operands.push_back({"f32", {}, {}});
        roles.push_back(Role::kScalar);
      }
    }
    if (bias) {
      operands.push_back({"f32", bias_dims, bias_order});
      roles.push_back(Role::kBias);
    }
    if (kind == 2 && rng.chance(50)) {  // d_scale
      operands.push_back({"f32", {}, {}});
      roles.push_back(Role::kScalar);
    }
    const std::string d_shape = shape_text(kind == 2 ? "f8e4m3fn" : "f32", d.out, out_order);
    std::vector<std::string> results = {d_shape};
    if (aux) results.push_back(d_shape);
    if (damax) results.emplace_back("f32[]");
    if (workspace) results.emplace_back("s8[16]");
    const bool tuple = results.size() > 1;
    const std::string result_shape = tuple ? fmt::format("({})", fmt::join(results, ", ")) : results[0];
    const char* const targets[] = {"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8"};
    const bool strings = rng.chance(50);  // int64 lists as proto3 JSON writes them, or as numbers
    auto list = [&](const Point& v) { return strings ? quoted_list(v) : int_list(v); };
    const std::string call = fmt::format(
        ", custom_call_target=\"{}\", backend_config={{\"gemm_backend_config\":{{\"alpha_real\":1,\"beta\":{},"
        "\"dot_dimension_numbers\":{{\"lhs_contracting_dimensions\":{},\"rhs_contracting_dimensions\":{},"
        "\"lhs_batch_dimensions\":{},\"rhs_batch_dimensions\":{}}},\"epilogue\":\"{}\",\"damax_output\":{}}}}}",
        targets[kind], beta ? 1 : 0, list(d.lhs_contracting), list(d.rhs_contracting), list(d.lhs_batch),
        list(d.rhs_batch), epilogue, damax ? "true" : "false");

    // D (and aux): the dot's reads, C at the index, the bias at the minor dimensions, every scale.
    std::vector<Relation> d_reads(operands.size());
    for (std::size_t j = 0; j < roles.size(); ++j) {
      d_reads[j] = relation_from(d.out, [&](const Point& o) -> std::vector<Point> {
        switch (roles[j]) {
          case Role::kA: return dot_reads(d, o).first;
          case Role::kB: return dot_reads(d, o).second;
          case Role::kC: return {o};
          case Role::kScalar: return {Point{}};
          case Role::kBias: {
            Point b(bias_rank);
            for (std::size_t i = 0; i < bias_rank; ++i)
              b[static_cast<std::size_t>(bias_order[i])] = o[static_cast<std::size_t>(out_order[i])];
            return {b};
          }
        }
        return {};
      });
    }
    Expected expected = {d_reads};
    if (aux) expected.push_back(d_reads);
    if (damax) {
      expected.push_back(whole_reads(d_reads));
    }
    if (workspace) expected.emplace_back(operands.size());  // reads nothing
    seen[targets[kind]]++;
    seen["batch dimension"] += d.lhs_batch.empty() ? 0 : 1;
    seen["C"] += beta ? 1 : 0;
    seen["bias"] += bias ? 1 : 0;
    seen["bias along a permuted layout"] += bias && bias_rank > 0 && out_order != default_order(d.out.size()) ? 1 : 0;
    seen["aux output"] += aux ? 1 : 0;
    seen["damax"] += damax ? 1 : 0;
    seen["workspace"] += workspace ? 1 : 0;
    INFO("round " << round);
    check_custom_call(operands, result_shape, d_shape, call, expected);
  }
  for (const char* feature : {"__cublas$gemm", "__cublas$lt$matmul", "__cublas$lt$matmul$f8", "batch dimension", "C",
                              "bias", "bias along a permuted layout", "aux output", "damax", "workspace"}) {
    INFO(feature);
    CHECK(seen[feature] > 0);
  }
}

namespace {

// ---------------------------------------------------------------------------
// cuDNN convolutions.

using Triples = std::vector<std::tuple<Point, Point, Point>>;  // (output, input, kernel)

Triples all_terms(const test::ConvolutionCase& c) {
  Triples out;
  for (const Point& o : all_points(c.output))
    test::for_each_term(c, o, [&](const Point& in, const Point& k) { out.emplace_back(o, in, k); });
  return out;
}

enum Array { kInput = 0, kKernel = 1, kOutput = 2 };

// The pairs (element of `from`, element of `to`) that meet in one term.
Relation meet(const Triples& terms, Array from, Array to) {
  Relation out;
  for (const auto& [o, in, k] : terms) {
    const Point* p[3] = {&in, &k, &o};
    out.insert({*p[from], *p[to]});
  }
  return out;
}

std::optional<test::ConvolutionCase> random_case(test::Rng& rng) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(3, 4));
    Point input;
    for (std::size_t i = 0; i < rank; ++i) input.push_back(rng.uniform(1, rank == 3 ? 5 : 3));
    if (auto c = test::random_convolution(rng, input, 60)) return c;
  }
  return std::nullopt;
}

}  // namespace

TEST_CASE(
    "cuDNN convolution custom-calls: forward, backward input and backward filter read the terms of the "
    "forward convolution",
    "[op-bruteforce][custom-call]") {
  test::Rng rng(1702);
  std::map<std::string, int> seen;
  for (int round = 0; round < 90; ++round) {
    const auto c = random_case(rng);
    REQUIRE(c);
    const Triples terms = all_terms(*c);
    const int kind = round % 3;
    // Operand and result arrays of each kind (gpu_conv_runner.cc).
    const Array roles[3][3] = {{kInput, kKernel, kOutput}, {kOutput, kKernel, kInput}, {kInput, kOutput, kKernel}};
    const char* const targets[] = {"__cudnn$convForward", "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter"};
    const Point* shapes[3] = {&c->input, &c->kernel, &c->output};
    const Array* r = roles[kind];
    const std::vector<Operand> operands = {{"f32", *shapes[r[0]], {}}, {"f32", *shapes[r[1]], {}}};
    const std::string result = shape_text("f32", *shapes[r[2]]);
    const Expected expected = {{meet(terms, r[2], r[0]), meet(terms, r[2], r[1])}, {{}, {}}};
    for (const test::WindowDim& w : c->window) {
      seen["stride"] += w.stride > 1 ? 1 : 0;
      seen["padding"] += w.low != 0 || w.high != 0 ? 1 : 0;
      seen["lhs dilation"] += w.base > 1 ? 1 : 0;
      seen["rhs dilation"] += w.dilation > 1 ? 1 : 0;
      seen["reversal"] += w.reversal && w.size > 1 ? 1 : 0;
    }
    seen["feature groups"] += c->feature_groups > 1 ? 1 : 0;
    seen["batch groups"] += c->batch_groups > 1 ? 1 : 0;
    seen[targets[kind]]++;
    INFO("round " << round << ", " << targets[kind]);
    check_custom_call(operands, fmt::format("({}, u8[0])", result), result,
                      fmt::format("{}, custom_call_target=\"{}\"", c->attributes(), targets[kind]), expected);
  }
  for (const char* feature :
       {"stride", "padding", "lhs dilation", "rhs dilation", "reversal", "feature groups", "batch groups",
        "__cudnn$convForward", "__cudnn$convBackwardInput", "__cudnn$convBackwardFilter"}) {
    INFO(feature);
    CHECK(seen[feature] > 0);
  }
}

TEST_CASE("cuDNN fused convolutions: bias per feature, the side input when scaled, graph operands and amax",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(1703);
  for (int round = 0; round < 30; ++round) {
    const auto c = random_case(rng);
    REQUIRE(c);
    const Triples terms = all_terms(*c);
    const Relation input = meet(terms, kOutput, kInput), kernel = meet(terms, kOutput, kKernel);
    const std::size_t feature = static_cast<std::size_t>(c->out_roles[1]);
    std::vector<Operand> operands = {{"f32", c->input, {}}, {"f32", c->kernel, {}}};
    Expected expected;
    std::string call, result;
    if (round % 2 == 0) {
      // (input, filter, bias[, side input]) -> (output, scratch)
      const bool side = rng.chance(70);
      const int scale = side ? static_cast<int>(rng.uniform(0, 1)) : 0;
      operands.push_back({"f32", {c->F}, {}});
      std::vector<Relation> reads = {input, kernel, relation_from(c->output, [&](const Point& o) {
                                       return std::vector<Point>{Point{o[feature]}};
                                     })};
      if (side) {
        operands.push_back({"f32", c->output, {}});
        reads.push_back(scale != 0 ? relation_from(c->output, [](const Point& o) { return std::vector<Point>{o}; })
                                   : Relation{});
      }
      expected = {reads, std::vector<Relation>(operands.size())};
      result = fmt::format("({}, u8[0])", shape_text("f32", c->output));
      call = fmt::format(
          "{}, custom_call_target=\"__cudnn$convBiasActivationForward\", "
          "backend_config={{\"cudnn_conv_backend_config\":"
          "{{\"conv_result_scale\":1,\"activation_mode\":\"kRelu\",\"side_input_scale\":{}}}}}",
          c->attributes(), scale);
    } else {
      // (input, filter, scalars and output-shaped addends) -> (output, amax..., scratch)
      std::vector<Relation> reads = {input, kernel};
      const int extras = static_cast<int>(rng.uniform(0, 2));
      for (int e = 0; e < extras; ++e) {
        const bool scalar = rng.chance(50);
        operands.push_back({"f32", scalar ? Point{} : c->output, {}});
        reads.push_back(
            relation_from(c->output, [&](const Point& o) { return std::vector<Point>{scalar ? Point{} : o}; }));
      }
      const int amaxes = static_cast<int>(rng.uniform(0, 1));
      std::vector<std::string> results = {shape_text("f32", c->output)};
      expected = {reads};
      for (int a = 0; a < amaxes; ++a) {
        results.emplace_back("f32[]");
        expected.push_back(whole_reads(reads));
      }
      results.emplace_back("u8[0]");
      expected.emplace_back(operands.size());
      result = fmt::format("({})", fmt::join(results, ", "));
      call = fmt::format("{}, custom_call_target=\"__cudnn$convForwardGraph\"", c->attributes());
    }
    INFO("round " << round);
    check_custom_call(operands, result, shape_text("f32", c->output), call, expected);
  }
}

}  // namespace test_indexing_gpu_library_bruteforce_cases

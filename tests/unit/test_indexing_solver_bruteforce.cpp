// Brute-force checks of the maps of select-and-scatter, scan, scaled-dot,
// fft, triangular-solve, cholesky and the async-start/-update/-done pairs, on
// random small shapes (fixed seeds), alone and as the root of a fusion.
//
// The reference runs each op's algorithm from XLA's operation semantics on
// dependency sets instead of numbers, independently of indexing/: every
// element holds the set of operand elements its value was computed from
// (forward/backward substitution for triangular-solve, the
// Cholesky-Banachiewicz recurrences, the scan loop through its carries, the
// sum of a DFT, a dot over scaled blocks). Where the semantics leave a choice
// (which element of a window select-and-scatter selects, cholesky's other
// triangle) the reference runs every choice: `may` is the union over all of
// them, `certain` the reads that do not depend on the choice. The maps must
// be exactly `may` (sound and tight), their non-approximate maps exactly
// `certain` (an exact claim is never an over-approximation), and the
// operand -> output maps the inverses of both.
//
// async: the maps of async-start's result element, and those of a call whose
// body is a start/update/done chain, must equal the maps of a call of the
// wrapped computation.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_solver_bruteforce_cases {

using namespace hlo_index;
using indexing::MapSet;

namespace {

using Point = std::vector<std::int64_t>;
using Relation = std::set<std::pair<Point, Point>>;
// An element's dependencies: (operand, index) pairs.
using Deps = std::set<std::pair<std::size_t, Point>>;

using test::all_points;

using test::relation_of;

using test::inverse;

// What output k's element `out` may read and certainly reads.
struct Reads {
  Deps may, certain;
};
using Reference = std::function<Reads(std::size_t k, const Point& out)>;

// Checks the root of the entry computation of `text` against `reference`, both directions.
void check_root(const std::string& text, const Reference& reference) {
  INFO(text);
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  const hlo::Computation& c = m.computations[m.entry];
  indexing::IndexingAnalysis analysis(m, {});
  const indexing::InstructionIndexing maps = analysis.analyze(m.entry, c.root, true, true);
  const hlo::Shape& shape = m.shape_of(c.instructions[c.root]);
  const std::size_t outputs = shape.is_tuple ? shape.elements.size() : 1;
  const auto operands = c.operands_of(c.instructions[c.root]);
  for (std::size_t k = 0; k < outputs; ++k) {
    const auto out_dims = (shape.is_tuple ? shape.elements[k] : shape).dims;
    std::vector<Relation> may(operands.size()), certain(operands.size());
    for (const Point& o : all_points(out_dims)) {
      const Reads r = reference(k, o);
      for (const auto& [j, in] : r.may) may.at(j).insert({o, in});
      for (const auto& [j, in] : r.certain) certain.at(j).insert({o, in});
    }
    for (std::size_t j = 0; j < operands.size(); ++j) {
      INFO("output " << k << ", operand " << j);
      const MapSet& o2i = maps.output_to_input.at(k).at(j);
      CHECK(relation_of(o2i, false) == may[j]);
      CHECK(relation_of(o2i, true) == certain[j]);
      const auto& row = maps.input_to_output.at(k);
      const MapSet i2o = j < row.size() ? row[j] : MapSet{};
      CHECK(relation_of(i2o, false) == inverse(may[j]));
      CHECK(relation_of(i2o, true) == inverse(certain[j]));
    }
  }
}

std::string shape_text(const std::string& type, const std::vector<std::int64_t>& dims) {
  return fmt::format("{}[{}]", type, fmt::join(dims, ","));
}

std::vector<std::int64_t> random_dims(test::Rng& rng, std::size_t rank, std::int64_t max) {
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < rank; ++i) dims.push_back(rng.uniform(1, max));
  return dims;
}

// A module whose root is `op` (its operand list written `{}`) over
// parameters, alone or as the root of a fusion (whose maps must be the op's).
struct Operand {
  std::string name, shape;
};
std::string module_text(const std::string& computations, const std::vector<Operand>& operands,
                        const std::string& result, std::string op, bool fused) {
  std::string params, names;
  for (std::size_t j = 0; j < operands.size(); ++j) {
    params += fmt::format("  {} = {} parameter({})\n", operands[j].name, operands[j].shape, j);
    names += (j ? ", " : "") + operands[j].name;
  }
  op.replace(op.find("{}"), 2, names);
  if (!fused)
    return fmt::format("HloModule m\n{}ENTRY e {{\n{}  ROOT result = {} {}\n}}\n", computations, params, result, op);
  return fmt::format(
      "HloModule m\n{}fused {{\n{}  ROOT result = {} {}\n}}\nENTRY e {{\n{}  ROOT f = {} fusion({}), "
      "kind=kLoop, calls=fused\n}}\n",
      computations, params, result, op, params, result, names);
}

Deps unite(Deps a, const Deps& b) {
  a.insert(b.begin(), b.end());
  return a;
}

Point with_batch(const Point& batch, std::initializer_list<std::int64_t> minor) {
  Point p = batch;
  p.insert(p.end(), minor);
  return p;
}

const std::string k_scalar_ops =
    "ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=GE\n}\n"
    "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";

}  // namespace

TEST_CASE("select-and-scatter: the windows covering an element, their sources and init", "[op-bruteforce][window]") {
  test::Rng rng(2601);
  int padded = 0, overlapping = 0;
  for (int round = 0; round < 24; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 2));
    const auto dims = random_dims(rng, rank, 5);
    std::vector<std::int64_t> size, stride, low, high, source;
    std::vector<std::string> window_size, window_stride, window_pad;
    for (std::size_t i = 0; i < rank; ++i) {
      size.push_back(rng.uniform(1, std::min<std::int64_t>(3, dims[i])));
      stride.push_back(rng.uniform(1, 3));
      low.push_back(rng.chance(30) ? rng.uniform(0, size[i] - 1) : 0);
      high.push_back(rng.chance(30) ? rng.uniform(0, size[i] - 1) : 0);
      source.push_back((dims[i] + low[i] + high[i] - size[i]) / stride[i] + 1);
      padded += low[i] + high[i] > 0;
      overlapping += stride[i] < size[i];
      window_size.push_back(std::to_string(size[i]));
      window_stride.push_back(std::to_string(stride[i]));
      window_pad.push_back(fmt::format("{}_{}", low[i], high[i]));
    }
    const std::string window = fmt::format("window={{size={} stride={} pad={}}}", fmt::join(window_size, "x"),
                                           fmt::join(window_stride, "x"), fmt::join(window_pad, "x"));
    // The elements of each window (in bounds) and the windows covering each element.
    std::map<Point, std::vector<Point>> windows_of;
    std::map<Point, std::vector<Point>> elements_of;
    for (const Point& o : all_points(source)) {
      for (const Point& s : all_points(size)) {
        Point x(rank);
        bool inside = true;
        for (std::size_t i = 0; i < rank; ++i) {
          x[i] = o[i] * stride[i] + s[i] - low[i];
          inside = inside && x[i] >= 0 && x[i] < dims[i];
        }
        if (!inside) continue;
        elements_of[o].push_back(x);
        windows_of[x].push_back(o);
      }
    }
    // Output x = init scattered with source[o] for each window o selecting x;
    // any in-bounds element of o may be selected, and the choice reads all of o.
    const Reference reference = [&](std::size_t, const Point& x) {
      Reads r;
      r.may.insert({2, {}});
      r.certain.insert({2, {}});
      for (const Point& o : windows_of[x]) {
        r.may.insert({1, o});
        for (const Point& y : elements_of[o]) r.may.insert({0, y});
      }
      return r;
    };
    const std::vector<Operand> operands{
        {"x", shape_text("f32", dims)}, {"src", shape_text("f32", source)}, {"init", "f32[]"}};
    const std::string op = "select-and-scatter({}), " + window + ", select=ge, scatter=add";
    check_root(module_text(k_scalar_ops, operands, shape_text("f32", dims), op, round % 3 == 2), reference);
  }
  CHECK(padded > 0);
  CHECK(overlapping > 0);
}

TEST_CASE("scan: the inputs up to the position, through the carries", "[op-bruteforce][scan]") {
  test::Rng rng(2602);
  int reversed = 0;
  for (int round = 0; round < 20; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 3));
    const auto dims = random_dims(rng, rank, 4);
    const std::size_t d = static_cast<std::size_t>(rng.uniform(0, static_cast<std::int64_t>(rank) - 1));
    const std::size_t inputs = static_cast<std::size_t>(rng.uniform(1, 2));
    const std::size_t carries = static_cast<std::size_t>(rng.uniform(1, 2));
    const std::size_t outputs = static_cast<std::size_t>(rng.uniform(1, 2));
    const bool reverse = rng.chance(40);
    reversed += reverse;
    auto carry = dims;
    carry.erase(carry.begin() + static_cast<long>(d));
    // to_apply: every result is the sum of every parameter (each feeds each).
    std::string body = "comb {\n";
    std::string sum;
    for (std::size_t p = 0; p < inputs + carries; ++p) {
      body += fmt::format("  p{} = f32[] parameter({})\n", p, p);
      if (p == 0) {
        sum = "p0";
      } else {
        body += fmt::format("  s{} = f32[] add({}, p{})\n", p, sum, p);
        sum = fmt::format("s{}", p);
      }
    }
    std::vector<std::string> results(outputs + carries, sum), result_shapes(outputs + carries, "f32[]");
    body += fmt::format("  ROOT t = ({}) tuple({})\n}}\n", fmt::join(result_shapes, ", "), fmt::join(results, ", "));
    std::vector<Operand> operands;
    for (std::size_t j = 0; j < inputs; ++j) operands.push_back({fmt::format("x{}", j), shape_text("f32", dims)});
    for (std::size_t c = 0; c < carries; ++c) operands.push_back({fmt::format("c{}", c), shape_text("f32", carry)});
    std::vector<std::string> shapes(outputs, shape_text("f32", dims));
    for (std::size_t c = 0; c < carries; ++c) shapes.push_back(shape_text("f32", carry));
    const std::string result = fmt::format("({})", fmt::join(shapes, ", "));
    const std::string op = fmt::format("scan({{}}), dimensions={{{}}}, num_carries={}{}, to_apply=comb", d, carries,
                                       reverse ? ", is_reverse=true" : "");
    // Run the loop for each index of the other dimensions on dependency sets.
    std::map<Point, std::vector<Deps>> per_position;  // full index -> deps of the step's results
    std::map<Point, Deps> final_carry;                // carry index -> deps
    for (const Point& rest : all_points(carry)) {
      Deps state;
      for (std::size_t c = 0; c < carries; ++c) state.insert({inputs + c, rest});
      const std::int64_t n = dims[d];
      for (std::int64_t step = 0; step < n; ++step) {
        const std::int64_t t = reverse ? n - 1 - step : step;
        Point at = rest;
        at.insert(at.begin() + static_cast<long>(d), t);
        for (std::size_t j = 0; j < inputs; ++j) state.insert({j, at});
        per_position[at].push_back(state);
      }
      final_carry[rest] = state;
    }
    const Reference reference = [&](std::size_t k, const Point& o) {
      const Deps& deps = k < outputs ? per_position.at(o).front() : final_carry.at(o);
      return Reads{deps, deps};
    };
    check_root(module_text(body, operands, result, op, round % 3 == 2), reference);
  }
  CHECK(reversed > 0);
}

TEST_CASE("scaled-dot: the dot's operands and the scale of every block read", "[op-bruteforce][dot]") {
  test::Rng rng(2603);
  int scalar_scales = 0;
  for (int round = 0; round < 20; ++round) {
    const std::int64_t m = rng.uniform(1, 3), n = rng.uniform(1, 3), block = rng.uniform(1, 3);
    const std::int64_t blocks = rng.uniform(1, 3), k = block * blocks;
    const bool rhs_transposed = rng.chance(50);            // rhs [n, k] contracting 1, else [k, n] contracting 0
    const std::int64_t lhs_rows = rng.chance(50) ? m : 1;  // the lhs scale per row, or one for all rows
    const bool scalar_rhs_scale = rng.chance(25);          // one scale for all of rhs
    scalar_scales += scalar_rhs_scale;
    const std::vector<Operand> operands{
        {"l", shape_text("f32", {m, k})},
        {"r", shape_text("f32", rhs_transposed ? std::vector<std::int64_t>{n, k} : std::vector<std::int64_t>{k, n})},
        {"ls", shape_text("f32", {lhs_rows, blocks})},
        {"rs", scalar_rhs_scale ? "f32[]"
                                : shape_text("f32", rhs_transposed ? std::vector<std::int64_t>{n, blocks}
                                                                   : std::vector<std::int64_t>{blocks, n})}};
    const std::string op = fmt::format("scaled-dot({{}}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{{}}}",
                                       rhs_transposed ? 1 : 0);
    // out[i, j] = sum_c l[i, c] * ls[i / (m / lhs_rows), c / block] * r[c, j] * rs[c / block, j].
    const Reference reference = [&](std::size_t, const Point& o) {
      Deps deps;
      for (std::int64_t c = 0; c < k; ++c) {
        deps.insert({0, {o[0], c}});
        deps.insert({2, {o[0] / (m / lhs_rows), c / block}});
        deps.insert({1, rhs_transposed ? Point{o[1], c} : Point{c, o[1]}});
        deps.insert({3, scalar_rhs_scale ? Point{} : rhs_transposed ? Point{o[1], c / block} : Point{c / block, o[1]}});
      }
      return Reads{deps, deps};
    };
    check_root(module_text("", operands, shape_text("f32", {m, n}), op, round % 3 == 2), reference);
  }
  CHECK(scalar_scales > 0);
}

TEST_CASE("fft: the whole transformed dimensions of the same batch index", "[op-bruteforce][fft]") {
  test::Rng rng(2604);
  const char* const types[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  for (int round = 0; round < 24; ++round) {
    const std::string type = types[round % 4];
    const std::size_t transformed = static_cast<std::size_t>(rng.uniform(1, 3));
    const std::size_t batch = static_cast<std::size_t>(rng.uniform(0, 2));
    const auto batch_dims = random_dims(rng, batch, 3);
    const auto lengths = random_dims(rng, transformed, 4);
    auto in = batch_dims, out = batch_dims;
    for (std::size_t i = 0; i < transformed; ++i) {
      const bool last = i + 1 == transformed;
      in.push_back(last && type == "IRFFT" ? lengths[i] / 2 + 1 : lengths[i]);
      out.push_back(last && type == "RFFT" ? lengths[i] / 2 + 1 : lengths[i]);
    }
    const std::string in_type = type == "RFFT" ? "f32" : "c64", out_type = type == "IRFFT" ? "f32" : "c64";
    const std::string op = fmt::format("fft({{}}), fft_type={}, fft_length={{{}}}", type, fmt::join(lengths, ","));
    // A DFT over the transformed dimensions sums every element of them.
    const Reference reference = [&](std::size_t, const Point& o) {
      Deps deps;
      for (const Point& p : all_points(in)) {
        if (std::equal(o.begin(), o.begin() + static_cast<long>(batch), p.begin())) deps.insert({0, p});
      }
      return Reads{deps, deps};
    };
    check_root(module_text("", {{"x", shape_text(in_type, in)}}, shape_text(out_type, out), op, round % 3 == 2),
               reference);
  }
}

TEST_CASE(
    "triangular-solve (and the __cublas$triangularSolve custom-call): substitution through a triangle of op(a) "
    "and a band of b",
    "[op-bruteforce][linalg]") {
  test::Rng rng(2605);
  const char* const transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  for (int round = 0; round < 48; ++round) {
    const bool left = round % 2 == 0, lower = (round / 2) % 2 == 0, unit = (round / 4) % 2 == 0;
    const std::string transpose = transposes[rng.index(3)];
    const bool transposed = transpose != "NO_TRANSPOSE";
    const std::int64_t size = rng.uniform(1, 4), other = rng.uniform(1, 3);
    const auto batch = random_dims(rng, static_cast<std::size_t>(rng.uniform(0, 1)), 2);
    auto a_dims = batch, b_dims = batch;
    a_dims.insert(a_dims.end(), {size, size});
    b_dims.insert(b_dims.end(), left ? std::initializer_list<std::int64_t>{size, other}
                                     : std::initializer_list<std::int64_t>{other, size});
    // Every third round as cuBLAS's custom-call: the options as backend_config, (x, scratch).
    const bool custom_call = round % 3 == 1;
    const std::string op =
        custom_call ? fmt::format(
                          "custom-call({{}}), custom_call_target=\"__cublas$triangularSolve\", "
                          "backend_config={{\"left_side\":{},\"lower\":{},\"unit_diagonal\":{},"
                          "\"transpose_a\":\"{}\"}}",
                          left, lower, unit, transpose)
                    : fmt::format("triangular-solve({{}}), left_side={}, lower={}, unit_diagonal={}, transpose_a={}",
                                  left, lower, unit, transpose);
    // op(a)[p, q], read from the triangle `lower` names (the other is zero).
    const bool op_lower = lower != transposed;
    std::map<Point, Deps> x;  // by full index
    for (const Point& bt : all_points(batch)) {
      auto opa = [&](std::int64_t p, std::int64_t q) {
        return Deps{{0, transposed ? with_batch(bt, {q, p}) : with_batch(bt, {p, q})}};
      };
      const std::int64_t rows = b_dims[b_dims.size() - 2], cols = b_dims.back();
      if (left) {
        // op(a) x = b, column by column: row r from the rows solved before it.
        for (std::int64_t c = 0; c < cols; ++c) {
          for (std::int64_t step = 0; step < size; ++step) {
            const std::int64_t r = op_lower ? step : size - 1 - step;
            Deps d{{1, with_batch(bt, {r, c})}};
            for (std::int64_t k = 0; k < size; ++k) {
              if (k == r || (op_lower ? k > r : k < r)) continue;
              d = unite(unite(d, opa(r, k)), x.at(with_batch(bt, {k, c})));
            }
            if (!unit) d = unite(d, opa(r, r));
            x[with_batch(bt, {r, c})] = d;
          }
        }
      } else {
        // x op(a) = b, row by row: column q from the columns solved before it.
        for (std::int64_t r = 0; r < rows; ++r) {
          for (std::int64_t step = 0; step < size; ++step) {
            const std::int64_t q = op_lower ? size - 1 - step : step;
            Deps d{{1, with_batch(bt, {r, q})}};
            for (std::int64_t k = 0; k < size; ++k) {
              if (k == q || (op_lower ? k < q : k > q)) continue;
              d = unite(unite(d, opa(k, q)), x.at(with_batch(bt, {r, k})));
            }
            if (!unit) d = unite(d, opa(q, q));
            x[with_batch(bt, {r, q})] = d;
          }
        }
      }
    }
    const Reference reference = [&](std::size_t k, const Point& o) {
      return k == 0 ? Reads{x.at(o), x.at(o)} : Reads{};  // the scratch buffer reads nothing
    };
    const std::string x_shape = shape_text("f32", b_dims);
    check_root(module_text("", {{"a", shape_text("f32", a_dims)}, {"b", shape_text("f32", b_dims)}},
                           custom_call ? fmt::format("({}, s8[0])", x_shape) : x_shape, op, round % 5 == 4),
               reference);
  }
}

TEST_CASE("cholesky: the recurrences' reads, the other triangle any of the used one", "[op-bruteforce][linalg]") {
  test::Rng rng(2606);
  for (int round = 0; round < 16; ++round) {
    const bool lower = round % 2 == 0;
    const std::int64_t n = rng.uniform(1, 5);
    const auto batch = random_dims(rng, static_cast<std::size_t>(rng.uniform(0, 1)), 2);
    auto dims = batch;
    dims.insert(dims.end(), {n, n});
    std::map<Point, Deps> result;  // the computed triangle
    std::map<Point, Deps> used;    // by batch: the triangle of a that is read
    for (const Point& bt : all_points(batch)) {
      // t(i, j): l[i, j] (lower) or u[j, i] (upper, a = u^T u), j <= i, from a's triangle.
      auto a_at = [&](std::int64_t i, std::int64_t j) {
        return Deps{{0, lower ? with_batch(bt, {i, j}) : with_batch(bt, {j, i})}};
      };
      auto at = [&](std::int64_t i, std::int64_t j) { return lower ? with_batch(bt, {i, j}) : with_batch(bt, {j, i}); };
      for (std::int64_t j = 0; j < n; ++j) {
        Deps diagonal = a_at(j, j);
        for (std::int64_t k = 0; k < j; ++k) diagonal = unite(diagonal, result.at(at(j, k)));
        result[at(j, j)] = diagonal;
        for (std::int64_t i = j + 1; i < n; ++i) {
          Deps d = unite(a_at(i, j), diagonal);
          for (std::int64_t k = 0; k < j; ++k) d = unite(unite(d, result.at(at(i, k))), result.at(at(j, k)));
          result[at(i, j)] = d;
        }
      }
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) used[bt] = unite(used[bt], a_at(i, j));
    }
    const Reference reference = [&](std::size_t, const Point& o) {
      if (auto it = result.find(o); it != result.end()) return Reads{it->second, it->second};
      return Reads{used.at(Point(o.begin(), o.end() - 2)), {}};
    };
    const std::string op = fmt::format("cholesky({{}}), lower={}", lower);
    check_root(module_text("", {{"a", shape_text("f32", dims)}}, shape_text("f32", dims), op, round % 3 == 2),
               reference);
  }
}

TEST_CASE("async-start/-update/-done: the wrapped computation's maps, as a call's", "[op-bruteforce][async]") {
  test::Rng rng(2607);
  for (int round = 0; round < 12; ++round) {
    const std::int64_t n = rng.uniform(2, 6), cut = rng.uniform(1, n - 1);
    const bool update = rng.chance(50);
    const std::string wrapped = fmt::format(
        "wrapped {{\n  p0 = f32[{0}] parameter(0)\n  p1 = f32[{1}] parameter(1)\n"
        "  lo = f32[{1}] slice(p0), slice={{[0:{1}]}}\n  hi = f32[{2}] slice(p0), slice={{[{1}:{0}]}}\n"
        "  m = f32[{1}] multiply(lo, p1)\n  rev = f32[{2}] reverse(hi), dimensions={{0}}\n"
        "  ROOT r = f32[{0}] concatenate(rev, m), dimensions={{0}}\n}}\n",
        n, cut, n - cut);
    const std::string start_shape = fmt::format("((f32[{}], f32[{}]), f32[{}], s32[])", n, cut, n);
    std::string pair = fmt::format("  st = {} async-start(a, b), calls=wrapped\n", start_shape);
    pair += update ? fmt::format("  up = {} async-update(st), calls=wrapped\n", start_shape) : "";
    pair += fmt::format("  ROOT dn = f32[{}] async-done({}), calls=wrapped\n", n, update ? "up" : "st");
    const std::string params = fmt::format("  a = f32[{}] parameter(0)\n  b = f32[{}] parameter(1)\n", n, cut);
    const std::string text = fmt::format(
        "HloModule m\n{}chain {{\n{}{}}}\nENTRY e {{\n{}  st = {} async-start(a, b), calls=wrapped\n"
        "  direct = f32[{}] call(a, b), to_apply=wrapped\n  through = f32[{}] call(a, b), to_apply=chain\n"
        "  ROOT t = ({}, f32[{}], f32[{}]) tuple(st, direct, through)\n}}\n",
        wrapped, params, pair, params, start_shape, n, n, start_shape, n, n);
    INFO(text);
    const std::vector<hlo::Module> modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    const hlo::Computation& c = m.computations[m.entry];
    auto find = [&](const std::string& name) {
      for (std::uint32_t i = 0; i < c.instructions.size(); ++i)
        if (c.instructions[i].name == name) return i;
      FAIL("no instruction " << name);
      return std::uint32_t{0};
    };
    indexing::IndexingAnalysis analysis(m, {});
    const auto start = analysis.analyze(m.entry, find("st"), true, true);
    const auto direct = analysis.analyze(m.entry, find("direct"), true, true);
    const auto through = analysis.analyze(m.entry, find("through"), true, true);
    // The outputs are the leaves: {0,0} a, {0,1} b, {1} the result, {2} the context.
    REQUIRE(start.output_to_input.size() == 4);
    for (std::size_t j = 0; j < 2; ++j) {
      INFO("operand " << j);
      const Relation expected = relation_of(direct.output_to_input[0][j], false);
      CHECK(!expected.empty());
      CHECK(relation_of(start.output_to_input[2][j], false) == expected);
      CHECK(relation_of(through.output_to_input[0][j], false) == expected);
      CHECK(relation_of(start.input_to_output[2][j], false) == inverse(expected));
      CHECK(relation_of(through.input_to_output[0][j], false) == inverse(expected));
      // The context reads nothing; leaf {0,j} is operand j at the same index, and reads no other operand.
      CHECK(start.output_to_input[3][j].empty());
      const std::int64_t size = j == 0 ? n : cut;
      Relation identity;
      for (std::int64_t x = 0; x < size; ++x) identity.insert({{x}, {x}});
      CHECK(relation_of(start.output_to_input[j][j], false) == identity);
      CHECK(relation_of(start.input_to_output[j][j], false) == identity);
      CHECK(start.output_to_input[1 - j][j].empty());
    }
  }
}

TEST_CASE("custom-call targets: SliceToDynamic, math functions, softmax and layer norm",
          "[op-bruteforce][custom-call]") {
  test::Rng rng(2608);
  for (int round = 0; round < 30; ++round) {
    const std::size_t rank = static_cast<std::size_t>(rng.uniform(1, 3));
    const auto dims = random_dims(rng, rank, 4);
    const std::string f = shape_text("f32", dims);
    const std::size_t last = rank - 1;
    std::vector<Operand> operands{{"x", f}};
    std::string result = f, op;
    Reference reference;
    switch (round % 5) {
      case 0: {
        // SliceToDynamic(x, sizes...): x at the same index; every element reads every size.
        for (std::size_t i = 0; i < rank; ++i) operands.push_back({fmt::format("n{}", i), "s32[]"});
        std::vector<std::string> bounded;
        bounded.reserve(dims.size());
        for (std::int64_t d : dims) bounded.push_back(fmt::format("<={}", d));
        result = fmt::format("f32[{}]", fmt::join(bounded, ","));
        op = "custom-call({}), custom_call_target=\"SliceToDynamic\"";
        reference = [&](std::size_t, const Point& o) {
          Deps d{{0, o}};
          for (std::size_t i = 0; i < rank; ++i) d.insert({i + 1, {}});
          return Reads{d, d};
        };
        break;
      }
      case 1:
      case 2: {
        // Asinh(x), Polygamma(n, x): elementwise.
        const bool polygamma = round % 5 == 2;
        if (polygamma) operands.push_back({"y", f});
        op = fmt::format("custom-call({{}}), custom_call_target=\"xla_builder.math.{}\"",
                         polygamma ? "Polygamma" : "Asinh");
        reference = [&, polygamma](std::size_t, const Point& o) {
          Deps d{{0, o}};
          if (polygamma) d.insert({1, o});
          return Reads{d, d};
        };
        break;
      }
      case 3: {
        // softmax along the last dimension: the sum of exponentials over it.
        op = "custom-call({}), custom_call_target=\"te_scaled_softmax_forward_ffi\"";
        reference = [&](std::size_t, const Point& o) {
          Deps d;
          for (std::int64_t k = 0; k < dims[last]; ++k) {
            Point p = o;
            p[last] = k;
            d.insert({0, p});
          }
          return Reads{d, d};
        };
        break;
      }
      default: {
        // layer norm: mean and variance over the last dimension, then scale and shift at the element.
        operands.push_back({"scale", shape_text("f32", {dims[last]})});
        operands.push_back({"shift", shape_text("f32", {dims[last]})});
        op = "custom-call({}), custom_call_target=\"__onednn$layernorm\"";
        reference = [&](std::size_t, const Point& o) {
          Deps d{{1, {o[last]}}, {2, {o[last]}}};
          for (std::int64_t k = 0; k < dims[last]; ++k) {
            Point p = o;
            p[last] = k;
            d.insert({0, p});
          }
          return Reads{d, d};
        };
        break;
      }
    }
    check_root(module_text("", operands, result, op, round % 3 == 2), reference);
  }
}

TEST_CASE("scan: equal shapes, a to_apply on scalars and one on slices, are told apart", "[op-bruteforce][scan]") {
  // f32[4,3] along dimension 0 with an f32[3] carry: elementwise with a scalar to_apply, whole
  // operands (approximate) with a to_apply on the f32[3] slices; the per-op memo keys on to_apply.
  const std::string text =
      "HloModule m\n"
      "scalars {\n  x = f32[] parameter(0)\n  c = f32[] parameter(1)\n  s = f32[] add(x, c)\n"
      "  ROOT t = (f32[], f32[]) tuple(s, s)\n}\n"
      "slices {\n  x = f32[3] parameter(0)\n  c = f32[3] parameter(1)\n  s = f32[3] add(x, c)\n"
      "  ROOT t = (f32[3], f32[3]) tuple(s, s)\n}\n"
      "ENTRY e {\n  w = f32[4,3] parameter(0)\n  c = f32[3] parameter(1)\n"
      "  a = (f32[4,3], f32[3]) scan(w, c), dimensions={0}, num_carries=1, to_apply=scalars\n"
      "  b = (f32[4,3], f32[3]) scan(w, c), dimensions={0}, num_carries=1, to_apply=slices\n"
      "  ROOT t = ((f32[4,3], f32[3]), (f32[4,3], f32[3])) tuple(a, b)\n}\n";
  const std::vector<hlo::Module> modules = test::parse_ok(text);
  const hlo::Module& m = modules[0];
  indexing::IndexingAnalysis analysis(m, {});
  const auto elementwise = analysis.output_to_input(m.entry, 2, 0);
  const auto on_slices = analysis.output_to_input(m.entry, 3, 0);
  REQUIRE(elementwise.at(0).size() == 1);
  REQUIRE(on_slices.at(0).size() == 1);
  CHECK_FALSE(elementwise[0][0].approximate());
  CHECK(on_slices[0][0].approximate());
  // (1, 2) reads w[0..1, 2] alone; on slices it may read all of w.
  CHECK(relation_of(elementwise[0], false).size() == (1 + 2 + 3 + 4) * 3);
  CHECK(relation_of(on_slices[0], false).size() == 12 * 12);
}

TEST_CASE("custom-call xla_builder.matrix.Einsum: every assignment of the summed letters",
          "[op-bruteforce][custom-call]") {
  // Random equations over letters a..d of random sizes: one or two operands,
  // letters repeated within an operand (diagonals), contracted letters, and
  // explicit or implicit outputs, an output letter twice (a diagonal result).
  // The reference evaluates the einsum's sum
  // directly: output element o reads, for every value of the letters not in
  // the output, each operand at its letters' values.
  test::Rng rng(3141);
  for (int round = 0; round < 40; ++round) {
    std::map<char, std::int64_t> size;
    for (char c = 'a'; c <= 'd'; ++c) size[c] = rng.uniform(1, 3);
    const std::size_t operand_count = static_cast<std::size_t>(rng.uniform(1, 2));
    std::vector<std::string> subscripts(operand_count);
    for (std::string& s : subscripts) {
      const auto rank = rng.uniform(1, 3);
      for (std::int64_t i = 0; i < rank; ++i) s.push_back(static_cast<char>('a' + rng.uniform(0, 3)));
    }
    std::string letters;
    for (const std::string& s : subscripts)
      for (char c : s)
        if (letters.find(c) == std::string::npos) letters.push_back(c);
    const bool implicit = round % 4 == 3;
    std::string output;
    if (implicit) {
      for (char c = 'a'; c <= 'd'; ++c) {
        std::size_t n = 0;
        for (const std::string& s : subscripts) n += static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
        if (n == 1) output.push_back(c);
      }
    } else {
      for (char c : letters)
        if (rng.uniform(0, 1) == 1) output.push_back(c);
      std::reverse(output.begin(), output.end());
      // Sometimes a letter twice: the result is zero off that diagonal.
      if (!output.empty() && output.size() < 3 && round % 5 == 1) output.push_back(output[0]);
    }
    auto dims_of = [&](const std::string& s) {
      std::vector<std::int64_t> dims;
      for (char c : s) dims.push_back(size[c]);
      return dims;
    };
    std::vector<Operand> operands;
    for (std::size_t k = 0; k < operand_count; ++k)
      operands.push_back({fmt::format("x{}", k), shape_text("f32", dims_of(subscripts[k]))});
    const std::string equation = fmt::format("{}{}", fmt::join(subscripts, ","), implicit ? "" : "->" + output);
    const std::string op = fmt::format(
        "custom-call({{}}), custom_call_target=\"xla_builder.matrix.Einsum\", backend_config=\"{}\"", equation);
    std::string summed;
    for (char c : letters)
      if (output.find(c) == std::string::npos) summed.push_back(c);
    INFO(equation);
    const Reference reference = [&](std::size_t, const Point& o) {
      Deps d;
      std::map<char, std::int64_t> value;
      for (std::size_t i = 0; i < output.size(); ++i) {
        if (value.contains(output[i]) && value[output[i]] != o[i]) return Reads{};  // off the diagonal
        value[output[i]] = o[i];
      }
      for (const Point& s : all_points(dims_of(summed))) {
        for (std::size_t i = 0; i < summed.size(); ++i) value[summed[i]] = s[i];
        for (std::size_t k = 0; k < operand_count; ++k) {
          Point at;
          for (char c : subscripts[k]) at.push_back(value[c]);
          d.insert({k, at});
        }
      }
      return Reads{d, d};
    };
    check_root(module_text("", operands, shape_text("f32", dims_of(output)), op, round % 3 == 2), reference);
  }
}

}  // namespace test_indexing_solver_bruteforce_cases

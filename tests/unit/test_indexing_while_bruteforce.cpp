// Brute-force checks of while loops with a counter (fixed seeds): random
// bodies over a state (s32[] counter, vectors f32[n], matrices f32[m,n]) that
// add, reverse, shift, reduce, broadcast, take a matrix row or a vector
// element at an offset derived from the counter (i, JAX's negative-index fix
// select(i < 0, i + m, i), 2i - 1, max(i - 1, 0)) and write a row at such an
// offset (a scan), run for every start, step, comparison and bound that ends
// within a few iterations; some start the counter at a parameter and give
// the trip count, start and step in backend_config, as XLA's while-loop
// analysis writes them.
//
// The reference runs the loop on dependency sets instead of numbers,
// independently of indexing/: every element holds the set of init elements
// its value was computed from, iteration by iteration with the counter's
// actual values and XLA's clamping of offsets; an element of a leaf the body
// changes also depends on what the condition reads (the counter), which
// decides how many iterations run. The while's output -> operand maps must be
// exactly that relation, and not approximate, and its operand -> output maps
// the inverse relation. A loop whose offset comes from a
// leaf the body passes on (a runtime value, not the counter) is run for every
// value of that leaf: the maps must hold the union (sound), approximate.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "map_relation.hpp"
#include "parse_helpers.hpp"
#include "test_rng.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_indexing_while_bruteforce_cases {

using namespace hlo_index;
using indexing::IndexingMap;
using indexing::MapSet;

namespace {

using test::all_points;
using test::Point;
using test::Relation;
using test::relation_of;

// An element's dependencies: (state leaf, index) pairs of the init.
using Deps = std::set<std::pair<std::size_t, Point>>;

enum class Offset { kCounter, kNegativeIndexFix, kTwiceMinusOne, kPrevious, kInvariantLeaf };
enum class Op { kPass, kAdd, kAddRow, kReverse, kShift, kReduce, kAddElement, kWriteRow, kBroadcastRow };

struct LeafOp {
  Op op = Op::kPass;
  std::size_t p = 0, q = 0;  // the leaves it reads (besides its own)
};

struct Loop {
  std::int64_t n = 2, m = 2;
  std::size_t vectors = 1, matrices = 0;
  std::int64_t start = 0, step = 1, bound = 0;
  std::string direction = "LT";
  Offset offset = Offset::kCounter;
  // The counter starts at a parameter, and the while's backend_config says what XLA's
  // while-loop analysis knows: the trip count, the start and step, the counter's element.
  bool configured = false;
  std::vector<LeafOp> ops;  // per leaf; leaf 0 is the counter, the last one the invariant s32[] leaf
  std::size_t leaves() const { return 1 + vectors + matrices + 1; }
  std::size_t invariant_leaf() const { return leaves() - 1; }
  bool is_vector(std::size_t leaf) const { return leaf >= 1 && leaf <= vectors; }
  bool is_matrix(std::size_t leaf) const { return leaf > vectors && leaf <= vectors + matrices; }
  std::vector<std::int64_t> dims(std::size_t leaf) const {
    if (is_vector(leaf)) return {n};
    if (is_matrix(leaf)) return {m, n};
    return {};
  }
};

bool compare(std::int64_t a, const std::string& dir, std::int64_t b) {
  if (dir == "LT") return a < b;
  if (dir == "LE") return a <= b;
  if (dir == "GT") return a > b;
  if (dir == "GE") return a >= b;
  return a != b;  // NE
}

// The counter's values in the iterations that run; none past `max` iterations.
std::optional<std::vector<std::int64_t>> counter_values(const Loop& l, std::size_t max) {
  std::vector<std::int64_t> values;
  for (std::int64_t v = l.start; compare(v, l.direction, l.bound); v += l.step) {
    if (values.size() == max) return std::nullopt;
    values.push_back(v);
  }
  return values;
}

std::int64_t offset_value(const Loop& l, std::int64_t v, std::int64_t invariant) {
  switch (l.offset) {
    case Offset::kCounter: return v;
    case Offset::kNegativeIndexFix: return v < 0 ? v + l.m : v;
    case Offset::kTwiceMinusOne: return 2 * v - 1;
    case Offset::kPrevious: return std::max<std::int64_t>(v - 1, 0);
    case Offset::kInvariantLeaf: return invariant;
  }
  return v;
}

std::string shape(const Loop& l, std::size_t leaf) {
  if (l.is_vector(leaf)) return fmt::format("f32[{}]", l.n);
  if (l.is_matrix(leaf)) return fmt::format("f32[{},{}]", l.m, l.n);
  return "s32[]";
}

std::string state_shape(const Loop& l) {
  std::vector<std::string> parts;
  for (std::size_t k = 0; k < l.leaves(); ++k) parts.push_back(shape(l, k));
  return fmt::format("({})", fmt::join(parts, ", "));
}

std::string module_text(const Loop& l, std::size_t trips) {
  const std::string state = state_shape(l);
  std::string body = fmt::format("body {{\n  s = {} parameter(0)\n", state);
  for (std::size_t k = 0; k < l.leaves(); ++k)
    body += fmt::format("  g{} = {} get-tuple-element(s), index={}\n", k, shape(l, k), k);
  body += fmt::format("  step = s32[] constant({})\n  next = s32[] add(g0, step)\n", l.step);
  body += "  zero = s32[] constant(0)\n  one = s32[] constant(1)\n  zf = f32[] constant(0)\n";
  switch (l.offset) {
    case Offset::kCounter: body += "  off = s32[] copy(g0)\n"; break;
    case Offset::kNegativeIndexFix:
      body += fmt::format(
          "  neg = pred[] compare(g0, zero), direction=LT\n  rows = s32[] constant({})\n"
          "  wrapped = s32[] add(g0, rows)\n  off = s32[] select(neg, wrapped, g0)\n",
          l.m);
      break;
    case Offset::kTwiceMinusOne:
      body += "  two = s32[] constant(2)\n  twice = s32[] multiply(g0, two)\n  off = s32[] subtract(twice, one)\n";
      break;
    case Offset::kPrevious: body += "  before = s32[] subtract(g0, one)\n  off = s32[] maximum(before, zero)\n"; break;
    case Offset::kInvariantLeaf: body += fmt::format("  off = s32[] copy(g{})\n", l.invariant_leaf()); break;
  }
  std::vector<std::string> root{"next"};
  for (std::size_t k = 1; k < l.leaves(); ++k) {
    const LeafOp& o = l.ops[k];
    const std::string v = fmt::format("v{}", k), sh = shape(l, k);
    switch (o.op) {
      case Op::kPass: root.push_back(fmt::format("g{}", k)); continue;
      case Op::kAdd: body += fmt::format("  {} = {} add(g{}, g{})\n", v, sh, o.p, o.q); break;
      case Op::kAddRow:
        body += fmt::format(
            "  ds{0} = f32[1,{1}] dynamic-slice(g{2}, off, zero), dynamic_slice_sizes={{1,{1}}}\n"
            "  row{0} = f32[{1}] reshape(ds{0})\n  {3} = {4} add(g{0}, row{0})\n",
            k, l.n, o.p, v, sh);
        break;
      case Op::kReverse: body += fmt::format("  {} = {} reverse(g{}), dimensions={{0}}\n", v, sh, o.p); break;
      case Op::kShift:
        body += fmt::format(
            "  tail{0} = f32[{1}] slice(g{2}), slice={{[1:{3}]}}\n  head{0} = f32[1] slice(g{4}), slice={{[0:1]}}\n"
            "  {5} = {6} concatenate(tail{0}, head{0}), dimensions={{0}}\n",
            k, l.n - 1, o.p, l.n, o.q, v, sh);
        break;
      case Op::kReduce:
        body += fmt::format(
            "  sum{0} = f32[] reduce(g{1}, zf), dimensions={{0}}, to_apply=add_f32\n"
            "  {2} = {3} broadcast(sum{0}), dimensions={{}}\n",
            k, o.p, v, sh);
        break;
      case Op::kAddElement:
        body += fmt::format(
            "  de{0} = f32[1] dynamic-slice(g{1}, off), dynamic_slice_sizes={{1}}\n  e{0} = f32[] reshape(de{0})\n"
            "  be{0} = {2} broadcast(e{0}), dimensions={{}}\n  {3} = {2} add(g{0}, be{0})\n",
            k, o.p, sh, v);
        break;
      case Op::kWriteRow:
        body += fmt::format(
            "  up{0} = f32[1,{1}] reshape(g{2})\n  {3} = {4} dynamic-update-slice(g{0}, up{0}, off, zero)\n", k, l.n,
            o.p, v, sh);
        break;
      case Op::kBroadcastRow: body += fmt::format("  {} = {} broadcast(g{}), dimensions={{1}}\n", v, sh, o.p); break;
    }
    root.push_back(v);
  }
  body += fmt::format("  ROOT t = {} tuple({})\n}}\n", state, fmt::join(root, ", "));
  std::string text = "HloModule loop\n\nadd_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n";
  text += "  ROOT r = f32[] add(a, b)\n}\n\n" + body;
  text += fmt::format(
      "\ncond {{\n  s = {} parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n  b = s32[] constant({})\n"
      "  ROOT p = pred[] compare(i, b), direction={}\n}}\n",
      state, l.bound, l.direction);
  text += l.configured ? fmt::format("\nENTRY main {{\n  c = s32[] parameter({})\n", l.leaves() - 1)
                       : fmt::format("\nENTRY main {{\n  c = s32[] constant({})\n", l.start);
  std::vector<std::string> init{"c"};
  for (std::size_t k = 1; k < l.leaves(); ++k) {
    text += fmt::format("  p{} = {} parameter({})\n", k, shape(l, k), k - 1);
    init.push_back(fmt::format("p{}", k));
  }
  const std::string config =
      l.configured ? fmt::format(
                         ", backend_config={{\"known_trip_count\":{{\"n\":\"{}\"}},\"known_init_step\":{{\"init\":"
                         "\"{}\",\"step\":\"{}\"}},\"known_induction_variable\":{{\"tuple_index\":\"0\"}}}}",
                         trips, l.start, l.step)
                   : "";
  text += fmt::format("  init = {0} tuple({1})\n  ROOT w = {0} while(init), condition=cond, body=body{2}\n}}\n", state,
                      fmt::join(init, ", "), config);
  return text;
}

std::int64_t clamp(std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::min(std::max(v, lo), hi); }

// The loop on dependency sets, with the invariant leaf holding `invariant`:
// per leaf, per element (row-major), the init elements it depends on.
std::vector<std::vector<Deps>> run(const Loop& l, const std::vector<std::int64_t>& values, std::int64_t invariant) {
  std::vector<std::vector<Deps>> state(l.leaves());
  for (std::size_t k = 0; k < l.leaves(); ++k) {
    for (const Point& p : all_points(l.dims(k))) state[k].push_back(Deps{{k, p}});
  }
  const Deps counter_read{{0, {}}};  // the counter only ever depends on its init
  for (const std::int64_t v : values) {
    std::vector<std::vector<Deps>> next = state;
    const std::int64_t off = offset_value(l, v, invariant);
    // An offset read depends on the counter, or on the invariant leaf.
    const Deps offset_read = l.offset == Offset::kInvariantLeaf ? state[l.invariant_leaf()][0] : state[0][0];
    for (std::size_t k = 1; k < l.leaves(); ++k) {
      const LeafOp& o = l.ops[k];
      const auto& old = state;
      auto& out = next[k];
      for (std::size_t e = 0; e < out.size(); ++e) {
        Deps d;
        auto add = [&](const Deps& more) { d.insert(more.begin(), more.end()); };
        const auto n = static_cast<std::size_t>(l.n);
        switch (o.op) {
          case Op::kPass: add(old[k][e]); break;
          case Op::kAdd:
            add(old[o.p][e]);
            add(old[o.q][e]);
            break;
          case Op::kAddRow:
            add(old[k][e]);
            add(old[o.p][static_cast<std::size_t>(clamp(off, 0, l.m - 1)) * n + e]);
            add(offset_read);
            break;
          case Op::kReverse: add(old[o.p][n - 1 - e]); break;
          case Op::kShift: add(e + 1 < n ? old[o.p][e + 1] : old[o.q][0]); break;
          case Op::kReduce:
            for (const Deps& x : old[o.p]) add(x);
            break;
          case Op::kAddElement:
            add(old[k][e]);
            add(old[o.p][static_cast<std::size_t>(clamp(off, 0, l.n - 1))]);
            add(offset_read);
            break;
          case Op::kWriteRow: {
            const std::size_t row = e / n, column = e % n;
            add(static_cast<std::int64_t>(row) == clamp(off, 0, l.m - 1) ? old[o.p][column] : old[k][e]);
            add(offset_read);
            break;
          }
          case Op::kBroadcastRow: add(old[o.p][e % n]); break;
        }
        out[e] = std::move(d);
      }
    }
    state = std::move(next);
  }
  // A leaf the body changes depends on the counter the condition reads.
  for (std::size_t k = 0; k < l.leaves(); ++k) {
    if (k != 0 && l.ops[k].op == Op::kPass) continue;
    for (Deps& d : state[k]) d.insert(counter_read.begin(), counter_read.end());
  }
  return state;
}

// The relation of output leaf k in the reference: (element, (leaf, index...)).
Relation reference_relation(const Loop& l, const std::vector<std::vector<Deps>>& state, std::size_t k) {
  Relation out;
  const std::vector<Point> points = all_points(l.dims(k));
  for (std::size_t e = 0; e < points.size(); ++e) {
    for (const auto& [leaf, index] : state[k][e]) {
      Point to{static_cast<std::int64_t>(leaf)};
      to.insert(to.end(), index.begin(), index.end());
      out.insert({points[e], to});
    }
  }
  return out;
}

Loop random_loop(test::Rng& rng, std::vector<std::int64_t>& values) {
  for (;;) {
    Loop l;
    l.n = rng.uniform(2, 4);
    l.m = rng.uniform(2, 4);
    l.vectors = static_cast<std::size_t>(rng.uniform(1, 3));
    l.matrices = static_cast<std::size_t>(rng.uniform(0, 2));
    l.start = rng.uniform(-3, 3);
    l.step = rng.pick(std::vector<std::int64_t>{1, 1, 2, -1, -2});
    l.bound = l.start + rng.uniform(-2, 10) * (l.step > 0 ? 1 : -1);
    l.direction = rng.pick(std::vector<std::string>{"LT", "LE", "GT", "GE", "NE"});
    l.offset = static_cast<Offset>(rng.uniform(0, 4));
    l.configured = rng.chance(25);
    auto v = counter_values(l, 6);
    if (!v) continue;
    values = *v;
    l.ops.resize(l.leaves());
    auto any_vector = [&] { return static_cast<std::size_t>(rng.uniform(1, static_cast<std::int64_t>(l.vectors))); };
    auto any_matrix = [&] { return l.vectors + 1 + rng.index(l.matrices); };
    for (std::size_t k = 1; k <= l.vectors + l.matrices; ++k) {
      LeafOp& o = l.ops[k];
      if (l.is_vector(k)) {
        std::vector<Op> menu{Op::kPass, Op::kAdd, Op::kReverse, Op::kShift, Op::kReduce, Op::kAddElement};
        if (l.matrices > 0) menu.push_back(Op::kAddRow);
        o.op = rng.pick(menu);
        o.p = o.op == Op::kAddRow ? any_matrix() : any_vector();
        o.q = any_vector();
      } else {
        o.op = rng.pick(std::vector<Op>{Op::kPass, Op::kAdd, Op::kWriteRow, Op::kWriteRow, Op::kBroadcastRow});
        o.p = o.op == Op::kAdd ? any_matrix() : any_vector();
        o.q = any_matrix();
      }
    }
    return l;
  }
}

}  // namespace

TEST_CASE("while with a counter: maps are the loop's dependences, exactly") {
  test::Rng rng(20261127);
  std::size_t exact_loops = 0, runtime_loops = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::vector<std::int64_t> values;
    const Loop l = random_loop(rng, values);
    const std::string text = module_text(l, values.size());
    INFO(text);
    const std::vector<hlo::Module> modules = test::parse_ok(text);
    const hlo::Module& m = modules[0];
    const hlo::Computation& c = m.computations[m.entry];
    indexing::IndexingAnalysis analysis(m, {});
    const indexing::InstructionIndexing maps = analysis.analyze(m.entry, c.root, true, true);
    // The invariant leaf is a runtime value: every value its clamp can tell apart, and one past each side.
    std::vector<std::int64_t> invariants{0};
    if (l.offset == Offset::kInvariantLeaf) {
      invariants.clear();
      for (std::int64_t x = -1; x <= std::max(l.m, l.n); ++x) invariants.push_back(x);
    }
    for (std::size_t k = 0; k < l.leaves(); ++k) {
      INFO("output " << k);
      Relation may, certain;
      for (std::size_t x = 0; x < invariants.size(); ++x) {
        const Relation one = reference_relation(l, run(l, values, invariants[x]), k);
        may.insert(one.begin(), one.end());
        if (x == 0) {
          certain = one;
        } else {
          Relation both;
          std::set_intersection(certain.begin(), certain.end(), one.begin(), one.end(),
                                std::inserter(both, both.end()));
          certain = std::move(both);
        }
      }
      const MapSet& set = maps.output_to_input.at(k).at(0);
      const Relation all = relation_of(set, false);
      // Operand -> output: from (leaf, index) of the init to the output's elements.
      const MapSet& forward = maps.input_to_output.at(k).at(0);
      const Relation all_forward = relation_of(forward, false);
      if (l.offset != Offset::kInvariantLeaf) {
        CHECK(all == may);
        for (const IndexingMap& map : set) CHECK_FALSE(map.approximate());
        CHECK(all_forward == test::inverse(may));
        for (const IndexingMap& map : forward) CHECK_FALSE(map.approximate());
      } else {
        CHECK(std::includes(all.begin(), all.end(), may.begin(), may.end()));
        const Relation exact = relation_of(set, true);
        CHECK(std::includes(certain.begin(), certain.end(), exact.begin(), exact.end()));
        const Relation inverse_may = test::inverse(may);
        CHECK(std::includes(all_forward.begin(), all_forward.end(), inverse_may.begin(), inverse_may.end()));
      }
    }
    (l.offset == Offset::kInvariantLeaf ? runtime_loops : exact_loops) += 1;
  }
  CHECK(exact_loops > 80);
  CHECK(runtime_loops > 10);
}

}  // namespace test_indexing_while_bruteforce_cases

// The instruction filter (names, regexes, kinds, opcodes) and the rows of
// `hlo-index summary`: every figure of a row checked against a direct
// evaluation of the fusion's semantics on small shapes (each output element's
// reads listed by hand from what the op does, then counted), and the memo
// checked by rows that must be equal or differ.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/verdicts/linter.hpp"
#include "indexing/verdicts/summary.hpp"
#include "parse_helpers.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analysis_summary_cases {

using namespace hlo_index;
using analysis::InstructionFilter;
using analysis::NamePattern;
using analysis::SummaryRow;

namespace {

// Per operand, per path from the output to it: the (output element, operand
// element) pairs it reads, flat indices.
using Path = std::set<std::pair<std::int64_t, std::int64_t>>;
using Reads = std::vector<std::vector<Path>>;

struct Expected {
  std::int64_t bytes_read = 0, traffic = 0;
  double worst_utilisation = 2, highest_multiplicity = 0;
};

// The figures a row must show for `reads` of operands of `sizes` elements of
// `bytes` each. Reads are counted per distinct access relation (two paths
// that read the same pairs are one way of reading, as the maps are printed
// once), elements once.
Expected expected_from(const Reads& reads, const std::vector<std::int64_t>& sizes, std::int64_t bytes) {
  Expected e;
  for (std::size_t j = 0; j < reads.size(); ++j) {
    const std::set<Path> relations(reads[j].begin(), reads[j].end());
    std::set<std::int64_t> distinct;
    std::int64_t total = 0;
    for (const Path& path : relations) {
      total += static_cast<std::int64_t>(path.size());
      for (const auto& [output, element] : path) distinct.insert(element);
    }
    const auto n = static_cast<std::int64_t>(distinct.size());
    e.bytes_read += n * bytes;
    e.traffic += total * bytes;
    if (n == 0) continue;
    e.worst_utilisation = std::min(e.worst_utilisation, static_cast<double>(n) / static_cast<double>(sizes[j]));
    e.highest_multiplicity = std::max(e.highest_multiplicity, static_cast<double>(total) / static_cast<double>(n));
  }
  return e;
}

std::vector<SummaryRow> rows_of(const std::string& text, const analysis::SummaryRequest& request = {}) {
  std::vector<hlo::Module> modules = test::parse_ok(text);
  return analysis::summarise_module(modules[0], request).rows;
}

void check_row(const SummaryRow& row, const Expected& e) {
  CHECK(row.bytes_read == e.bytes_read);
  CHECK(row.logical_read_bytes == e.traffic);
  REQUIRE(row.worst_utilisation.has_value());
  CHECK(*row.worst_utilisation == Approx(e.worst_utilisation));
  REQUIRE(row.highest_multiplicity.has_value());
  CHECK(*row.highest_multiplicity == Approx(e.highest_multiplicity));
  CHECK(row.counts_exact);
  CHECK_FALSE(row.undefined);
}

}  // namespace

TEST_CASE("NamePattern searches an ECMAScript regex anywhere in the name") {
  std::string error;
  const auto fusion = NamePattern::compile("fusion", &error);
  REQUIRE(fusion);
  CHECK(fusion->matches("loop_fusion.3"));
  CHECK(fusion->matches("fusion"));
  CHECK_FALSE(fusion->matches("fused_computation"));
  const auto exact = NamePattern::compile("^fusion\\.3$", &error);
  REQUIRE(exact);
  CHECK(exact->matches("fusion.3"));
  CHECK_FALSE(exact->matches("fusion.33"));
  CHECK_FALSE(exact->matches("loop_fusion.3"));
  const auto either = NamePattern::compile("transpose|copy", &error);
  REQUIRE(either);
  CHECK(either->matches("copy.1"));
  CHECK(either->matches("transpose_fusion"));
  CHECK_FALSE(either->matches("add"));
  CHECK_FALSE(NamePattern::compile("fusion(", &error));
  CHECK_FALSE(error.empty());
}

TEST_CASE("name_matches: exact names, and globs with *, ? and sets") {
  using analysis::name_matches;
  CHECK(name_matches("fusion.3", "fusion.3"));
  CHECK_FALSE(name_matches("fusion.3", "fusion.31"));
  CHECK_FALSE(name_matches("fusion", "loop_fusion"));  // a plain name is never a substring search
  CHECK(name_matches("fusion.*", "fusion.31"));
  CHECK(name_matches("*fusion*", "loop_fusion.7"));
  CHECK_FALSE(name_matches("fusion.*", "loop_fusion.1"));
  CHECK(name_matches("fusion.?", "fusion.7"));
  CHECK_FALSE(name_matches("fusion.?", "fusion.17"));
  CHECK(name_matches("fusion.[0-4]", "fusion.3"));
  CHECK_FALSE(name_matches("fusion.[0-4]", "fusion.5"));
  CHECK(name_matches("fusion.[!0-4]", "fusion.5"));
  CHECK(name_matches("a*b*c", "axxbyyc"));
  CHECK_FALSE(name_matches("a*b*c", "axxbyy"));
  CHECK(name_matches("*", ""));
  CHECK(name_matches("x[", "x["));  // an unclosed set is a literal [
  // Backtracking stays polynomial: 30 stars against a long name that almost matches.
  const std::string stars = std::string(30, '*') + "b";
  CHECK_FALSE(name_matches("a" + stars, std::string(5000, 'a')));
}

TEST_CASE("InstructionFilter: modules, computations, kinds, opcodes and names") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(HloModule m
fused {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}
ENTRY main {
  a = f32[4]{0} parameter(0)
  loop_fusion = f32[4]{0} fusion(a), kind=kLoop, calls=fused
  ROOT input_fusion = f32[4]{0} fusion(loop_fusion), kind=kInput, calls=fused
}
)");
  const hlo::Module& m = modules[0];
  const hlo::Computation& main = m.computations[m.entry];
  auto accepted = [&](const InstructionFilter& f) {
    std::vector<std::string> names;
    for (const hlo::Instruction& i : main.instructions) {
      if (f.accepts_instruction(m, main, i)) names.emplace_back(i.name);
    }
    return names;
  };
  InstructionFilter every;
  CHECK(every.selects_every_instruction());
  CHECK(every.accepts_module(m));
  CHECK(every.accepts_computation(main));
  CHECK(accepted(every) == std::vector<std::string>{"a", "loop_fusion", "input_fusion"});

  InstructionFilter kind;
  kind.kinds = {"kInput"};
  CHECK(accepted(kind) == std::vector<std::string>{"input_fusion"});
  InstructionFilter opcode;
  opcode.opcodes = {"parameter", "fusion"};
  CHECK(accepted(opcode) == std::vector<std::string>{"a", "loop_fusion", "input_fusion"});
  opcode.opcodes = {"parameter"};
  CHECK(accepted(opcode) == std::vector<std::string>{"a"});
  InstructionFilter match;
  std::string error;
  match.match = NamePattern::compile("^l", &error);
  CHECK_FALSE(match.selects_every_instruction());
  CHECK(accepted(match) == std::vector<std::string>{"loop_fusion"});

  InstructionFilter module;
  module.modules = {"other"};
  CHECK_FALSE(module.accepts_module(m));
  module.modules = {"m"};
  CHECK(module.accepts_module(m));
  InstructionFilter computation;
  computation.computations = {"fused"};
  CHECK_FALSE(computation.accepts_computation(main));
  CHECK(analysis::without_sigil("%fusion.3") == "fusion.3");
  CHECK(analysis::without_sigil("fusion.3") == "fusion.3");
}

TEST_CASE("summary rows: p + transpose(p) against enumeration") {
  for (std::int64_t n = 1; n <= 6; ++n) {
    DYNAMIC_SECTION("n = " << n) {
      const std::string text = fmt::format(R"(HloModule m
fused {{
  p = f32[{0},{0}]{{1,0}} parameter(0)
  t = f32[{0},{0}]{{1,0}} transpose(p), dimensions={{1,0}}
  ROOT s = f32[{0},{0}]{{1,0}} add(p, t)
}}
ENTRY main {{
  a = f32[{0},{0}]{{1,0}} parameter(0)
  ROOT f = f32[{0},{0}]{{1,0}} fusion(a), kind=kLoop, calls=fused
}}
)",
                                           n);
      Reads reads{std::vector<Path>(2)};
      for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          reads[0][0].insert({i * n + j, i * n + j});  // p[i, j]
          reads[0][1].insert({i * n + j, j * n + i});  // transpose(p)[i, j] = p[j, i]
        }
      }
      const std::vector<SummaryRow> rows = rows_of(text);
      REQUIRE(rows.size() == 1);
      check_row(rows[0], expected_from(reads, {n * n}, 4));
      CHECK(rows[0].output_bytes == n * n * 4);
      CHECK(rows[0].kind == "kLoop");
      CHECK(rows[0].line == 9);  // ROOT f = ... fusion(a)
    }
  }
}

TEST_CASE("summary rows: strided slice, row reduce and broadcast-multiply against enumeration") {
  for (std::int64_t rows_n = 1; rows_n <= 5; ++rows_n) {
    for (std::int64_t cols = 1; cols <= 5; ++cols) {
      for (std::int64_t stride = 1; stride <= 3; ++stride) {
        DYNAMIC_SECTION(rows_n << "x" << cols << " stride " << stride) {
          const std::int64_t sliced = (rows_n + stride - 1) / stride;
          const std::string text = fmt::format(R"(HloModule m
add {{
  x = bf16[] parameter(0)
  y = bf16[] parameter(1)
  ROOT s = bf16[] add(x, y)
}}
fused_slice {{
  p = bf16[{0},{1}]{{1,0}} parameter(0)
  ROOT s = bf16[{3},{1}]{{1,0}} slice(p), slice={{[0:{0}:{2}], [0:{1}]}}
}}
fused_reduce {{
  p = bf16[{0},{1}]{{1,0}} parameter(0)
  z = bf16[] constant(0)
  ROOT r = bf16[{0}]{{0}} reduce(p, z), dimensions={{1}}, to_apply=add
}}
fused_scale {{
  p = bf16[{0},{1}]{{1,0}} parameter(0)
  v = bf16[{0}]{{0}} parameter(1)
  b = bf16[{0},{1}]{{1,0}} broadcast(v), dimensions={{0}}
  ROOT m = bf16[{0},{1}]{{1,0}} multiply(p, b)
}}
ENTRY main {{
  a = bf16[{0},{1}]{{1,0}} parameter(0)
  v = bf16[{0}]{{0}} parameter(1)
  slice_fusion = bf16[{3},{1}]{{1,0}} fusion(a), kind=kLoop, calls=fused_slice
  reduce_fusion = bf16[{0}]{{0}} fusion(a), kind=kInput, calls=fused_reduce
  ROOT scale_fusion = bf16[{0},{1}]{{1,0}} fusion(a, v), kind=kLoop, calls=fused_scale
}}
)",
                                               rows_n, cols, stride, sliced);
          const std::vector<SummaryRow> rows = rows_of(text);
          REQUIRE(rows.size() == 3);
          Reads slice{std::vector<Path>(1)}, reduce{std::vector<Path>(1)},
              scale{std::vector<Path>(1), std::vector<Path>(1)};
          for (std::int64_t i = 0; i < sliced; ++i) {
            for (std::int64_t j = 0; j < cols; ++j) slice[0][0].insert({i * cols + j, i * stride * cols + j});
          }
          for (std::int64_t i = 0; i < rows_n; ++i) {
            for (std::int64_t j = 0; j < cols; ++j) reduce[0][0].insert({i, i * cols + j});  // r[i] = sum_j p[i, j]
          }
          for (std::int64_t i = 0; i < rows_n; ++i) {
            for (std::int64_t j = 0; j < cols; ++j) {
              scale[0][0].insert({i * cols + j, i * cols + j});
              scale[1][0].insert({i * cols + j, i});  // broadcast(v)[i, j] = v[i]
            }
          }
          CHECK(rows[0].name == "slice_fusion");
          check_row(rows[0], expected_from(slice, {rows_n * cols}, 2));
          CHECK(rows[1].name == "reduce_fusion");
          check_row(rows[1], expected_from(reduce, {rows_n * cols}, 2));
          CHECK(rows[2].name == "scale_fusion");
          check_row(rows[2], expected_from(scale, {rows_n * cols, rows_n}, 2));
        }
      }
    }
  }
}

TEST_CASE("summary rows: a multi-output fusion is counted by its shared loop, as analyze counts it") {
  // A reduction fusion that also returns the exponentials it reduces: XLA
  // emits one loop over the reduced input, evaluating e[i, j] = exp(x[i, j])
  // once for both outputs, so each x element is read once (counting each
  // output's maps apart would read it twice).
  for (std::int64_t rows_n = 1; rows_n <= 4; ++rows_n) {
    for (std::int64_t cols = 1; cols <= 4; ++cols) {
      DYNAMIC_SECTION(rows_n << "x" << cols) {
        const std::string text = fmt::format(R"(HloModule m
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
fused {{
  p = f32[{0},{1}]{{1,0}} parameter(0)
  e = f32[{0},{1}]{{1,0}} exponential(p)
  z = f32[] constant(0)
  r = f32[{0}]{{0}} reduce(e, z), dimensions={{1}}, to_apply=add
  ROOT t = (f32[{0}]{{0}}, f32[{0},{1}]{{1,0}}) tuple(r, e)
}}
ENTRY main {{
  x = f32[{0},{1}]{{1,0}} parameter(0)
  ROOT f = (f32[{0}]{{0}}, f32[{0},{1}]{{1,0}}) fusion(x), kind=kInput, calls=fused
}}
)",
                                             rows_n, cols);
        const std::vector<SummaryRow> rows = rows_of(text);
        REQUIRE(rows.size() == 1);
        Reads loop{std::vector<Path>(1)};  // (loop point, x element) pairs
        for (std::int64_t i = 0; i < rows_n * cols; ++i) loop[0][0].insert({i, i});
        check_row(rows[0], expected_from(loop, {rows_n * cols}, 4));
      }
    }
  }
}

TEST_CASE("summary rows: lint counts of equal fusions differ where the operand's other users differ") {
  // lo_a and lo_b are the same fusion on equal shapes, but hi_a reads the
  // rest of a (a split: no waste) and nothing reads the rest of b.
  const std::vector<hlo::Module> modules = test::parse_ok(R"(HloModule split
fused_lo {
  p = f32[1024,1024]{1,0} parameter(0)
  ROOT s = f32[64,1024]{1,0} slice(p), slice={[0:64], [0:1024]}
}
fused_hi {
  p = f32[1024,1024]{1,0} parameter(0)
  ROOT s = f32[960,1024]{1,0} slice(p), slice={[64:1024], [0:1024]}
}
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  lo_a = f32[64,1024]{1,0} fusion(a), kind=kLoop, calls=fused_lo
  hi_a = f32[960,1024]{1,0} fusion(a), kind=kLoop, calls=fused_hi
  lo_b = f32[64,1024]{1,0} fusion(b), kind=kLoop, calls=fused_lo
  ROOT t = (f32[64,1024]{1,0}, f32[960,1024]{1,0}, f32[64,1024]{1,0}) tuple(lo_a, hi_a, lo_b)
}
)");
  const std::vector<SummaryRow> rows = analysis::summarise_module(modules[0], {}).rows;
  REQUIRE(rows.size() == 3);
  analysis::LintRuleSet every_rule;
  every_rule.set();
  analysis::Linter linter(modules[0], every_rule, analysis::LintThresholds{});
  const hlo::Computation& entry = modules[0].computations.back();
  for (const SummaryRow& row : rows) {
    CAPTURE(row.name);
    std::uint32_t ii = 0;
    while (entry.instructions[ii].name != row.name) ++ii;
    const std::size_t linted = linter.lint(static_cast<std::uint32_t>(modules[0].computations.size() - 1), ii).size();
    CHECK(row.lint_findings == linted);
  }
  CHECK(rows[0].lint_findings == 0);  // lo_a
  CHECK(rows[2].lint_findings == 1);  // lo_b: 6.25% of b read
}

TEST_CASE("summary rows: repeated layers give equal rows, different shapes different ones") {
  const std::vector<SummaryRow> rows = rows_of(R"(HloModule m
fused {
  p = f32[2048,1024]{1,0} parameter(0)
  ROOT s = f32[16,1024]{1,0} slice(p), slice={[0:16], [0:1024]}
}
fused.1 {
  p.1 = f32[2048,1024]{1,0} parameter(0)
  ROOT s.1 = f32[16,1024]{1,0} slice(p.1), slice={[0:16], [0:1024]}
}
fused.2 {
  p.2 = f32[32,1024]{1,0} parameter(0)
  ROOT s.2 = f32[16,1024]{1,0} slice(p.2), slice={[0:16], [0:1024]}
}
ENTRY main {
  a = f32[2048,1024]{1,0} parameter(0)
  b = f32[32,1024]{1,0} parameter(1)
  first = f32[16,1024]{1,0} fusion(a), kind=kLoop, calls=fused
  second = f32[16,1024]{1,0} fusion(a), kind=kLoop, calls=fused.1
  ROOT third = f32[16,1024]{1,0} fusion(b), kind=kLoop, calls=fused.2
}
)");
  REQUIRE(rows.size() == 3);
  // 16 of 2048 rows of an 8 MiB operand: low-utilisation fires; on 32 rows of 128 KiB it does not.
  CHECK(rows[0].lint_findings == 1);
  CHECK(rows[1].lint_findings == 1);
  CHECK(rows[2].lint_findings == 0);
  CHECK(*rows[0].worst_utilisation == Approx(16.0 / 2048));
  CHECK(*rows[1].worst_utilisation == Approx(16.0 / 2048));
  CHECK(*rows[2].worst_utilisation == Approx(0.5));
  CHECK(rows[0].access.text == "coalesced");
}

TEST_CASE("summary rows: sorting by each column, ties by position") {
  auto row = [](std::string name, std::size_t line, std::int64_t traffic, std::optional<double> utilisation) {
    SummaryRow r;
    r.name = std::move(name);
    r.line = line;
    r.logical_read_bytes = traffic;
    r.worst_utilisation = utilisation;
    return r;
  };
  const std::vector<SummaryRow> rows = {row("b", 3, 10, 0.5), row("a", 2, 30, std::nullopt), row("c", 1, 10, 0.25)};
  auto order = [&](const char* column) {
    auto sorted = rows;
    analysis::sort_rows(sorted, *analysis::find_summary_column(column));
    std::vector<std::string> names;
    names.reserve(sorted.size());
    for (const SummaryRow& r : sorted) names.push_back(r.name);
    return fmt::format("{}", fmt::join(names, ""));
  };
  CHECK(order("logical-reads") == "acb");  // descending, the tie by line
  CHECK(order("utilisation") == "cba");    // ascending, rows without a value last
  CHECK(order("name") == "abc");
  CHECK(order("line") == "cab");
  CHECK_FALSE(analysis::find_summary_column("speed"));
  CHECK(analysis::summary_column_names().size() == 18);
}

TEST_CASE("summary rows: sorting many rows keeps every row and orders them as a stable sort would") {
  // Enough rows for long cycles in the permutation sort_rows applies in place, with ties.
  std::vector<SummaryRow> rows;
  std::uint64_t state = 12345;
  for (std::size_t k = 0; k < 500; ++k) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    SummaryRow r;
    r.name = std::string(1, static_cast<char>('a' + (state >> 60) % 8));
    r.line = 1000 - k;  // the tie-break
    r.op_name = std::to_string(k);
    rows.push_back(std::move(r));
  }
  std::vector<SummaryRow> expected = rows;
  std::stable_sort(expected.begin(), expected.end(), [](const SummaryRow& a, const SummaryRow& b) {
    return std::tie(a.name, a.line) < std::tie(b.name, b.line);
  });
  analysis::sort_rows(rows, *analysis::find_summary_column("name"));
  REQUIRE(rows.size() == expected.size());
  std::size_t misplaced = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) misplaced += rows[k].op_name == expected[k].op_name ? 0 : 1;
  CHECK(misplaced == 0);
}

TEST_CASE("summary rows: sorting by measured time, rows without a measurement last") {
  auto row = [](std::string name, std::size_t line, std::optional<double> measured) {
    SummaryRow r;
    r.name = std::move(name);
    r.line = line;
    r.measured_seconds = measured;
    return r;
  };
  std::vector<SummaryRow> rows = {row("a", 1, std::nullopt), row("b", 2, 2e-6), row("c", 3, 5e-6), row("d", 4, 2e-6)};
  analysis::sort_rows(rows, *analysis::find_summary_column("measured"));
  std::string names;
  for (const SummaryRow& r : rows) names += r.name;
  CHECK(names == "cbda");  // descending, the tie by line, the unmeasured row last
}

TEST_CASE("summary rows: sorting by estimated time, then FLOPs, bytes and intensity") {
  auto row = [](std::string name, std::size_t line, double seconds, double runs, std::int64_t flops,
                std::int64_t bytes) {
    SummaryRow r;
    r.name = std::move(name);
    r.line = line;
    r.cost.runs = true;
    r.cost.seconds = seconds;
    r.runs.count = runs;
    r.cost.flops = flops;
    r.cost.device_bytes_read = bytes;
    return r;
  };
  // b runs ten times: 10 us in all, more than a's 5 us.
  const std::vector<SummaryRow> rows = {row("a", 1, 5e-6, 1, 100, 400), row("b", 2, 1e-6, 10, 50, 10),
                                        row("c", 3, 2e-6, 1, 400, 100)};
  auto order = [&](const char* column) {
    auto sorted = rows;
    analysis::sort_rows(sorted, *analysis::find_summary_column(column));
    std::string names;
    for (const SummaryRow& r : sorted) names += r.name;
    return names;
  };
  CHECK(order("time") == "bac");
  CHECK(order("flops") == "cab");
  CHECK(order("bytes") == "acb");
  CHECK(order("intensity") == "bca");  // 5, 4, 0.25 FLOP per byte
}

TEST_CASE("scalar_computations: reducers and comparators, not called or looped computations") {
  const std::vector<hlo::Module> modules = test::parse_ok(R"(HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}
greater {
  g0 = f32[] parameter(0)
  g1 = f32[] parameter(1)
  ROOT gt = pred[] compare(g0, g1), direction=GT
}
custom_body {
  cb = f32[4]{0} parameter(0)
  ROOT cn = f32[4]{0} negate(cb)
}
dead_scalar {
  u = f32[] parameter(0)
  ROOT n = f32[] negate(u)
}
dead_array {
  v = f32[4]{0} parameter(0)
  ROOT n.1 = f32[4]{0} negate(v)
}
called {
  w = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(w, z), dimensions={0}, to_apply=add
}
ENTRY main {
  p = f32[4]{0} parameter(0)
  zero = f32[] constant(0)
  sum = f32[] reduce(p, zero), dimensions={0}, to_apply=add
  sorted = f32[4]{0} sort(p), dimensions={0}, to_apply=less
  top = f32[4]{0} custom-call(p), custom_call_target="TopK", called_computations={%greater}
  other = f32[4]{0} custom-call(p), custom_call_target="Other", called_computations={custom_body}
  ROOT c = f32[] call(p), to_apply=called
}
)");
  const hlo::Module& m = modules[0];
  const std::vector<bool> scalar = analysis::scalar_computations(m);
  auto is_scalar = [&](const char* name) { return static_cast<bool>(scalar[m.find_computation(name)]); };
  CHECK(is_scalar("add"));      // reduce's to_apply, also from inside a called computation
  CHECK(is_scalar("less"));     // sort's comparator
  CHECK(is_scalar("greater"));  // a custom call's all-scalar computation (TopK's comparator)
  CHECK_FALSE(is_scalar("custom_body"));
  CHECK(is_scalar("dead_scalar"));  // nothing calls it, every value a scalar
  CHECK_FALSE(is_scalar("dead_array"));
  CHECK_FALSE(is_scalar("called"));  // call's to_apply= is a call
  CHECK_FALSE(is_scalar("main"));
}

TEST_CASE("summary rows: a fusion holding a dot is not judged by the access models, an add is") {
  // Both read a column-major operand along its rows; the add's loop emitter
  // reads it 256 elements apart per thread, the dot's matmul emitter tiles it.
  const std::string text = R"(HloModule m
fused_dot {
  a = f32[256,256]{0,1} parameter(0)
  b = f32[256,256]{1,0} parameter(1)
  ROOT d = f32[256,256]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
fused_add {
  a = f32[256,256]{0,1} parameter(0)
  b = f32[256,256]{1,0} parameter(1)
  ROOT c = f32[256,256]{1,0} add(a, b)
}
ENTRY main {
  a = f32[256,256]{0,1} parameter(0)
  b = f32[256,256]{1,0} parameter(1)
  dot_fusion = f32[256,256]{1,0} fusion(a, b), kind=kCustom, calls=fused_dot
  ROOT add_fusion = f32[256,256]{1,0} fusion(a, b), kind=kLoop, calls=fused_add
}
)";
  analysis::SummaryRequest request;
  request.target = analysis::Target::kGpu;
  const std::vector<SummaryRow> rows = rows_of(text, request);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "dot_fusion");
  CHECK(rows[0].access.text == "matmul");
  CHECK(rows[1].name == "add_fusion");
  CHECK(rows[1].access.text == "strided 256");
}

}  // namespace test_analysis_summary_cases

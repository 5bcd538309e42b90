// Golden files (app/golden_file.hpp): the unified diff on its own (exact
// texts, and minimality and correctness against a quadratic LCS on random
// inputs), and `hlo-index analyze --expect/--update/--canonical-names` in
// process on testdata/golden_files/, with golden files in a temporary folder.
//
// testdata/golden_files/canonical_step.expected (and .json.expected) hold the
// canonical output of canonical_step.hlo, which canonical_step_renumbered.hlo
// must match too; the test binary's --update rewrites them.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "app/analyze_command.hpp"
#include "app/golden_file.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_golden_file_cases {

using namespace hlo_index;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "golden_files";

std::string diff(std::string_view a, std::string_view b) { return app::unified_diff(a, b); }

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.emplace_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Applies a unified diff made with the default labels to `old_text`; also
// counts its changed lines and checks every hunk header against its body.
std::string apply(const std::string& old_text, const std::string& patch, std::size_t& changed) {
  const std::vector<std::string> old_lines = lines_of(old_text);
  std::istringstream in(patch);
  std::string line, out;
  std::getline(in, line);
  REQUIRE(line == "--- a");
  std::getline(in, line);
  REQUIRE(line == "+++ b");
  std::size_t next = 0;  // the first old line not copied yet
  std::vector<std::string> body;
  while (std::getline(in, line)) body.push_back(line);
  for (std::size_t k = 0; k < body.size();) {
    long a_start = 0, a_count = 1, b_start = 0, b_count = 1;
    const std::string& header = body[k];
    REQUIRE(header.rfind("@@ -", 0) == 0);
    char sep = 0;
    std::istringstream h(header.substr(4));
    h >> a_start;
    if (h.peek() == ',') h >> sep >> a_count;
    h >> sep;
    REQUIRE(sep == '+');
    h >> b_start;
    if (h.peek() == ',') h >> sep >> b_count;
    const std::size_t first = static_cast<std::size_t>(a_count == 0 ? a_start : a_start - 1);
    REQUIRE(first >= next);
    for (; next < first; ++next) out += old_lines[next];
    long seen_a = 0, seen_b = 0;
    for (++k; k < body.size() && body[k].rfind("@@", 0) != 0; ++k) {
      const char kind = body[k][0];
      std::string text = body[k].substr(1) + "\n";
      if (k + 1 < body.size() && body[k + 1] == "\\ No newline at end of file") {
        text.pop_back();
        ++k;
      }
      if (kind != '+') {
        REQUIRE(next < old_lines.size());
        REQUIRE(old_lines[next] == text);
        ++next;
        ++seen_a;
      }
      if (kind != '-') {
        out += text;
        ++seen_b;
      }
      if (kind != ' ') ++changed;
      REQUIRE((kind == ' ' || kind == '-' || kind == '+'));
    }
    CHECK(seen_a == a_count);
    CHECK(seen_b == b_count);
  }
  for (; next < old_lines.size(); ++next) out += old_lines[next];
  return out;
}

// The number of lines a shortest edit script changes: N + M - 2·LCS.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  const auto x = lines_of(a), y = lines_of(b);
  std::vector<std::vector<std::size_t>> lcs(x.size() + 1, std::vector<std::size_t>(y.size() + 1, 0));
  for (std::size_t i = 1; i <= x.size(); ++i)
    for (std::size_t j = 1; j <= y.size(); ++j)
      lcs[i][j] = x[i - 1] == y[j - 1] ? lcs[i - 1][j - 1] + 1 : std::max(lcs[i - 1][j], lcs[i][j - 1]);
  return x.size() + y.size() - 2 * lcs[x.size()][y.size()];
}

std::string random_text(std::mt19937& rng, std::size_t max_lines, int alphabet) {
  std::uniform_int_distribution<std::size_t> count(0, max_lines);
  std::uniform_int_distribution<int> letter(0, alphabet - 1);
  std::string text;
  for (std::size_t n = count(rng); n > 0; --n) {
    text += static_cast<char>('a' + letter(rng));
    text += '\n';
  }
  if (!text.empty() && letter(rng) == 0) text.pop_back();  // sometimes no newline at the end
  return text;
}

// A fresh folder under the system's temporary directory, removed at the end of the test.
class TempDir {
public:
  explicit TempDir(const std::string& name)
      : m_path(std::filesystem::temp_directory_path() /
               (std::string("hlo-index-golden-") + std::to_string(::getpid()) + "-" + name)) {
    std::filesystem::remove_all(m_path);
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(const std::string& file) const { return m_path / file; }

private:
  std::filesystem::path m_path;
};

struct Run {
  int code = 0;
  std::string out, err;
};

Run analyze(const app::AnalyzeOptions& options) {
  std::ostringstream out, err;
  Run run;
  run.code = app::run_analyze_command(options, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

app::AnalyzeOptions expect(const std::string& hlo, const std::filesystem::path& golden) {
  app::AnalyzeOptions options;
  options.files = {(k_dir / hlo).string()};
  options.expect = golden.string();
  options.all_computations = true;  // the goldens hold the reducers and parameters too
  return options;
}

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The analysis of golden_negate.hlo, as `analyze` prints it.
const char* const k_negate = R"(computation main (entry)
%p = f32[4]{0} parameter(0)
  (no operands)
%n = f32[4]{0} negate(%p)
  operand 0 %p
    output -> operand:
      (d0) -> (d0)
      domain:
      d0 in [0, 3]
analysed 2 instructions: 1 map, 0 undefined, 0 approximate
)";

}  // namespace

TEST_CASE("unified diff: exact output") {
  CHECK(diff("", "") == "");
  CHECK(diff("a\nb\n", "a\nb\n") == "");
  // A change in the middle, with its context.
  CHECK(diff("a\nb\nc\n", "a\nB\nc\n") == "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  // Insertion at the start, deletion at the end.
  CHECK(diff("b\nc\n", "a\nb\nc\n") == "--- a\n+++ b\n@@ -1,2 +1,3 @@\n+a\n b\n c\n");
  CHECK(diff("a\nb\nc\n", "a\nb\n") == "--- a\n+++ b\n@@ -1,3 +1,2 @@\n a\n b\n-c\n");
  // Empty files: an empty range names the line before it.
  CHECK(diff("", "a\n") == "--- a\n+++ b\n@@ -0,0 +1 @@\n+a\n");
  CHECK(diff("a\nb\n", "") == "--- a\n+++ b\n@@ -1,2 +0,0 @@\n-a\n-b\n");
  // No newline at the end, on a changed line and on a context line.
  CHECK(diff("a\nb", "a\nb\n") == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n");
  CHECK(diff("a\nx\nb", "a\ny\nb") == "--- a\n+++ b\n@@ -1,3 +1,3 @@\n a\n-x\n+y\n b\n\\ No newline at end of file\n");
  // Insertion in the middle of a long file: 3 lines of context either side.
  std::string numbers, inserted;
  for (int k = 1; k <= 20; ++k) {
    numbers += std::to_string(k) + "\n";
    inserted += std::to_string(k) + "\n";
    if (k == 10) inserted += "new\n";
  }
  CHECK(diff(numbers, inserted) == "--- a\n+++ b\n@@ -8,6 +8,7 @@\n 8\n 9\n 10\n+new\n 11\n 12\n 13\n");
}

TEST_CASE("unified diff: changes up to 6 unchanged lines apart share a hunk, as in diff -u") {
  auto numbers = [](int changed_a, int changed_b) {
    std::string text;
    for (int k = 1; k <= 20; ++k) text += (k == changed_a || k == changed_b ? "X" : std::to_string(k)) + "\n";
    return text;
  };
  std::string plain = numbers(0, 0);
  CHECK(diff(plain, numbers(2, 9)) ==
        "--- a\n+++ b\n@@ -1,12 +1,12 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+X\n 10\n 11\n 12\n");
  CHECK(diff(plain, numbers(2, 10)) ==
        "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+X\n 11\n 12\n 13\n");
  CHECK(diff(plain, numbers(1, 20)) ==
        "--- a\n+++ b\n@@ -1,4 +1,4 @@\n-1\n+X\n 2\n 3\n 4\n@@ -17,4 +17,4 @@\n 17\n 18\n 19\n-20\n+X\n");
  app::TextDiffOptions options;
  options.old_label = "GOLDEN";
  options.new_label = "actual";
  options.context = 0;
  CHECK(app::unified_diff(plain, numbers(2, 4), options) ==
        "--- GOLDEN\n+++ actual\n@@ -2 +2 @@\n-2\n+X\n@@ -4 +4 @@\n-4\n+X\n");
}

TEST_CASE("unified diff: minimal and correct on random inputs") {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 3000; ++round) {
    const int alphabet = round % 3 == 0 ? 2 : 5;
    const std::string a = random_text(rng, 30, alphabet), b = random_text(rng, 30, alphabet);
    INFO("old:\n" << a << "\nnew:\n" << b);
    const std::string patch = diff(a, b);
    if (a == b) {
      CHECK(patch.empty());
      continue;
    }
    std::size_t changed = 0;
    CHECK(apply(a, patch, changed) == b);
    CHECK(changed == edit_distance(a, b));
  }
}

TEST_CASE("unified diff: fast on long outputs, correct when searches are cut short") {
  std::string a, b;
  for (int k = 0; k < 40000; ++k) {
    const std::string text = std::string("  line ") + std::to_string(k % 977) + " of the analysis\n";
    a += text;
    if (k % 1000 != 7) b += text;           // 40 deletions
    if (k % 3000 == 11) b += "inserted\n";  // 14 insertions
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string patch = diff(a, b);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5.0);  // milliseconds here; a quadratic search does 1.6e9 steps
  std::size_t changed = 0;
  CHECK(apply(a, patch, changed) == b);
  CHECK(changed == 54);

  // Every line different: D = N + M, and the budget runs out; the rest is replaced whole.
  std::string c, d;
  for (int k = 0; k < 20000; ++k) {
    c += std::string("old ") + std::to_string(k) + "\n";
    d += std::string("new ") + std::to_string(k) + "\n";
  }
  app::TextDiffOptions small;
  small.max_steps = 1000;
  changed = 0;
  CHECK(apply(c, app::unified_diff(c, d, small), changed) == d);
  CHECK(changed == 40000);
  // A budget that runs out halfway through a diff with common lines, and searches
  // cut short after a few edits (GNU diff's heuristic): correct, not always minimal.
  std::mt19937 rng(7);
  for (int round = 0; round < 400; ++round) {
    const std::string x = random_text(rng, 60, 3), y = random_text(rng, 60, 3);
    app::TextDiffOptions cut;
    if (round % 2 == 0)
      cut.max_steps = static_cast<std::uint64_t>(round);
    else
      cut.max_exact_edits = static_cast<std::size_t>(round % 5);
    const std::string cut_patch = app::unified_diff(x, y, cut);
    changed = 0;
    INFO("old:\n" << x << "\nnew:\n" << y);
    if (x != y) CHECK(apply(x, cut_patch, changed) == y);
    CHECK(changed >= edit_distance(x, y));
  }

  // Long outputs that differ on every fourth line: the heuristic keeps it fast and close to minimal.
  std::string e, f;
  for (int k = 0; k < 100000; ++k) {
    const std::string text =
        std::string("    d") + std::to_string(k % 13) + " in [0, " + std::to_string(k % 101) + "]\n";
    e += text;
    f += k % 4 == 1 ? std::string("%fusion.") + std::to_string(k) + "\n" : text;
  }
  const auto start_dense = std::chrono::steady_clock::now();
  const std::string dense = diff(e, f);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start_dense).count() < 20.0);
  changed = 0;
  CHECK(apply(e, dense, changed) == f);
  CHECK(changed < 2 * 25000 + 2000);
}

TEST_CASE("analyze --expect: equal prints nothing, a difference prints the unified diff and exits 1") {
  TempDir dir("expect");
  const auto golden = dir / "negate.golden";
  write(golden, k_negate);
  Run equal = analyze(expect("golden_negate.hlo", golden));
  CHECK(equal.code == 0);
  CHECK(equal.out.empty());
  CHECK(equal.err.empty());

  std::string changed = k_negate;
  changed.replace(changed.find("(d0) -> (d0)"), 12, "(d0) -> (3 - d0)");
  changed.replace(changed.find("1 map,"), 6, "2 maps,");
  write(golden, changed);
  Run differs = analyze(expect("golden_negate.hlo", golden));
  CHECK(differs.code == 1);
  CHECK(differs.out == std::string("--- ") + golden.string() +
                           "\n"
                           "+++ actual\n"
                           "@@ -4,7 +4,7 @@\n"
                           " %n = f32[4]{0} negate(%p)\n"
                           "   operand 0 %p\n"
                           "     output -> operand:\n"
                           "-      (d0) -> (3 - d0)\n"
                           "+      (d0) -> (d0)\n"
                           "       domain:\n"
                           "       d0 in [0, 3]\n"
                           "-analysed 2 instructions: 2 maps, 0 undefined, 0 approximate\n"
                           "+analysed 2 instructions: 1 map, 0 undefined, 0 approximate\n");
  CHECK(differs.err ==
        std::string("hlo-index: the output differs from ") + golden.string() + " (run with --update to accept it)\n");
  CHECK(golden::read_file(golden) == changed);  // left alone

  // An empty golden file.
  write(golden, "");
  Run empty = analyze(expect("golden_negate.hlo", golden));
  CHECK(empty.code == 1);
  CHECK(empty.out.rfind(
            std::string("--- ") + golden.string() + "\n+++ actual\n@@ -0,0 +1,10 @@\n+computation main (entry)\n", 0) ==
        0);

  // The golden file lost its last newline.
  write(golden, std::string(k_negate).substr(0, std::string(k_negate).size() - 1));
  Run newline = analyze(expect("golden_negate.hlo", golden));
  CHECK(newline.code == 1);
  CHECK(newline.out.find("-analysed 2 instructions: 1 map, 0 undefined, 0 approximate\n"
                         "\\ No newline at end of file\n"
                         "+analysed 2 instructions: 1 map, 0 undefined, 0 approximate\n") != std::string::npos);
}

TEST_CASE("analyze --expect --update: creates and rewrites the golden file") {
  TempDir dir("update");
  const auto golden = dir / "negate.golden";
  app::AnalyzeOptions options = expect("golden_negate.hlo", golden);
  options.update = true;
  Run created = analyze(options);
  CHECK(created.code == 0);
  CHECK(created.out.empty());
  CHECK(created.err == std::string("hlo-index: created ") + golden.string() + "\n");
  CHECK(golden::read_file(golden) == k_negate);

  write(golden, "stale\n");
  Run updated = analyze(options);
  CHECK(updated.code == 0);
  CHECK(updated.out.empty());
  CHECK(updated.err == std::string("hlo-index: updated ") + golden.string() + "\n");
  CHECK(golden::read_file(golden) == k_negate);

  Run unchanged = analyze(options);
  CHECK(unchanged.code == 0);
  CHECK(unchanged.err.empty());
  CHECK(analyze(expect("golden_negate.hlo", golden)).code == 0);
}

TEST_CASE("analyze --expect: usage and input errors exit 2") {
  TempDir dir("errors");
  const auto golden = dir / "missing.golden";
  Run missing = analyze(expect("golden_negate.hlo", golden));
  CHECK(missing.code == 2);
  CHECK(missing.out.empty());
  CHECK(missing.err == std::string("hlo-index: error: golden file '") + golden.string() +
                           "' does not exist (run with --update to create it)\n");
  CHECK_FALSE(std::filesystem::exists(golden));

  app::AnalyzeOptions no_expect;
  no_expect.files = {(k_dir / "golden_negate.hlo").string()};
  no_expect.update = true;
  Run usage = analyze(no_expect);
  CHECK(usage.code == 2);
  CHECK(usage.out.empty());
  CHECK(usage.err == "hlo-index: error: --update needs --expect GOLDEN\n");

  // Bad input: the analysis error, and the golden file is not touched even with --update.
  write(golden, k_negate);
  app::AnalyzeOptions bad = expect("golden_negate.hlo", golden);
  bad.instructions = {"nope"};
  bad.update = true;
  Run input = analyze(bad);
  CHECK(input.code == 2);
  CHECK(input.out.empty());
  CHECK(input.err == "hlo-index: error: no instruction named 'nope'\n");
  CHECK(golden::read_file(golden) == k_negate);

  Run directory = analyze(expect("golden_negate.hlo", dir / ""));
  CHECK(directory.code == 2);
  CHECK(directory.err.find("cannot read golden file") != std::string::npos);

  app::AnalyzeOptions nowhere = expect("golden_negate.hlo", dir / "no/such/folder.golden");
  nowhere.update = true;
  Run unwritable = analyze(nowhere);
  CHECK(unwritable.code == 2);
  CHECK(unwritable.err.rfind("hlo-index: error: cannot write golden file '", 0) == 0);
}

TEST_CASE("analyze --canonical-names: a renumbered dump matches the golden file of the original") {
  for (const std::string format : {"text", "json"}) {
    DYNAMIC_SECTION(format) {
      const auto checked_in = k_dir / (format == "text" ? "canonical_step.expected" : "canonical_step.json.expected");
      app::AnalyzeOptions original = expect("canonical_step.hlo", checked_in);
      original.canonical_names = true;
      original.format = format;
      original.update = golden::g_update;
      Run run = analyze(original);
      INFO(run.out << run.err);
      CHECK(run.code == 0);
      CHECK(run.out.empty());

      app::AnalyzeOptions renumbered = original;
      renumbered.files = {(k_dir / "canonical_step_renumbered.hlo").string()};
      renumbered.update = false;
      Run again = analyze(renumbered);
      INFO(again.out << again.err);
      CHECK(again.code == 0);
      CHECK(again.out.empty());
      CHECK(again.err.empty());

      // Without canonical names the renumbering shows.
      TempDir dir(std::string("canonical-") + format);
      app::AnalyzeOptions plain = expect("canonical_step.hlo", dir / "plain.golden");
      plain.format = format;
      plain.update = true;
      CHECK(analyze(plain).code == 0);
      plain.files = renumbered.files;
      plain.update = false;
      Run differs = analyze(plain);
      CHECK(differs.code == 1);
      CHECK(differs.out.find(format == "text" ? "+%fusion.206 = " : "\"fusion.206\"") != std::string::npos);
    }
  }
}

TEST_CASE("analyze --canonical-names: the same maps as without, as backend_config and frontend_attributes stay") {
  // The einsum's equation is its backend_config, and a dot's frontend_attributes ride along:
  // renaming must not change what the maps know (it once dropped both, and the einsum's maps
  // fell back to every element, approximate).
  TempDir dir("canonical-config");
  write(dir / "einsum.hlo", R"(HloModule einsum_diag.7

ENTRY %main.3 (Arg_0.1: f32[3,3], Arg_1.2: f32[3]) -> f32[3] {
  %Arg_0.1 = f32[3,3] parameter(0)
  %Arg_1.2 = f32[3] parameter(1)
  %custom-call.2 = f32[3] custom-call(%Arg_0.1, %Arg_0.1), custom_call_target="xla_builder.matrix.Einsum", backend_config="ii,ii->i", metadata={op_name="x"}
  ROOT %dot.4 = f32[3] dot(%custom-call.2, %Arg_1.2), lhs_batch_dims={0}, rhs_batch_dims={0}, frontend_attributes={grad_x="false"}
}
)");
  app::AnalyzeOptions options;
  options.files = {(dir / "einsum.hlo").string()};
  const Run plain = analyze(options);
  options.canonical_names = true;
  const Run canonical = analyze(options);
  INFO(plain.out << plain.err << canonical.out << canonical.err);
  REQUIRE(plain.code == 0);
  REQUIRE(canonical.code == 0);
  CHECK(canonical.out.find("(approximate") == std::string::npos);
  CHECK(canonical.out.find("(d0) -> (d0, d0)") != std::string::npos);
  std::string renamed = plain.out;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"main.3", "main"},
                                 {"Arg_0.1", "Arg_0"},
                                 {"Arg_1.2", "Arg_1"},
                                 {"custom-call.2", "custom-call"},
                                 {"dot.4", "dot"}}) {
    for (std::size_t at = renamed.find(from); at != std::string::npos; at = renamed.find(from, at + to.size()))
      renamed.replace(at, from.size(), to);
  }
  CHECK(canonical.out == renamed);
}

TEST_CASE("analyze --canonical-names: with other flags, and names on the command line are canonical") {
  TempDir dir("flags");
  app::AnalyzeOptions options = expect("canonical_step.hlo", dir / "flags.golden");
  options.canonical_names = true;
  options.direction = "both";
  options.one_line = true;
  options.instructions = {"fusion", "%add"};
  options.update = true;
  Run created = analyze(options);
  INFO(created.err);
  REQUIRE(created.code == 0);
  const std::string text = golden::read_file(dir / "flags.golden");
  CHECK(text.find("%fusion = f32[8]{0} fusion(%Arg_0, %Arg_1), kind=kInput\n") != std::string::npos);
  CHECK(text.find("rt0: fused_computation/add; ") != std::string::npos);
  CHECK(text.find("operand -> output") != std::string::npos);
  CHECK(text.find("%add = f32[] add(%x, %y)") != std::string::npos);  // add.clone's root

  options.files = {(k_dir / "canonical_step_renumbered.hlo").string()};
  options.update = false;
  Run renumbered = analyze(options);
  CHECK(renumbered.code == 0);
  CHECK(renumbered.out.empty());

  // Old names are unknown under --canonical-names; the canonical name that the old one contains is suggested.
  options.instructions = {"fusion.206"};
  Run unknown = analyze(options);
  CHECK(unknown.code == 2);
  CHECK(unknown.err == "hlo-index: error: no instruction named 'fusion.206' (did you mean fusion?)\n");
}

}  // namespace test_golden_file_cases

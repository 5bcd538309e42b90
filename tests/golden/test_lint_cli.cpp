// `hlo-index lint ...` as a user sees it: each testdata/lint/NAME.hlo is an
// HLO module whose first line carries the command's flags,
//   // flags: --min-utilisation 0.75 --format json
// parsed by the command's own CLI11 options (so size suffixes, comma lists
// and bad values behave as on the command line), and NAME.expected its exact
// output: stdout, then stderr, then `exit: N`, with the directory removed
// from paths. The other cases check what goldens cannot: the SARIF document's
// required fields, baselines written and applied in a temporary directory,
// sizes, and exit codes.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/lint_command.hpp"
#include "app/sarif.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_lint_cli_cases {

using namespace hlo_index;
using json = nlohmann::json;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "lint";

std::string flags_of(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  const std::string marker = "// flags:";
  while (std::getline(lines, line)) {
    if (line.rfind(marker, 0) == 0) return line.substr(marker.size());
  }
  return "";
}

using golden::replace_all;
using Run = golden::CommandRun;

// Parses `arguments` with lint's options, as `hlo-index lint ARGUMENTS` would, and runs it.
Run run_lint(const std::string& arguments) {
  return golden::run_command<app::LintOptions>("lint", arguments, app::add_lint_options, app::run_lint_command);
}

std::string quoted(const std::filesystem::path& path) { return "\"" + path.string() + "\""; }

// A fresh directory under the system's temporary directory, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           ("hlo_index_lint_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("hlo-index lint: golden outputs") {
  auto cases = golden::files_with_extension(k_dir, ".hlo");
  CHECK(!cases.empty());
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      Run run = run_lint(flags_of(golden::read_file(path)) + " " + quoted(path));
      // Absolute paths in findings, JSON and SARIF URIs: relative to testdata/lint.
      std::string out = replace_all(run.out, "file://" + k_dir.string() + "/", "");
      out = replace_all(out, k_dir.string() + "/", "");
      std::string actual = golden::command_output(out, run.err, run.code, k_dir);
      const auto expected = std::filesystem::path(path).replace_extension(".expected");
      std::string report = golden::compare_or_update(expected, actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

TEST_CASE("hlo-index lint: exit codes are 0 when clean, 1 with findings, 2 on input errors") {
  CHECK(run_lint(quoted(k_dir / "slice_half.hlo")).code == 0);
  CHECK(run_lint(quoted(k_dir / "transpose_fusion.hlo") + " --target cpu").code == 1);
  CHECK(run_lint(quoted(k_dir / "transpose_fusion.hlo") + " --target cpu --disable uncoalesced-read").code == 0);
  CHECK(run_lint(quoted(k_dir / "transpose_fusion.hlo") + " --target ipu").code == 2);
  CHECK(run_lint(quoted(k_dir / "does_not_exist.hlo")).code == 2);
  CHECK(run_lint(quoted(k_dir / "error_syntax.hlo")).code == 2);
  CHECK(run_lint(quoted(k_dir / "slice_half.hlo") + " --enable nope").code == 2);
  CHECK(run_lint(quoted(k_dir / "slice_half.hlo") + " --max-multiplicity -1").code == 2);
  CHECK(run_lint(quoted(k_dir / "slice_half.hlo") + " --low-utilisation-min-bytes 1MB").code == 2);
  CHECK(run_lint("").code == 2);
  // Bad input in one file: nothing is linted, whatever the other files hold.
  Run mixed = run_lint(quoted(k_dir / "transpose_fusion.hlo") + " " + quoted(k_dir / "error_syntax.hlo"));
  CHECK(mixed.code == 2);
  CHECK(mixed.out.empty());
}

TEST_CASE("hlo-index lint: several files, findings sorted by file then line") {
  Run run =
      run_lint(quoted(k_dir / "transpose_fusion.hlo") + " " + quoted(k_dir / "strided_slice.hlo") + " --target cpu");
  CHECK(run.code == 1);
  const std::string strided = (k_dir / "strided_slice.hlo").string();
  const std::string transpose = (k_dir / "transpose_fusion.hlo").string();
  REQUIRE(run.out.find(strided) != std::string::npos);
  REQUIRE(run.out.find(transpose) != std::string::npos);
  CHECK(run.out.find(strided) < run.out.find(transpose));
  CHECK_THAT(run.err,
             Catch::EndsWith("hlo-index lint: 2 findings (uncoalesced-read: 2); 4 fusions linted in 2 modules\n"));
}

TEST_CASE("hlo-index lint: the SARIF log has the fields code-scanning UIs require") {
  Run run = run_lint(quoted(k_dir / "add_transpose.hlo") + " --format sarif");
  REQUIRE(run.code == 1);
  const json log = json::parse(run.out);
  CHECK(log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  CHECK(log["version"] == "2.1.0");
  REQUIRE(log["runs"].size() == 1);
  const json& driver = log["runs"][0]["tool"]["driver"];
  CHECK(driver["name"] == "hlo-index");
  REQUIRE(driver["rules"].size() == analysis::k_lint_rule_count);
  for (std::size_t k = 0; k < analysis::k_lint_rule_count; ++k) {
    const json& rule = driver["rules"][k];
    CHECK(rule["id"] == std::string(analysis::lint_rules()[k].id));
    CHECK(rule["shortDescription"]["text"].is_string());
    CHECK(rule["fullDescription"]["text"].is_string());
    // The two rules about hlo-index's own limits are notes; the rules about the HLO are warnings.
    const bool note = analysis::lint_rules()[k].rule == analysis::LintRule::kUnknownIndexing ||
                      analysis::lint_rules()[k].rule == analysis::LintRule::kApproximateIndexing;
    CHECK(rule["defaultConfiguration"]["level"] == (note ? "note" : "warning"));
  }
  const json& results = log["runs"][0]["results"];
  REQUIRE(results.size() == 2);
  for (const json& r : results) {
    const std::size_t index = r["ruleIndex"].get<std::size_t>();
    REQUIRE(index < analysis::k_lint_rule_count);
    CHECK(r["ruleId"] == driver["rules"][index]["id"]);
    CHECK(r["level"] == "warning");
    CHECK(r["message"]["text"].get<std::string>().find("%f reads operand 0 %p") != std::string::npos);
    const json& where = r["locations"][0]["physicalLocation"];
    CHECK(where["artifactLocation"]["uri"] == "file://" + (k_dir / "add_transpose.hlo").string());
    CHECK(where["region"]["startLine"] == 15);
    CHECK(where["region"]["startColumn"] == 8);
    // The baseline key: rule, module, the fusion's stable fingerprint (16 hex digits), operand.
    const std::string key = r["partialFingerprints"]["hloIndexFinding/v2"];
    CHECK_THAT(key, Catch::Matches(r["ruleId"].get<std::string>() + " add_transpose [0-9a-f]{16} 0"));
  }
  CHECK(results[0]["ruleId"] == "uncoalesced-read");
  CHECK(results[1]["ruleId"] == "duplicated-read");
}

TEST_CASE("hlo-index lint: SARIF URIs of paths") {
  CHECK(app::sarif_uri("dumps/model.hlo") == "dumps/model.hlo");
  CHECK(app::sarif_uri("/tmp/a b/m#1.hlo") == "file:///tmp/a%20b/m%231.hlo");
  CHECK(app::sarif_uri("caf\xc3\xa9.hlo") == "caf%C3%A9.hlo");
}

TEST_CASE("hlo-index lint: the JSON document") {
  Run run = run_lint(quoted(k_dir / "slice_quarter.hlo") + " --format json");
  REQUIRE(run.code == 1);
  const json doc = json::parse(run.out);
  REQUIRE(doc["findings"].size() == 1);
  const json& f = doc["findings"][0];
  CHECK(f["rule"] == "low-utilisation");
  CHECK(f["module"] == "slice_quarter");
  CHECK(f["computation"] == "main");
  CHECK(f["instruction"] == "a");
  CHECK(f["operand"] == 0);
  CHECK(f["line"] == 20);
  CHECK(f["values"]["utilisation"] == 0.25);
  CHECK(doc["summary"]["findings"] == 1);
  CHECK(doc["summary"]["by_rule"]["low-utilisation"] == 1);
  CHECK(doc["summary"]["linted"] == 2);
}

TEST_CASE("hlo-index lint: a baseline written, then applied, survives edits that move lines") {
  TempDir dir;
  const auto baseline = dir.path / "lint.baseline";
  const auto model = dir.path / "model.hlo";
  const std::string text = golden::read_file(k_dir / "add_transpose.hlo");
  write(model, text);

  Run written = run_lint(quoted(model) + " --write-baseline " + quoted(baseline));
  CHECK(written.code == 0);
  CHECK(written.out.empty());
  CHECK_THAT(written.err, Catch::Contains("wrote 2 findings to"));
  const std::string keys = golden::read_file(baseline);
  CHECK_THAT(keys, Catch::Matches("(.|\n)*\nduplicated-read add_transpose [0-9a-f]{16} 0  # main/f\n"
                                  "uncoalesced-read add_transpose [0-9a-f]{16} 0  # main/f\n"));

  Run applied = run_lint(quoted(model) + " --baseline " + quoted(baseline));
  CHECK(applied.code == 0);
  CHECK(applied.out.empty());
  CHECK_THAT(applied.err, Catch::EndsWith("no findings; 1 fusion linted in 1 module; 2 suppressed by the baseline\n"));

  // Lines added above the fusion: the findings move, the baseline still matches.
  write(model, "// a comment\n// and another\n" + text);
  Run moved = run_lint(quoted(model) + " --baseline " + quoted(baseline));
  CHECK(moved.code == 0);

  // Every instruction and computation renamed, as a recompile renumbers: the fingerprints
  // hold no name, the baseline still matches.
  std::string renamed = text;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"fused_add", "fused_computation.17"},
                                 {"ROOT f =", "ROOT fusion.903 ="},
                                 {"p = f32", "Arg_0.44 = f32"},
                                 {"fusion(p)", "fusion(Arg_0.44)"},
                                 {"p0", "param_0.2"},
                                 {" t = ", " transpose.5 = "},
                                 {"add(param_0.2, t)", "add(param_0.2, transpose.5)"},
                                 {"ROOT a =", "ROOT add.8 ="},
                                 {"ENTRY main", "ENTRY main.12"}}) {
    renamed = golden::replace_all(renamed, from, to);
  }
  REQUIRE(renamed.find("fusion.903") != std::string::npos);
  write(model, renamed);
  Run renumbered = run_lint(quoted(model) + " --baseline " + quoted(baseline));
  CHECK(renumbered.code == 0);
  CHECK_THAT(renumbered.err, Catch::EndsWith("2 suppressed by the baseline\n"));
  Run unsuppressed = run_lint(quoted(model));
  CHECK(unsuppressed.code == 1);
  write(model, "// a comment\n// and another\n" + text);

  // A finding not in the baseline is reported (a baseline by names, as written before
  // fingerprints, is still read).
  write(baseline, "# only one\nduplicated-read add_transpose main f 0\n");
  Run partial = run_lint(quoted(model) + " --baseline " + quoted(baseline) + " --format json");
  CHECK(partial.code == 1);
  const json doc = json::parse(partial.out);
  REQUIRE(doc["findings"].size() == 1);
  CHECK(doc["findings"][0]["rule"] == "uncoalesced-read");
  CHECK(doc["findings"][0]["line"] == 17);
  CHECK(doc["summary"]["suppressed"] == 1);

  // Malformed baselines and missing files are input errors.
  write(baseline, "duplicated-read add_transpose main\nno-such-rule m c i 0\nlow-utilisation m c i x\n");
  Run bad = run_lint(quoted(model) + " --baseline " + quoted(baseline));
  CHECK(bad.code == 2);
  CHECK_THAT(bad.err,
             Catch::Contains("lint.baseline:1: error: expected 4 fields (RULE MODULE FINGERPRINT OPERAND) or 5"));
  CHECK_THAT(bad.err, Catch::Contains("lint.baseline:2: error: unknown rule 'no-such-rule'"));
  CHECK_THAT(bad.err, Catch::Contains("lint.baseline:3: error: the operand must be a number or '-', not 'x'"));
  CHECK(run_lint(quoted(model) + " --baseline " + quoted(dir.path / "missing")).code == 2);
}

TEST_CASE("hlo-index lint: sizes take binary suffixes") {
  CHECK(app::parse_size("4096") == 4096);
  CHECK(app::parse_size("0") == 0);
  CHECK(app::parse_size("512KiB") == 512 * 1024);
  CHECK(app::parse_size("1MiB") == 1 << 20);
  CHECK(app::parse_size("2 GiB") == std::int64_t{2} << 30);
  CHECK(app::parse_size("7B") == 7);
  CHECK_FALSE(app::parse_size("1MB"));
  CHECK_FALSE(app::parse_size("-1"));
  CHECK_FALSE(app::parse_size("MiB"));
  CHECK_FALSE(app::parse_size("99999999999GiB"));
}

TEST_CASE("hlo-index lint: human-readable byte counts") {
  CHECK(cost::human_bytes(std::int64_t{32}) == "32 B");
  CHECK(cost::human_bytes(std::int64_t{4096}) == "4 KiB");
  CHECK(cost::human_bytes(std::int64_t{1536 * 1024}) == "1.5 MiB");
  CHECK(cost::human_bytes(std::int64_t{64} << 20) == "64 MiB");
  CHECK(cost::human_bytes(std::int64_t{3} << 30) == "3 GiB");
}

TEST_CASE("hlo-index lint: notes do not fail the run, warnings next to them do") {
  // unsupported_op.hlo has only an unknown-indexing note; add_transpose.hlo a warning.
  Run notes_only = run_lint(quoted(k_dir / "unsupported_op.hlo"));
  CHECK(notes_only.code == 0);
  CHECK(notes_only.out.find(": note: [unknown-indexing]") != std::string::npos);
  CHECK(notes_only.err.find("1 finding (unknown-indexing: 1), a note;") != std::string::npos);
  Run both = run_lint(quoted(k_dir / "unsupported_op.hlo") + " " + quoted(k_dir / "add_transpose.hlo"));
  CHECK(both.code == 1);
  CHECK(both.err.find("of them") != std::string::npos);
  Run json_run =
      run_lint(quoted(k_dir / "unsupported_op.hlo") + " " + quoted(k_dir / "add_transpose.hlo") + " --format json");
  CHECK(json_run.code == 1);
  const json doc = json::parse(json_run.out);
  std::size_t notes = 0;
  for (const json& f : doc["findings"]) notes += f["level"] == "note" ? 1 : 0;
  CHECK(notes == 1);
  CHECK(doc["summary"]["notes"] == 1);
}

}  // namespace test_lint_cli_cases

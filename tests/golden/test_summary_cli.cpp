// `hlo-index summary ...` as a user sees it: each testdata/summary/NAME.hlo
// carries its flags on a `// flags:` line, parsed by the command's own CLI11
// options, and NAME.expected its exact output (stdout, stderr, `exit: N`).
// The other cases check the JSON document with nlohmann, the CSV's shape,
// the 120-column limit and the middle elision.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/summary_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_summary_cli_cases {

using namespace hlo_index;
using json = nlohmann::json;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "summary";

std::string flags_of(const std::string& text) {
  std::istringstream lines(text);
  const std::string marker = "// flags:";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(marker, 0) == 0) return line.substr(marker.size());
  }
  return "";
}

using golden::replace_all;
using Run = golden::CommandRun;

// Parses `arguments` with summary's options, as `hlo-index summary ARGUMENTS` would, and runs it.
Run run_summary(const std::string& arguments) {
  Run run = golden::run_command<app::SummaryOptions>("summary", arguments, app::add_summary_options,
                                                     app::run_summary_command);
  run.out = replace_all(run.out, k_dir.string() + "/", "");
  return run;
}

std::string quoted(const std::filesystem::path& path) { return "\"" + path.string() + "\""; }

// Columns of a line of UTF-8 text: bytes that do not continue a character.
std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("hlo-index summary: golden outputs") {
  auto cases = golden::files_with_extension(k_dir, ".hlo");
  CHECK(cases.size() >= 10);
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      const Run run = run_summary(flags_of(golden::read_file(path)) + " " + quoted(path));
      const std::string actual = golden::command_output(run.out, run.err, run.code, k_dir);
      const std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

TEST_CASE("hlo-index summary: rows sorted by estimated time, shares of the module's time") {
  const Run run = run_summary("--format json " + quoted(k_dir / "json.hlo"));
  REQUIRE(run.code == 0);
  const json doc = json::parse(run.out);
  CHECK(doc["sort"] == "time");
  const json& module = doc["modules"][0];
  CHECK(module["device"] == "h100-sxm");
  double previous = std::numeric_limits<double>::infinity(), rows = 0, shares = 0;
  for (const json& row : module["rows"]) {
    CHECK(row["seconds"].get<double>() <= previous);
    previous = row["seconds"].get<double>();
    rows += previous;
    shares += row["share"].get<double>();
    CHECK(row["share"].get<double>() == Approx(previous / module["module_cost"]["seconds"].get<double>()));
  }
  CHECK(rows <= module["module_cost"]["seconds"].get<double>() * (1 + 1e-12));
  CHECK(shares <= 1 + 1e-12);
  CHECK(module["total"]["seconds"].get<double>() == Approx(rows));
}

TEST_CASE("hlo-index summary: the JSON document holds every row with its figures") {
  const Run run = run_summary("--format json --sort logical-reads " + quoted(k_dir / "json.hlo"));
  REQUIRE(run.code == 0);
  const json doc = json::parse(run.out);
  CHECK(doc["sort"] == "logical-reads");
  REQUIRE(doc["modules"].size() == 1);
  const json& module = doc["modules"][0];
  CHECK(module["name"] == "triage");
  CHECK(module["total"]["rows"] == 4);
  REQUIRE(module["rows"].size() == 4);
  std::int64_t previous = std::numeric_limits<std::int64_t>::max(), traffic = 0;
  for (const json& row : module["rows"]) {
    // Sorted by logical reads, descending; the total is their sum.
    CHECK(row["logical_read_bytes"].get<std::int64_t>() <= previous);
    previous = row["logical_read_bytes"].get<std::int64_t>();
    traffic += previous;
    CHECK(row["file"] == "json.hlo");
    CHECK(row["line"].get<int>() > 0);
    CHECK(row["opcode"] == "fusion");
  }
  CHECK(module["total"]["logical_read_bytes"] == traffic);
  // p + transpose(p) over 1024x1024 f32: every element twice, through two maps.
  const json& first = module["rows"][0];
  CHECK(first["name"] == "transpose_add_fusion_whose_long_name_the_table_elides_in_the_middle.7");
  CHECK(first["logical_read_bytes"] == 2 * 1024 * 1024 * 4);
  // It moves p once (4 MiB in 32-byte sectors on the default GPU device) and writes 4 MiB.
  CHECK(first["cost"]["device_bytes_read"] == 1024 * 1024 * 4);
  CHECK(first["cost"]["device_bytes_written"] == 1024 * 1024 * 4);
  CHECK(first["cost"]["flops"] == 1024 * 1024);
  CHECK(first["bytes_read"] == 1024 * 1024 * 4);
  CHECK(first["highest_multiplicity"] == 2.0);
  CHECK(first["access"] == "strided 1024");
  CHECK(first["lint_findings"] == 2);
  CHECK(first["counts_exact"] == true);
  // The dynamic slice: counts with runtime offsets are bounds.
  const auto window = std::find_if(module["rows"].begin(), module["rows"].end(),
                                   [](const json& r) { return r["name"] == "window_fusion"; });
  REQUIRE(window != module["rows"].end());
  CHECK((*window)["counts_exact"] == false);
}

TEST_CASE("hlo-index summary: CSV has one header and one line per row, with the same fields") {
  const Run run = run_summary("--format csv " + quoted(k_dir / "csv.hlo"));
  REQUIRE(run.code == 0);
  std::istringstream lines(run.out);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  REQUIRE(rows.size() == 5);
  CHECK(rows[0].rfind("file,line,column,module,computation,name,", 0) == 0);
  CHECK(rows[1].find(",\"f32[1024,1024]{1,0}\",") != std::string::npos);
}

TEST_CASE("hlo-index summary: the table fits 120 columns") {
  for (const char* flags : {"", "--all-instructions"}) {
    const Run run = run_summary(std::string(flags) + " " + quoted(k_dir / "table.hlo"));
    REQUIRE(run.code == 0);
    std::istringstream lines(run.out);
    for (std::string line; std::getline(lines, line);) {
      INFO(line);
      if (line.rfind("module ", 0) != 0 && line.rfind("total: ", 0) != 0) CHECK(columns(line) <= 120);
    }
    // The long name keeps its start and its numeric suffix (the cost columns leave it about 20 columns).
    CHECK(run.out.find(" transpose") != std::string::npos);
    CHECK(run.out.find("\u2026") != std::string::npos);
    CHECK(run.out.find("_middle.7\n") != std::string::npos);
  }
}

TEST_CASE("hlo-index summary: options and exit codes") {
  const std::string file = quoted(k_dir / "table.hlo");
  CHECK(run_summary(file).code == 0);
  CHECK(run_summary("--format yaml " + file).code == 2);
  CHECK(run_summary("--top nope " + file).code == 2);
  const Run bad = run_summary("--sort speed " + file);
  CHECK(bad.code == 2);
  CHECK(bad.err.find("time, measured, flops, bytes, intensity, logical-reads, read, written, utilisation") !=
        std::string::npos);
  CHECK(run_summary("--module nope " + file).code == 2);
  CHECK(run_summary(quoted(k_dir / "does_not_exist.hlo")).code == 2);
  // --top 0 is a valid (empty) table: the total still counts every row.
  const Run none = run_summary("--top 0 " + file);
  CHECK(none.code == 0);
  CHECK(none.out.find("total: 4 fusions (top 0 shown)") != std::string::npos);
}

TEST_CASE("elide_middle keeps both ends and marks the cut with one ellipsis") {
  CHECK(app::elide_middle("fusion.3", 20) == "fusion.3");
  CHECK(app::elide_middle("fusion.3", 8) == "fusion.3");
  CHECK(app::elide_middle("loop_dynamic_update_slice_fusion.12", 16) == "loop_dy\u2026usion.12");
  CHECK(app::elide_middle("abcdefgh", 7) == "abc\u2026fgh");
  CHECK(app::elide_middle("abcdefgh", 2) == "\u2026h");
  CHECK(app::elide_middle("abcdefgh", 1) == "\u2026");
  CHECK(app::elide_middle("abcdefgh", 0).empty());
  for (std::size_t width = 1; width < 12; ++width) {
    const std::string e = app::elide_middle("0123456789a", width);
    CHECK(columns(e) == std::min<std::size_t>(width, 11));
  }
}

}  // namespace test_summary_cli_cases

// `hlo-index analyze ...` as a user sees it: each testdata/analyze/NAME.hlo
// is an HLO module whose first lines may carry the command's flags, and
// NAME.expected its exact output: stdout, then stderr, then `exit: N`.
//
// Flag lines (anywhere in the file, one or more flags each):
//   // flags: --direction both --one-line
// Supported: --direction D, --one-line, --xla-compat, --no-simplify,
// --format json, --operand K, --instruction NAME, --computation NAME, --module NAME,
// --match REGEX (no blanks), --all-computations, --physical,
// --utilisation, --coalescing.
// Diagnostics name the file by its path relative to testdata/analyze.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/analyze_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_analyze_cli_cases {

using namespace hlo_index;

namespace {

app::AnalyzeOptions read_flags(const std::string& text) {
  app::AnalyzeOptions options;
  std::istringstream lines(text);
  std::string line;
  const std::string marker = "// flags:";
  while (std::getline(lines, line)) {
    if (line.rfind(marker, 0) != 0) continue;
    std::istringstream words(line.substr(marker.size()));
    std::string flag;
    while (words >> flag) {
      auto value = [&] {
        std::string v;
        REQUIRE(static_cast<bool>(words >> v));
        return v;
      };
      if (flag == "--direction")
        options.direction = value();
      else if (flag == "--one-line")
        options.one_line = true;
      else if (flag == "--xla-compat")
        options.xla_compat = true;
      else if (flag == "--no-simplify")
        options.simplify = false;
      else if (flag == "--physical")
        options.physical = true;
      else if (flag == "--utilisation")
        options.utilisation = true;
      else if (flag == "--coalescing")
        options.coalescing = true;
      else if (flag == "--format")
        options.format = value();
      else if (flag == "--target")
        options.target = value();
      else if (flag == "--operand")
        options.operand = std::stoul(value());
      else if (flag == "--instruction")
        options.instructions.push_back(value());
      else if (flag == "--computation")
        options.computations.push_back(value());
      else if (flag == "--all-computations")
        options.all_computations = true;
      else if (flag == "--module")
        options.modules.push_back(value());
      else if (flag == "--match")
        options.match = value();
      else if (flag == "--allow-truncated")
        options.allow_truncated = true;
      else
        FAIL("unknown flag in " << flag);
    }
  }
  return options;
}

}  // namespace

TEST_CASE("hlo-index analyze: golden outputs") {
  auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "analyze";
  auto cases = golden::files_with_extension(dir, ".hlo");
  CHECK(!cases.empty());
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      app::AnalyzeOptions options = read_flags(golden::read_file(path));
      options.files = {path.string()};
      std::ostringstream out, err;
      int code = app::run_analyze_command(options, out, err);
      // JSON names each instruction's file: relative to testdata/analyze, as in diagnostics.
      std::string stdout_text = out.str();
      const std::string prefix = dir.string() + "/";
      for (std::size_t at; (at = stdout_text.find(prefix)) != std::string::npos;) stdout_text.erase(at, prefix.size());
      std::string actual = golden::command_output(stdout_text, err.str(), code, dir);
      std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

// The JSON document is written as it grows (app/analyze_json.cpp); it must be
// the bytes nlohmann's own dump(2) of the whole document gives, for every
// case, with utilisation and coalescing, and for several files in one run.
TEST_CASE("hlo-index analyze: streamed JSON is the document's own dump") {
  auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "analyze";
  auto cases = golden::files_with_extension(dir, ".hlo");
  auto check = [](app::AnalyzeOptions options) {
    options.format = "json";
    std::ostringstream out, err;
    (void)app::run_analyze_command(options, out, err);
    const std::string text = out.str();
    if (text.empty()) return false;  // a case whose input is refused prints no document
    CHECK(nlohmann::ordered_json::parse(text).dump(2) + "\n" == text);
    return true;
  };
  std::size_t documents = 0;
  for (const auto& path : cases) {
    INFO(path.filename().string());
    app::AnalyzeOptions options = read_flags(golden::read_file(path));
    options.files = {path.string()};
    documents += check(options) ? 1 : 0;
    options.utilisation = options.coalescing = true;
    options.direction = "both";
    (void)check(options);
  }
  CHECK(documents > 10);
  app::AnalyzeOptions several;
  for (std::size_t k = 0; k < 3 && k < cases.size(); ++k) several.files.push_back(cases[k].string());
  CHECK(check(several));
  several.computations = {"no_such_computation"};  // modules with no computation shown
  (void)check(several);
}

}  // namespace test_analyze_cli_cases

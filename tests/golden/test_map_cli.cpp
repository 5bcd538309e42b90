// `hlo-index map ...` as a user sees it: each testdata/map/NAME.case holds
// the command (operation, flags, maps or standard input) and NAME.expected
// its exact output: stdout, then stderr, then `exit: N`.
//
// NAME.case format, one directive per line (lines starting with # are
// comments):
//   operation: simplify|compose|inverse|count|equal
//   flag: --format json            (repeatable; one flag or flag+value per line)
//   map: <map text>                (repeatable; each is one argument)
//   stdin: <line>                  (repeatable; lines of standard input)
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <sstream>

#include "app/map_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_map_cli_cases {

using namespace hlo_index;

namespace {

app::MapOptions read_case(const std::string& text, std::string& stdin_text) {
  app::MapOptions options;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto colon = line.find(':');
    REQUIRE(colon != std::string::npos);
    std::string key = line.substr(0, colon);
    std::string value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
    if (key == "operation") {
      options.operation = value;
    } else if (key == "map") {
      options.maps.push_back(value);
    } else if (key == "stdin") {
      stdin_text += value + "\n";
    } else if (key == "flag") {
      if (value == "--multi-line") {
        options.multi_line = true;
      } else if (value == "--no-simplify") {
        options.simplify = false;
      } else if (value == "--verify") {
        options.verify = true;
      } else if (value == "--format json") {
        options.format = "json";
      } else if (value.rfind("--isl-max-operations ", 0) == 0) {
        options.isl_max_operations = std::stoul(value.substr(21));
      } else {
        FAIL("unknown flag in case file: " << value);
      }
    } else {
      FAIL("unknown directive in case file: " << key);
    }
  }
  return options;
}

}  // namespace

TEST_CASE("hlo-index map: golden outputs") {
  auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "map";
  auto cases = golden::files_with_extension(dir, ".case");
  CHECK(cases.size() >= 20);
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      std::string stdin_text;
      app::MapOptions options = read_case(golden::read_file(path), stdin_text);
      std::istringstream in(stdin_text);
      std::ostringstream out, err;
      int code = app::run_map_command(options, in, out, err);
      std::string actual = golden::command_output(out.str(), err.str(), code, dir);
      std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

TEST_CASE("hlo-index map: --time-limit stops isl and says so") {
  // Counting the image of six nested ceildiv/mod pairs runs for many seconds in isl (over more
  // points than are counted one by one).
  std::string chain = "d0";
  for (int k = 0; k < 6; ++k) chain = fmt::format("(({}) ceildiv 2 * 3 + d0) mod 7", chain);
  app::MapOptions options;
  options.operation = "count";
  options.maps = {fmt::format("(d0) -> ({}), domain: d0 in [0, 2000000]", chain)};
  options.time_limit = 0.2;
  std::istringstream in;
  std::ostringstream out, err;
  const auto start = std::chrono::steady_clock::now();
  CHECK(app::run_map_command(options, in, out, err) == 0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(seconds < 5);
  CHECK(out.str().find("image points: <= ") != std::string::npos);
  CHECK(err.str().find("the time limit of 0.2 s was reached") != std::string::npos);
}

}  // namespace test_map_cli_cases

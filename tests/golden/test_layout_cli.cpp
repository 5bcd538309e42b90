// `hlo-index layout ...` as a user sees it: each testdata/layout/NAME.args
// holds a comment saying what the case shows and one line
//   args: TARGET [flags...]
// (words split at blanks; a TARGET ending in .hlo is a file next to the
// case), and NAME.expected the exact output: stdout, stderr, `exit: N`.
#include <catch2/catch.hpp>

#include <sstream>

#include "app/layout_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_layout_cli_cases {

using namespace hlo_index;

namespace {

std::vector<std::int64_t> int_list(const std::string& text) {
  std::vector<std::int64_t> values;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) values.push_back(std::stoll(item));
  return values;
}

app::LayoutOptions read_args(const std::string& text, const std::filesystem::path& dir) {
  app::LayoutOptions options;
  std::istringstream lines(text);
  std::string line;
  const std::string marker = "args:";
  bool found = false;
  while (std::getline(lines, line)) {
    if (line.rfind(marker, 0) != 0) continue;
    found = true;
    std::istringstream words(line.substr(marker.size()));
    std::string word;
    while (words >> word) {
      auto value = [&] {
        std::string v;
        REQUIRE(static_cast<bool>(words >> v));
        return v;
      };
      if (word == "--instruction")
        options.instruction = value();
      else if (word == "--computation")
        options.computation = value();
      else if (word == "--tuple-index")
        options.tuple_index = int_list(value());
      else if (word == "--padded-dims")
        options.padded_dims = int_list(value());
      else if (word == "--index")
        options.indices.push_back(value());
      else if (word == "--offset")
        options.offsets.push_back(std::stoll(value()));
      else if (word == "--format")
        options.format = value();
      else if (word == "--one-line")
        options.one_line = true;
      else if (word.rfind("--", 0) == 0)
        FAIL("unknown flag " << word);
      else
        options.target = word.size() > 4 && word.ends_with(".hlo") ? (dir / word).string() : word;
    }
  }
  REQUIRE(found);
  return options;
}

}  // namespace

TEST_CASE("hlo-index layout: golden outputs") {
  auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "layout";
  auto cases = golden::files_with_extension(dir, ".args");
  CHECK(!cases.empty());
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      app::LayoutOptions options = read_args(golden::read_file(path), dir);
      std::ostringstream out, err;
      int code = app::run_layout_command(options, out, err);
      std::string actual = golden::command_output(out.str(), err.str(), code, dir);
      std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

// Issue #28: each leaf was a copy of the whole tuple (3.6 GB for 5,000 elements); not timed here
// (bench/wide_tuples/run.sh).
TEST_CASE("wide tuples: layout of a 5,000-element tuple lays out every element") {
  std::string shape = "(";
  for (int i = 0; i < 5000; ++i) shape += (i > 0 ? ", " : "") + std::string("f32[4,8]{0,1}");
  shape += ")";
  app::LayoutOptions options;
  options.target = shape;
  options.format = "json";
  std::ostringstream out, err;
  REQUIRE(app::run_layout_command(options, out, err) == 0);
  const std::string text = out.str();
  std::size_t arrays = 0;
  for (std::size_t at = text.find("\"tuple_index\""); at != std::string::npos;
       at = text.find("\"tuple_index\"", at + 1))
    ++arrays;
  CHECK(arrays == static_cast<std::size_t>(5000));
  CHECK(text.find("\"{4999}\"") != std::string::npos);
}

}  // namespace test_layout_cli_cases

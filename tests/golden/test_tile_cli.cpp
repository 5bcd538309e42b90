// `hlo-index tile ...` as a user sees it: each testdata/tile/NAME.hlo carries
// its flags on a `// flags:` line, parsed by the command's own CLI11 options,
// and NAME.expected its exact output (stdout, stderr, `exit: N`). The JSON
// form is checked with nlohmann.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <sstream>

#include "app/tile_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_tile_cli_cases {

using namespace hlo_index;
using json = nlohmann::json;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "tile";

std::string flags_of(const std::string& text) {
  std::istringstream lines(text);
  const std::string marker = "// flags:";
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(marker, 0) == 0) return line.substr(marker.size());
  }
  return "";
}

golden::CommandRun run_tile(const std::string& arguments) {
  golden::CommandRun run =
      golden::run_command<app::TileOptions>("tile", arguments, app::add_tile_options, app::run_tile_command);
  run.out = golden::replace_all(run.out, k_dir.string() + "/", "");
  return run;
}

std::string quoted(const std::filesystem::path& path) { return "\"" + path.string() + "\""; }

}  // namespace

TEST_CASE("hlo-index tile: golden outputs") {
  auto cases = golden::files_with_extension(k_dir, ".hlo");
  CHECK(cases.size() >= 4);
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      const golden::CommandRun run = run_tile(flags_of(golden::read_file(path)) + " " + quoted(path));
      const std::string actual = golden::command_output(run.out, run.err, run.code, k_dir);
      const std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

TEST_CASE("hlo-index tile: JSON of a tiling XLA rejects and the exact counts accept") {
  const golden::CommandRun run =
      run_tile("--instruction mix --tile 2,4 --format json " + quoted(k_dir / "reshape_mix.hlo"));
  REQUIRE(run.code == 0);
  const json doc = json::parse(run.out);
  CHECK(doc["xla_tiles_all"] == false);
  CHECK(doc["tiling"]["tiles"] == 6);
  const json& p = doc["entries"][2];
  CHECK(p["instruction"] == "p");
  CHECK(p.contains("no_tile"));
  CHECK(p["tile"]["exact"] == true);
  CHECK(p["tile"]["strides"] == json::array({3, 1}));
  CHECK(p["tile"]["reads"] == 48);
}

TEST_CASE("hlo-index tile: the search is deterministic") {
  const std::string args = "--instruction softmax_fusion --format json " + quoted(k_dir / "softmax_search.hlo");
  const golden::CommandRun a = run_tile(args), b = run_tile(args);
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  const json doc = json::parse(a.out);
  const json& best = doc["search"]["best"];
  REQUIRE(best.size() == 5);
  for (std::size_t k = 1; k < best.size(); ++k)
    CHECK(best[k - 1]["seconds"].get<double>() <= best[k]["seconds"].get<double>());
}

}  // namespace test_tile_cli_cases

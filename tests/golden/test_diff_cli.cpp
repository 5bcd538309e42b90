// `hlo-index diff ...` as a user sees it: each testdata/diff/NAME.case holds
// the command's arguments (after `#` comment lines; `X.hlo` names a file of
// testdata/diff), and NAME.expected its exact output (stdout, stderr,
// `exit: N`). The pairs are a small module (base.hlo) and edits of it. The
// other cases check the JSON document and the exit codes.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/diff_command.hpp"
#include "golden.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_diff_cli_cases {

using namespace hlo_index;
using json = nlohmann::json;

namespace {

const std::filesystem::path k_dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "diff";

// The arguments of a case file: its lines that are not comments, with each
// `X.hlo` made a path into testdata/diff.
std::string arguments_of(const std::string& text) {
  std::istringstream lines(text);
  std::string arguments;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const bool file = word.size() > 4 && word.compare(word.size() - 4, 4, ".hlo") == 0;
      arguments += fmt::format(" {}", file ? fmt::format("\"{}\"", (k_dir / word).string()) : word);
    }
  }
  return arguments;
}

using golden::replace_all;
using Run = golden::CommandRun;

// Parses `arguments` with diff's options, as `hlo-index diff ARGUMENTS` would, and runs it.
Run run_diff(const std::string& arguments) {
  Run run = golden::run_command<app::DiffOptions>("diff", arguments, app::add_diff_options, app::run_diff_command);
  run.out = replace_all(run.out, k_dir.string() + "/", "");
  return run;
}

}  // namespace

TEST_CASE("hlo-index diff: golden outputs") {
  auto cases = golden::files_with_extension(k_dir, ".case");
  CHECK(cases.size() >= 9);
  for (const auto& path : cases) {
    DYNAMIC_SECTION(path.filename().string()) {
      const Run run = run_diff(arguments_of(golden::read_file(path)));
      const std::string actual = golden::command_output(run.out, run.err, run.code, k_dir);
      const std::string report =
          golden::compare_or_update(std::filesystem::path(path).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

TEST_CASE("hlo-index diff: renumbering and reordering match every fusion") {
  const Run run = run_diff(arguments_of("--format json base.hlo renumbered.hlo"));
  REQUIRE(run.code == 0);
  const json doc = json::parse(run.out);
  CHECK(doc["differences"] == false);
  REQUIRE(doc["modules"].size() == 1);
  const json& m = doc["modules"][0];
  CHECK(m["matched"] == 2);
  // The renamed fusion (loop_fusion -> bias_relu_fusion) keeps its fingerprint, which holds no name.
  CHECK(m["matched_by_structure"] == 0);
  CHECK(m["changed"].empty());
}

TEST_CASE("hlo-index diff: a fusion split in two is reported as a split, with its cost") {
  const Run run = run_diff(arguments_of("--format json base.hlo split.hlo"));
  CHECK(run.code == 1);
  const json doc = json::parse(run.out);
  const json& m = doc["modules"][0];
  CHECK(m["removed"].empty());
  CHECK(m["added"].empty());
  CHECK(m["changed"].empty());
  REQUIRE(m["regrouped"].size() == 1);
  const json& g = m["regrouped"][0];
  CHECK(g["kind"] == "split");
  REQUIRE(g["before"].size() == 1);
  CHECK(g["before"][0]["name"] == "loop_fusion.11");
  CHECK(g["after"].size() == 2);
  CHECK(g["regression"] == true);
  // An extra kernel: the time grows beyond both the threshold and the 1 us floor; the
  // intermediate's 512 KiB round trip stays under the 1 MiB bytes floor.
  std::map<std::string, json> figures;
  for (const json& f : g["figures"]) figures[f["figure"]] = f;
  CHECK(figures.at("fusions")["after"] == "2");
  CHECK(figures.at("time")["regression"] == true);
  CHECK(figures.at("bytes_written")["regression"] == false);
  CHECK(figures.at("bytes_written")["why"].get<std::string>().find("< 1 MiB") != std::string::npos);
  const double before = g["before"][0]["seconds"].get<double>();
  const double after = g["after"][0]["seconds"].get<double>() + g["after"][1]["seconds"].get<double>();
  CHECK(after - before >= 1e-6);
  CHECK_FALSE(doc["explanation"]["regressions"].empty());
  // A bytes floor of 256 KiB makes the round trip a regression too.
  const json low = json::parse(run_diff(arguments_of("--format json --min-bytes 256KiB base.hlo split.hlo")).out);
  for (const json& f : low["modules"][0]["regrouped"][0]["figures"]) {
    if (f["figure"] == "bytes_written") CHECK(f["regression"] == true);
  }
}

TEST_CASE("hlo-index diff: a changed fusion lists each changed figure before and after") {
  // The worse access is on 512 KiB: below the default floor (exit 0), a regression with no floor.
  CHECK(run_diff(arguments_of("base.hlo transpose.hlo")).code == 0);
  const Run run = run_diff(arguments_of("--format json --min-bytes 0 base.hlo transpose.hlo"));
  CHECK(run.code == 1);
  const json doc = json::parse(run.out);
  CHECK(doc["regression"] == true);
  const json& m = doc["modules"][0];
  REQUIRE(m["changed"].size() == 1);
  const json& c = m["changed"][0];
  CHECK(c["before"]["name"] == "input_reduce_fusion.12");
  CHECK(c["matched_by"] == "name, structure differs");
  CHECK(c["fused_ops_added"] == json::array({"transpose"}));
  CHECK(c["fused_ops_removed"].empty());
  CHECK(c["shapes_changed"] == false);
  REQUIRE(!c["figures"].empty());
  bool access = false;
  for (const json& f : c["figures"]) {
    if (f["figure"] != "access") continue;
    access = true;
    CHECK(f["before"] == "coalesced");
    CHECK(f["after"].get<std::string>().rfind("strided", 0) == 0);
    CHECK(f["regression"] == true);
  }
  CHECK(access);
}

TEST_CASE("hlo-index diff: options and exit codes") {
  CHECK(run_diff(arguments_of("base.hlo base.hlo")).code == 0);
  CHECK(run_diff(arguments_of("base.hlo layout.hlo")).code == 0);  // a small table: under the floors
  CHECK(run_diff(arguments_of("base.hlo split.hlo")).code == 1);
  CHECK(run_diff(arguments_of("--min-bytes lots base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("--min-us -1 base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("base.hlo bad.hlo")).code == 2);
  CHECK(run_diff(arguments_of("bad.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("base.hlo does_not_exist.hlo")).code == 2);
  CHECK(run_diff(arguments_of("--format yaml base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("--threshold -3 base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("--module nope base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("--match '(' base.hlo base.hlo")).code == 2);
  CHECK(run_diff(arguments_of("base.hlo")).code == 2);
}

namespace {

// `text` with every numeric part of every %name raised by 1000 (`%fusion.12.clone.3` ->
// `%fusion.1012.clone.1003`), as a recompilation renumbers.
std::string renumbered(const std::string& text) {
  const auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      out += text[i++];
      continue;
    }
    out += text[i++];
    while (i < text.size() && (name_char(text[i]) || text[i] == '.')) {
      std::size_t end = i;
      while (end < text.size() && name_char(text[end])) ++end;
      const std::string part = text.substr(i, end - i);
      const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
      const bool after_dot = !out.empty() && out.back() == '.';
      out += digits && after_dot ? std::to_string(std::stoll(part) + 1000) : part;
      i = end;
      if (i < text.size() && text[i] == '.') out += text[i++];
    }
  }
  return out;
}

}  // namespace

TEST_CASE("hlo-index diff: a real dump against itself renumbered has no differences") {
  const std::filesystem::path dump = std::filesystem::path(HLO_INDEX_CORPUS_DIR) / "AI-Hypercomputer__maxtext" /
                                     "tests__utils__reference_hlo_qwen3_1.7b.txt";
  const std::string text = golden::read_file(dump);
  const std::string changed = renumbered(text);
  REQUIRE(changed != text);
  CHECK(changed.find("%fusion.1") != std::string::npos);
  const std::filesystem::path copy =
      std::filesystem::temp_directory_path() /
      fmt::format("hlo_index_diff_renumbered_{}.hlo", ::getpid());  // a name of its own under parallel runs
  {
    std::ofstream file(copy, std::ios::binary);
    file << changed;
  }
  const Run run = run_diff(fmt::format("--allow-truncated \"{}\" \"{}\"", dump.string(), copy.string()));
  std::filesystem::remove(copy);
  CHECK(run.code == 0);
  CHECK(run.out.find("no differences\n") != std::string::npos);
}

}  // namespace test_diff_cli_cases

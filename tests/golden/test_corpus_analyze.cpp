// `hlo-index analyze` over every module of ../shared/corpus: no crash, no
// error exit, a summary line, and every instruction reported.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "app/analyze_command.hpp"

using namespace hlo_index;

TEST_CASE("hlo-index analyze: the whole corpus analyses without an error exit") {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(HLO_INDEX_CORPUS_DIR)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 58);
  for (const auto& file : files) {
    DYNAMIC_SECTION(file.filename().string()) {
      app::AnalyzeOptions options;
      options.files = {file.string()};
      options.allow_truncated = true;  // some published dumps are cut off
      options.one_line = true;
      std::ostringstream out, err;
      const int code = app::run_analyze_command(options, out, err);
      INFO(err.str());
      CHECK(code == 0);
      const std::string text = out.str();
      const auto last_line = text.substr(text.rfind('\n', text.size() - 2) + 1);
      CHECK(last_line.rfind("analysed ", 0) == 0);
      CHECK(text.find("UNDEFINED: cannot build the maps") == std::string::npos);
    }
  }
}

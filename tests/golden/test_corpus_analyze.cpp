// `hlo-index analyze` over every module of the corpus: no crash, no error
// exit, a summary line, and every instruction reported. Over testdata/corpus
// always, and over the full corpus when CMake found it.
#include <catch2/catch.hpp>

#include <sstream>

#include "app/analyze_command.hpp"
#include "tests/corpus.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_corpus_analyze_cases {

using namespace hlo_index;

namespace {

void check_corpus_analyses(const std::filesystem::path& dir, std::size_t at_least_files) {
  const auto files = corpus::files(dir);
  REQUIRE(files.size() >= at_least_files);
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

}  // namespace

TEST_CASE("hlo-index analyze: testdata/corpus analyses without an error exit") {
  check_corpus_analyses(HLO_INDEX_CORPUS_DIR, 15);
}

#ifdef HLO_INDEX_FULL_CORPUS_DIR
TEST_CASE("hlo-index analyze: the full corpus analyses without an error exit") {
  check_corpus_analyses(HLO_INDEX_FULL_CORPUS_DIR, 58);
}
#endif

}  // namespace test_corpus_analyze_cases

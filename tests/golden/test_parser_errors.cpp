// Malformed inputs: each testdata/parser/errors/NAME.hlo must produce exactly the
// diagnostics in NAME.expected (stderr of `hlo-index parse NAME.hlo`, then `exit: N`).
#include <catch2/catch.hpp>

#include "golden.hpp"
#include "parser/parse.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_errors_cases {

using namespace hlo_index;

TEST_CASE("malformed inputs give exact diagnostics and exit code 2") {
  auto dir = std::filesystem::path(HLO_INDEX_TESTDATA_DIR) / "parser" / "errors";
  auto inputs = golden::files_with_extension(dir, ".hlo");
  CHECK(inputs.size() >= 30);
  for (const auto& input : inputs) {
    DYNAMIC_SECTION(input.filename().string()) {
      parser::DiagnosticEngine diagnostics;
      parser::parse_hlo_text(golden::read_file(input), input.filename().string(), diagnostics);
      std::string actual = parser::render(diagnostics) + "exit: " + (diagnostics.has_errors() ? "2" : "0") + "\n";
      CHECK(diagnostics.has_errors());
      std::string report =
          golden::compare_or_update(std::filesystem::path(input).replace_extension(".expected"), actual);
      INFO(report);
      CHECK(report.empty());
    }
  }
}

}  // namespace test_parser_errors_cases

// The diagnostic format: file:line:col, the source line, a caret under the column.
#include <catch2/catch.hpp>

#include "parser/diagnostics.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_parser_diagnostics_cases {

using namespace hlo_index::parser;

TEST_CASE("render gives file:line:col, the line and a caret") {
  SourceFile source("m.hlo", "first line\n  second = line\n");
  DiagnosticEngine diagnostics;
  diagnostics.report(Severity::kError, source, 13, "expected shape");
  CHECK(render(diagnostics) == "m.hlo:2:3: error: expected shape\n  second = line\n  ^\n");
  CHECK(diagnostics.error_count() == 1);
}

TEST_CASE("tabs are expanded so the caret lines up") {
  SourceFile source("t.hlo", "\tx\ty = 1\n");
  DiagnosticEngine diagnostics;
  diagnostics.report(Severity::kWarning, source, 3, "here");
  CHECK(render(diagnostics) == "t.hlo:1:17: warning: here\n        x       y = 1\n                ^\n");
  CHECK(diagnostics.warning_count() == 1);
  CHECK_FALSE(diagnostics.has_errors());
}

TEST_CASE("very long lines are cut around the caret") {
  std::string line(5000, 'a');
  line[4000] = 'X';
  SourceFile source("long.hlo", line);
  DiagnosticEngine diagnostics;
  diagnostics.report(Severity::kError, source, 4000, "bad");
  std::string out = render(diagnostics);
  CHECK(out.find("long.hlo:1:4001: error: bad\n...") == 0);
  std::size_t second = out.find('\n') + 1;
  std::size_t third = out.find('\n', second) + 1;
  CHECK(out[second + (out.find('^', third) - third)] == 'X');
}

TEST_CASE("errors without a location (I/O)") {
  DiagnosticEngine diagnostics;
  diagnostics.error("missing.hlo", "cannot open file");
  CHECK(render(diagnostics) == "missing.hlo: error: cannot open file\n");
}

}  // namespace test_parser_diagnostics_cases

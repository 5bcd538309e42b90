// Parsing module text in unit tests: a module that must parse, or the first
// error of one that must not (as `LINE:COL: message`).
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "parser/parse.hpp"

namespace hlo_index::test {

inline std::vector<hlo::Module> parse_ok(const std::string& text, parser::ParseOptions options = {}) {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "test.hlo", diagnostics, options);
  INFO(parser::render(diagnostics));
  REQUIRE_FALSE(diagnostics.has_errors());
  REQUIRE_FALSE(modules.empty());
  return modules;
}

inline std::string first_error(const std::string& text) {
  parser::DiagnosticEngine diagnostics;
  auto modules = parser::parse_hlo_text(text, "t.hlo", diagnostics);
  CHECK(modules.empty());
  REQUIRE(diagnostics.has_errors());
  const parser::Diagnostic& d = diagnostics.diagnostics().front();
  return std::to_string(d.line) + ":" + std::to_string(d.column) + ": " + d.message;
}

}  // namespace hlo_index::test

// Every module of the corpus (real dumps written by others) parses, and
// re-printing then re-parsing it gives the same text: over testdata/corpus
// always, and over the full corpus when CMake found it.
#include <catch2/catch.hpp>

#include "parser/parse.hpp"
#include "parser/print.hpp"
#include "tests/corpus.hpp"

// Its own namespace: the test files are compiled together (CMake unity build).
namespace test_corpus_cases {

using namespace hlo_index;

namespace {

// Published dumps cut off mid-computation are errors unless --allow-truncated.
void check_strict_parse(const std::shared_ptr<const parser::SourceFile>& source) {
  parser::DiagnosticEngine strict;
  parser::parse_hlo(source, strict);
  for (const parser::Diagnostic& d : strict.diagnostics()) {
    INFO(parser::render(d));
    CHECK((d.severity != parser::Severity::kError || d.message.find("is not closed") != std::string::npos));
  }
}

void check_round_trip(const hlo::Module& module) {
  std::string printed = parser::print_module(module);
  parser::DiagnosticEngine again;
  auto reparsed = parser::parse_hlo_text(printed, "printed.hlo", again);
  INFO(parser::render(again));
  REQUIRE(reparsed.size() == 1);
  CHECK(parser::print_module(reparsed[0]) == printed);
  CHECK(reparsed[0].instruction_count() == module.instruction_count());
}

void check_corpus_round_trips(const std::filesystem::path& dir) {
  REQUIRE(std::filesystem::is_directory(dir));
  for (const auto& file : corpus::files(dir)) {
    DYNAMIC_SECTION(file.filename().string()) {
      auto source = std::make_shared<const parser::SourceFile>(file.filename().string(), corpus::read(file));
      check_strict_parse(source);
      parser::DiagnosticEngine lenient;
      auto parsed = parser::parse_hlo(source, lenient, {.allow_truncated = true});
      INFO(parser::render(lenient));
      REQUIRE_FALSE(lenient.has_errors());
      REQUIRE_FALSE(parsed.empty());
      for (const hlo::Module& module : parsed) check_round_trip(module);
    }
  }
}

}  // namespace

TEST_CASE("testdata/corpus is there") {
  INFO("expected the small corpus at " HLO_INDEX_CORPUS_DIR);
  REQUIRE(std::filesystem::is_directory(HLO_INDEX_CORPUS_DIR));
  CHECK(corpus::files(HLO_INDEX_CORPUS_DIR).size() >= 15);
}

TEST_CASE("testdata/corpus: every file parses and round-trips") { check_corpus_round_trips(HLO_INDEX_CORPUS_DIR); }

TEST_CASE("testdata/corpus: holds multi-module files and truncated dumps") {
  std::size_t modules = 0, truncated_files = 0;
  for (const auto& file : corpus::files(HLO_INDEX_CORPUS_DIR)) {
    parser::DiagnosticEngine strict, lenient;
    const std::string text = corpus::read(file);
    parser::parse_hlo_text(text, file.filename().string(), strict);
    if (strict.has_errors()) ++truncated_files;
    modules += parser::parse_hlo_text(text, file.filename().string(), lenient, {.allow_truncated = true}).size();
  }
  CHECK(modules >= 40);
  CHECK(truncated_files >= 2);  // the maxtext reference dumps
}

#ifdef HLO_INDEX_FULL_CORPUS_DIR
TEST_CASE("full corpus is there") {
  INFO("expected the full corpus at " HLO_INDEX_FULL_CORPUS_DIR);
  REQUIRE(std::filesystem::is_directory(HLO_INDEX_FULL_CORPUS_DIR));
  CHECK(corpus::files(HLO_INDEX_FULL_CORPUS_DIR).size() >= 58);
}

TEST_CASE("full corpus: every file parses and round-trips") { check_corpus_round_trips(HLO_INDEX_FULL_CORPUS_DIR); }
#endif

}  // namespace test_corpus_cases

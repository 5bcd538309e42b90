// Every module of ../shared/corpus (real dumps written by others) parses, and
// re-printing then re-parsing it gives the same text.
#include <catch2/catch.hpp>

#include "golden.hpp"
#include "parser/parse.hpp"
#include "parser/print.hpp"

using namespace hlo_index;

namespace {
std::vector<std::filesystem::path> corpus_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(HLO_INDEX_CORPUS_DIR))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}
}  // namespace

TEST_CASE("the corpus is there") {
  INFO("expected the shared corpus at " HLO_INDEX_CORPUS_DIR);
  REQUIRE(std::filesystem::is_directory(HLO_INDEX_CORPUS_DIR));
  CHECK(corpus_files().size() >= 58);
}

TEST_CASE("every corpus file parses and round-trips") {
  REQUIRE(std::filesystem::is_directory(HLO_INDEX_CORPUS_DIR));
  std::size_t modules = 0;
  for (const auto& file : corpus_files()) {
    DYNAMIC_SECTION(file.filename().string()) {
      auto source = std::make_shared<const parser::SourceFile>(file.filename().string(), golden::read_file(file));
      parser::DiagnosticEngine strict;
      auto strict_modules = parser::parse_hlo(source, strict);
      // Published dumps cut off mid-computation are errors unless --allow-truncated.
      for (const parser::Diagnostic& d : strict.diagnostics()) {
        INFO(parser::render(d));
        CHECK((d.severity != parser::Severity::kError || d.message.find("is not closed") != std::string::npos));
      }
      parser::DiagnosticEngine lenient;
      auto parsed = parser::parse_hlo(source, lenient, {.allow_truncated = true});
      INFO(parser::render(lenient));
      REQUIRE_FALSE(lenient.has_errors());
      REQUIRE_FALSE(parsed.empty());
      modules += parsed.size();
      for (const hlo::Module& module : parsed) {
        std::string printed = parser::print_module(module);
        parser::DiagnosticEngine again;
        auto reparsed = parser::parse_hlo_text(printed, "printed.hlo", again);
        INFO(parser::render(again));
        REQUIRE(reparsed.size() == 1);
        CHECK(parser::print_module(reparsed[0]) == printed);
        CHECK(reparsed[0].instruction_count() == module.instruction_count());
      }
    }
  }
}

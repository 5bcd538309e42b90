// libFuzzer target: the indexing-map text reader of `hlo-index map`. A map
// that parses is printed, read back (the printer's text must parse) and
// simplified under a small isl budget, as `map simplify` would.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_parser.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "simplify/interval.hpp"

namespace {

using hlo_index::parser::DiagnosticEngine;
using hlo_index::parser::SourceFile;

std::optional<hlo_index::indexing::IndexingMap> read(std::string text, DiagnosticEngine& diagnostics) {
  const SourceFile source("<fuzz map>", std::move(text));
  return hlo_index::indexing::parse_map(source, diagnostics);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  hlo_index::indexing::IslContext::get().set_operation_limit(20'000);
  DiagnosticEngine diagnostics;
  auto map = read(std::string(reinterpret_cast<const char*>(data), size), diagnostics);
  (void)hlo_index::parser::render(diagnostics);
  if (!map) return 0;
  DiagnosticEngine again;
  if (!read(hlo_index::indexing::print_map(*map), again)) std::abort();  // printed text the reader refuses
  try {
    hlo_index::indexing::simplify(*map);
    (void)hlo_index::indexing::print_map(*map);
  } catch (const hlo_index::indexing::IslLimitReached&) {
    // the budget is the answer for maps too hard to simplify within it
  } catch (const hlo_index::simplify::ArithmeticOverflow&) {
    // reported to the user as an error, as `hlo-index map` does
  }
  return 0;
}

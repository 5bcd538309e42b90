// libFuzzer target: HLO module text -> parse_hlo with diagnostics. A module
// that parses is printed and the print parsed again: the printer's promise
// (print_module output re-parses to the same bytes) is checked, not assumed.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "parser/parse.hpp"
#include "parser/print.hpp"

namespace {

using hlo_index::parser::DiagnosticEngine;

void check_round_trip(const hlo_index::hlo::Module& module) {
  const std::string printed = hlo_index::parser::print_module(module);
  DiagnosticEngine again;
  const auto reparsed = hlo_index::parser::parse_hlo_text(printed, "<printed>", again);
  if (again.has_errors() || reparsed.size() != 1) std::abort();  // the printer wrote text the parser refuses
  if (hlo_index::parser::print_module(reparsed[0]) != printed) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool truncated : {false, true}) {
    DiagnosticEngine diagnostics;
    const auto modules = hlo_index::parser::parse_hlo_text(text, "<fuzz>", diagnostics, {truncated});
    (void)hlo_index::parser::render(diagnostics);
    for (const auto& module : modules) {
      if (!truncated) check_round_trip(module);
    }
    if (!diagnostics.has_errors()) break;  // --allow-truncated only changes inputs with errors
  }
  return 0;
}

// The public entry point of parser/: HLO text in, modules and diagnostics out.
// Nothing here (or in any header other folders include) pulls in Spirit X3.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parser/diagnostics.hpp"
#include "parser/hlo_module.hpp"
#include "parser/source.hpp"

namespace hlo_index::parser {

struct ParseOptions {
  /// Accept a dump cut off inside its last computation (some published dumps
  /// are): the computation is closed with a warning, and calls of computations
  /// that would have followed stay unresolved (k_none) with a warning. Off by
  /// default: truncated input is an error.
  bool allow_truncated = false;
};

/// Parses every HLO module in `source`: one module, several separated by
/// `// -----` lines, or modules wrapped in `## BEGIN_GRAPH` / `## END_GRAPH`
/// (PyTorch/XLA dumps). Problems go to `diagnostics`; a module with errors is
/// left out of the result. Input with no module at all is an error.
std::vector<hlo::Module> parse_hlo(const SourceFilePtr& source, DiagnosticEngine& diagnostics,
                                   const ParseOptions& options = {});

/// Receives each module parse_hlo_each parses, as soon as it is complete.
using ModuleSink = std::function<void(hlo::Module&&)>;

/// parse_hlo, but each module goes to `use` as soon as it is complete instead of into a
/// vector: a caller that is done with a module before the next one (hlo-index parse's
/// statistics) keeps one module in memory at a time, and its memory is reused for the next.
void parse_hlo_each(const SourceFilePtr& source, DiagnosticEngine& diagnostics, const ParseOptions& options,
                    const ModuleSink& use);

/// Reads `path` ("-" for standard input) into a SourceFile named `path`, or
/// reports why it could not and returns nullptr. A binary file (one with a NUL
/// byte) read from a pipe is reported here; one mapped from disk, by parse_hlo.
SourceFilePtr read_source(const std::string& path, DiagnosticEngine& diagnostics);

/// Parses one shape such as `bf16[128,256]{1,0:T(8,128)(2,1)}`. On failure returns
/// nullopt and sets `error` to "COLUMN: message" (1-based column in `text`).
std::optional<hlo::Shape> parse_shape(std::string_view text, std::string* error = nullptr);

/// Convenience for tests: parse `text` as if it were the file `name`.
std::vector<hlo::Module> parse_hlo_text(std::string text, std::string name, DiagnosticEngine& diagnostics,
                                        const ParseOptions& options = {});

}  // namespace hlo_index::parser

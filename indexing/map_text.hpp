// The text form of indexing maps, as XLA prints them:
//   (d0, d1)[s0]{rt0} -> (d0 + s0, d1), domain: d0 in [0, 9], ..., d0 + s0 in [0, 100]
// and the multi-line form of the seed documents (`domain:` on its own
// line, one variable or constraint per line). UNDEFINED and KNOWN EMPTY
// replace the whole map. Runtime-variable sources follow on lines of their
// own:
//   runtime variables:
//     rt0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]
// A map that is an over-approximation ends in `(approximate)`.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "indexing/indexing_map.hpp"
#include "parser/diagnostics.hpp"
#include "parser/source.hpp"

namespace hlo_index::indexing {

enum class MapLayout { kOneLine, kMultiLine };

struct MapPrintOptions {
  MapLayout layout = MapLayout::kOneLine;
  /// Prefix of every line after the first (and of the first in multi-line
  /// form), for nesting maps under a header.
  std::string indent;
  /// Print the `runtime variables:` section. The maps of runtime sources
  /// are printed without theirs (the text form has one level).
  bool runtime_sources = true;
};

std::string print_map(const IndexingMap& map, const MapPrintOptions& options = {});

/// Parses one map (either layout). Problems are reported to `diagnostics`
/// with their position in `source`; returns nullopt on error.
std::optional<IndexingMap> parse_map(const parser::SourceFile& source, parser::DiagnosticEngine& diagnostics);

/// For tests and internal use: parses `text` or throws std::invalid_argument
/// with the rendered diagnostic.
IndexingMap parse_map(std::string_view text);

}  // namespace hlo_index::indexing

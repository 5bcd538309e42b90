// Reading indexing maps in their text form (the format is described in
// map_printer.hpp): XLA's one-line form and the seed documents' multi-line
// form, with the runtime-variable and replica-id sections.
#pragma once

#include <optional>
#include <string_view>

#include "indexing/maps/indexing_map.hpp"
#include "parser/diagnostics.hpp"
#include "parser/source.hpp"

namespace hlo_index::indexing {

/// Parses one map (either layout). Problems are reported to `diagnostics`
/// with their position in `source`; returns nullopt on error.
std::optional<IndexingMap> parse_map(const parser::SourceFile& source, parser::DiagnosticEngine& diagnostics);

/// For tests and internal use: parses `text` or throws std::invalid_argument
/// with the rendered diagnostic.
IndexingMap parse_map(std::string_view text);

}  // namespace hlo_index::indexing

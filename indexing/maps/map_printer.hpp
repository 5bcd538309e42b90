// Printing indexing maps in their text form, as XLA prints them (map_parser.hpp
// reads it back):
//   (d0, d1)[s0]{rt0} -> (d0 + s0, d1), domain: d0 in [0, 9], ..., d0 + s0 in [0, 100]
// and the multi-line form of the seed documents (`domain:` on its own
// line, one variable or constraint per line). UNDEFINED and KNOWN EMPTY
// replace the whole map. Runtime-variable sources follow on lines of their
// own:
//   runtime variables:
//     rt0: parameter(1); (d0, d1) -> (), domain: d0 in [0, 1], d1 in [0, 4]
// and then the replica-id map of an all-gather (same domain), as XLA prints
// it:
//   replica id:
//     (d0, d1) -> (d0 floordiv 64), domain: d0 in [0, 127], d1 in [0, 255]
// The map of a runtime source that has a replica id (an offset read on
// another replica) prints it on its line: `rt0: ...; <map>; replica id:
// <map>`. A map that is an over-approximation ends in `(approximate)`, or
// `(approximate: why)` when the map says why
// (before these sections).
#pragma once

#include <string>

#include "indexing/maps/indexing_map.hpp"

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
  /// Print the `replica id:` section (when the map has a replica id).
  bool replica_id = true;
  /// End an approximate map in `(approximate)`. Off where the caller says
  /// it elsewhere (XLA's text has no marker).
  bool approximate_marker = true;
};

std::string print_map(const IndexingMap& map, const MapPrintOptions& options = {});

}  // namespace hlo_index::indexing

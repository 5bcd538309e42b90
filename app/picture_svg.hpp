// The picture of one operand read (`hlo-index picture`, and each picture of
// `hlo-index report`): a heat map of the reads per element in 2-D slices, and
// one thread group's reads over the transfer units of the target, as an SVG
// document. The figures come from indexing/analysis/read_heatmap and
// group_access; this file only draws them and says what is drawn.
#pragma once

#include <cstddef>
#include <string>

#include "indexing/analysis/group_access.hpp"
#include "indexing/analysis/read_heatmap.hpp"

namespace hlo_index::app {

/// What the picture is of.
struct PictureSubject {
  std::string file;
  std::size_t line = 0;
  std::string module, computation, instruction;
  std::string kind;  // a fusion's kind, else the opcode
  std::size_t operand = 0;
  std::string operand_name, operand_shape;
  /// Prefixes the ids of the document's patterns: pictures inlined in one
  /// HTML page need ids of their own.
  std::string id_prefix;
};

/// The SVG document (deterministic bytes; every name escaped).
std::string picture_svg(const PictureSubject& subject, const analysis::ReadHeatmap& heatmap,
                        const analysis::GroupAccess& access);

/// One line about the picture: reads, elements, cells, the access verdict.
std::string picture_summary(const PictureSubject& subject, const analysis::ReadHeatmap& heatmap,
                            const analysis::GroupAccess& access);

/// The access verdict in words (`strided 1024`, `coalesced`), or `-`.
std::string access_words(const analysis::GroupAccess& access);

}  // namespace hlo_index::app

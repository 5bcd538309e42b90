// Splits an input file into the regions that hold HLO modules.
#pragma once

#include <string_view>
#include <vector>

namespace hlo_index::parser {

/// The parts of `text` that are HLO: between `## BEGIN_GRAPH` and `## END_GRAPH`
/// lines when the file has them (text around them is a PyTorch/XLA log), else
/// the pieces between `// -----` separator lines.
std::vector<std::string_view> hlo_regions(std::string_view text);

}  // namespace hlo_index::parser

// Splits an input file into the regions that hold HLO modules.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace hlo_index::parser {

/// The parts of `text` that are HLO: between `## BEGIN_GRAPH` and `## END_GRAPH`
/// lines when the file has them (text around them is a PyTorch/XLA log), else
/// the pieces between `// -----` separator lines. `nul`, when given, is set to the
/// offset of the first NUL byte of `text` (npos when it has none), found in the same
/// pass over the text.
std::vector<std::string_view> hlo_regions(std::string_view text, std::size_t* nul = nullptr);

}  // namespace hlo_index::parser

// `hlo-index layout SHAPE|FILE`: where the elements of an array live in its
// buffer: the layout in words, the logical -> physical offset map and its
// inverse, sizes and padding, and the offsets of given elements.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace hlo_index::app {

struct LayoutOptions {
  std::string target;                     // a shape, or an HLO file ("-": standard input)
  std::string computation;                // FILE: where to look for the instruction
  std::string instruction;                // FILE: whose shape
  std::vector<std::string> modules;       // FILE: only these modules (--module)
  std::string match;                      // FILE: instead of --instruction, the one instruction whose name matches
  std::vector<std::int64_t> tuple_index;  // for tuple shapes: which element
  std::vector<std::int64_t> padded_dims;  // the shapes document's padded_dimensions
  std::vector<std::string> indices;       // "2,3": print the offset of that element
  std::vector<std::int64_t> offsets;      // print the element at that offset
  std::string format = "text";            // text | json
  bool one_line = false;
  bool allow_truncated = false;
};

void setup_layout_command(CLI::App& app, int& exit_code);
int run_layout_command(const LayoutOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

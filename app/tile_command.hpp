// `hlo-index tile FILE --instruction F [--tile 16,128]`: the tile of every
// instruction of a fusion as a function of the root tile (XLA's
// SymbolicTile), a concrete tiling checked and counted exactly, or the best
// tile sizes under the cost model (indexing/tiles/).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "app/common_options.hpp"
#include "app/device_options.hpp"
#include "indexing/tiles/tile_search.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::app {

struct TileOptions {
  std::vector<std::string> files;
  std::string instruction;           // its name (a leading % is dropped)
  std::string match;                 // or a regex selecting one instruction
  std::vector<std::string> modules;  // --module
  std::vector<std::int64_t> tile;    // --tile: one size per root dimension; empty: search
  std::int64_t k_tile = 0;           // --k-tile: the K step with --tile (0: the whole contracted extent)
  std::size_t top = 5;               // tilings the search prints
  std::string format = "text";       // text | json
  DeviceOptions device;
  bool allow_truncated = false;
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;
};

/// Adds tile's options to `cmd`, storing into `options` (which must outlive parsing).
void add_tile_options(CLI::App& cmd, TileOptions& options);
void setup_tile_command(CLI::App& app, int& exit_code);
/// `summary --tiles`: the best tilings (tiles::best_tilings) of a module's rows, one line each,
/// under a heading naming `device`.
std::string best_tilings_text(const hlo::Module& module, const std::vector<tiles::BestTiling>& tilings,
                              const cost::Device& device);
/// One best tiling as JSON: sizes, estimated seconds, whether XLA has the tiling; null without one.
nlohmann::ordered_json best_tiling_json(const tiles::BestTiling& tiling);

/// Runs the command; returns the exit code (0, or 2 for bad input).
int run_tile_command(const TileOptions& options, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

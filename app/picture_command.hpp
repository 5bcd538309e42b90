// `hlo-index picture FILE --instruction NAME [--operand K] -o OUT.svg`: an
// SVG of which elements of one operand an instruction reads and how often,
// and of one thread group's reads over the target's transfer units.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "app/common_options.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/read_heatmap.hpp"

namespace hlo_index::app {

struct PictureOptions {
  std::vector<std::string> files;
  std::string instruction;             // its name (a leading % is dropped)
  std::string match;                   // or an ECMAScript regex that must select one instruction
  std::vector<std::string> modules;    // --module
  std::optional<std::size_t> operand;  // none: the operand with the most read traffic
  std::string output;                  // -o: a file, or - for standard output
  std::string target;                  // gpu | tpu | cpu; empty: detected
  std::string slices = "auto";         // auto | grid | project
  std::int64_t max_cells = 128;        // cells per side of a slice
  bool allow_truncated = false;
  unsigned long isl_max_operations = 0;
  double time_limit_per_instruction = k_default_time_limit_per_instruction;                     // seconds; 0: none
  std::uint64_t work_budget_per_instruction = indexing::k_default_work_budget_per_instruction;  // steps; 0: none
};

/// Adds picture's options to `cmd`, storing into `options` (which must outlive parsing).
void add_picture_options(CLI::App& cmd, PictureOptions& options);
void setup_picture_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code (0, or 2 for bad input). The SVG
/// to the file named by -o (or `out` for `-`), a line about it to `out`
/// (to `err` when the SVG goes to `out`), diagnostics to `err`.
int run_picture_command(const PictureOptions& options, std::ostream& out, std::ostream& err);

/// A picture and the line that describes it.
struct Picture {
  std::string svg, summary;
};

/// The picture of operand `operand` of instruction `instruction` of
/// `computation` (shared with `hlo-index report`); with `memo`, heat maps of
/// the same maps are counted once; `id_prefix` prefixes the SVG's ids.
Picture draw_operand(analysis::ModuleAnalysis& analysis, std::uint32_t computation, std::uint32_t instruction,
                     std::size_t operand, const analysis::HeatmapOptions& options,
                     analysis::ReadHeatmapMemo* memo = nullptr, const std::string& id_prefix = {});

/// Writes `text` to `path` (`-`: to `out`); false, with the reason on `err`, when it cannot.
bool write_output(const std::string& path, const std::string& text, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

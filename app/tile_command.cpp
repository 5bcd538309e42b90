#include "app/tile_command.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/source_position.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/tiles/tile_search.hpp"

namespace hlo_index::app {

namespace {

using Found = analysis::FoundInstruction;
using analysis::find_instructions;

indexing::MapPrintOptions map_options() {
  indexing::MapPrintOptions o;
  o.runtime_sources = false;
  return o;
}

std::string tuple_text(const std::vector<std::int64_t>& v) { return fmt::format("({})", fmt::join(v, ", ")); }

// A multi-output fusion's roots say which output they are.
std::string root_word(const tiles::TiledFusion& fusion, const tiles::TiledEntry& e) {
  if (!e.root) return "";
  return fusion.outputs.size() > 1 ? fmt::format(", root of output {}", e.output) : ", root";
}

std::string entry_title(const tiles::TiledFusion& fusion, const tiles::TiledEntry& e) {
  std::string what = e.opcode;
  if (e.reads_memory)
    what += e.opcode == "parameter" ? fmt::format(" {}", e.parameter) : fmt::format(", operand {}", e.parameter);
  return fmt::format("%{} ({}{}){}", e.name, what, root_word(fusion, e), e.reads_memory ? ", read from memory" : "");
}

std::string symbolic_text(const tiles::TiledEntry& e) {
  std::string out = "  map: " + indexing::print_map(e.map, map_options()) + "\n";
  if (e.derivation.tile) {
    out += tiles::print_symbolic_tile(*e.derivation.tile, "  ");
    if (!e.derivation.reason.empty()) out += "  no tile: " + e.derivation.reason + "\n";
  } else {
    out += "  no tile (XLA: none either): " + e.derivation.reason + "\n";
  }
  return out;
}

// `, K 64`: the K step of a fusion with contracted dimensions (`K 2048 (whole)` for one step).
std::string k_text(std::int64_t k_tile, std::int64_t k_extent) {
  if (k_tile <= 0) return "";
  return fmt::format(", K {}{}", k_tile, k_tile >= k_extent ? " (whole)" : "");
}

std::string concrete_text(const tiles::TiledFusion& f, const tiles::ConcreteTiling& t) {
  const char* xla = !f.all_tiled         ? "XLA has no tiling (an instruction without a tile)"
                    : t.constraints_hold ? "XLA's constraints hold"
                                         : "XLA's constraints fail";
  std::string out = fmt::format("tiling {}{}: {} tiles ({}), {}\n", tuple_text(t.sizes), k_text(t.k_tile, f.k_extent),
                                t.tiles, fmt::join(t.tiles_per_dimension, " x "), xla);
  for (std::size_t k = 0; k < f.entries.size(); ++k) {
    const tiles::TiledEntry& e = f.entries[k];
    const tiles::ConcreteEntry& c = t.entries[k];
    out += entry_title(f, e) + "\n";
    out += fmt::format("  tile 0: offsets {} sizes {} strides {}", tuple_text(c.offsets), tuple_text(c.sizes),
                       tuple_text(c.strides));
    std::vector<std::string> whole;
    for (std::size_t j = 0; j < c.whole.size(); ++j)
      if (c.whole[j]) whole.push_back(std::to_string(j));
    if (!whole.empty())
      out += fmt::format("; whole dimension{} {}", whole.size() == 1 ? "" : "s", fmt::join(whole, ", "));
    out += "\n";
    if (c.steps > 1)
      out += fmt::format("  per K step: sizes {} strides {}, {} steps\n", tuple_text(c.step_sizes),
                         tuple_text(c.step_strides), c.steps);
    if (c.counted) {
      const std::string bound = c.counts_exact ? "" : " at most";
      out += fmt::format(
          "  reads{} {} elements over all tiles ({:.1f} per tile), {} distinct, {} re-read by neighbouring tiles\n",
          bound, c.reads, static_cast<double>(c.reads) / static_cast<double>(std::max<std::int64_t>(t.tiles, 1)),
          c.distinct, c.rereads());
      if (c.exact)
        out += "  the box is exactly what each tile reads\n";
      else if (c.covers)
        out +=
            fmt::format("  the boxes cover the reads and {} more elements (within bounds)\n", c.box_elements - c.reads);
      else
        out += "  not decided exactly (a count is a bound)\n";
    }
    if (!c.note.empty()) out += "  note: " + c.note + "\n";
    if (c.exact && !c.symbolic && std::none_of(c.whole.begin(), c.whole.end(), [](bool w) { return w; }))
      out += "  beyond XLA: XLA rejects this tile, the exact counts show every tile reads this strided box\n";
  }
  return out;
}

std::string search_text(const tiles::TiledFusion& f, const tiles::TileSearch& s, const cost::Device& device) {
  std::string out = fmt::format(
      "search on {}: {} candidates, {} satisfy XLA's constraints within the block limit ({} elements); {} rejected by "
      "XLA checked exactly, {} accepted\n",
      device.name, s.candidates, s.xla_valid, tiles::k_max_tile_elements, s.checked_exactly, s.accepted_exactly);
  if (!s.note.empty()) out += "  " + s.note + "\n";
  for (std::size_t k = 0; k < s.best.size(); ++k) {
    const tiles::TilingEstimate& e = s.best[k];
    out += fmt::format("{}. tile {}{}: {}: {}\n", k + 1, tuple_text(e.sizes), k_text(e.k_tile, f.k_extent),
                       cost::human_seconds(e.seconds), e.why);
  }
  return out;
}

nlohmann::json entry_json(const tiles::TiledFusion& fusion, const tiles::TiledEntry& e) {
  nlohmann::json j;
  j["instruction"] = e.name;
  j["opcode"] = e.opcode;
  j["root"] = e.root;
  if (e.root && fusion.outputs.size() > 1) j["output"] = e.output;
  j["reads_memory"] = e.reads_memory;
  if (e.reads_memory) j["operand"] = e.parameter;
  j["map"] = indexing::print_map(e.map, map_options());
  if (e.derivation.tile) {
    const tiles::SymbolicTile& t = *e.derivation.tile;
    j["offset_map"] = tiles::print_tile_map(t.parameters, t.offsets, true);
    j["size_map"] = tiles::print_tile_map(t.parameters, t.sizes);
    j["stride_map"] = tiles::print_tile_map(t.parameters, t.strides);
    j["constraints"] = t.constraints.to_string();
  } else {
    j["no_tile"] = e.derivation.reason;
  }
  return j;
}

int print(const TileOptions& options, const hlo::Module& module, const Found& f, analysis::ModuleAnalysis& analysis,
          const cost::Device& device, std::ostream& out, std::ostream& err) {
  const tiles::TiledFusion fusion = tiles::tile_instruction(analysis, f.computation, f.instruction);
  if (options.k_tile > 0 && fusion.k_extent <= 1) {
    err << fmt::format(
        "hlo-index: error: --k-tile: %{} has no contracted dimension (no dot or convolution reads "
        "through it)\n",
        fusion.name);
    return k_exit_input_error;
  }
  if (options.k_tile > fusion.k_extent) {
    err << fmt::format("hlo-index: error: --k-tile {} is outside [1, {}] (%{}'s contracted extent K)\n", options.k_tile,
                       fusion.k_extent, fusion.name);
    return k_exit_input_error;
  }
  const hlo::Instruction& instr = module.computations[f.computation].instructions[f.instruction];
  const std::size_t line = analysis::source_position(module, instr).line;
  std::vector<std::string> params;
  for (std::size_t i = 0; i < fusion.root_dims.size(); ++i) params.push_back(fmt::format("d{}", i));
  std::optional<tiles::ConcreteTiling> concrete;
  std::optional<tiles::TileSearch> search;
  if (fusion.undefined_reason.empty()) {
    if (!options.tile.empty()) {
      const tiles::KStepTiles k = tiles::k_step_tiles(fusion, options.k_tile > 0 ? options.k_tile : fusion.k_extent);
      concrete = tiles::concrete_tiling(fusion, options.tile, true, &k);
    } else {
      cost::CostModel costs(analysis, device);
      search = tiles::search_tilings(fusion, costs, options.top);
    }
  }
  if (options.format == "json") {
    nlohmann::json j;
    j["module"] = std::string(module.name);
    j["instruction"] = fusion.name;
    j["line"] = line;
    j["root_dims"] = fusion.root_dims;
    j["k_extent"] = fusion.k_extent;
    if (!fusion.undefined_reason.empty()) j["undefined"] = fusion.undefined_reason;
    j["constraints"] = fusion.constraints.to_string();
    j["xla_tiles_all"] = fusion.all_tiled;
    j["notes"] = fusion.notes;
    j["entries"] = nlohmann::json::array();
    for (std::size_t k = 0; k < fusion.entries.size(); ++k) {
      nlohmann::json e = entry_json(fusion, fusion.entries[k]);
      if (concrete) {
        const tiles::ConcreteEntry& c = concrete->entries[k];
        e["tile"] = {{"offsets", c.offsets},
                     {"sizes", c.sizes},
                     {"strides", c.strides},
                     {"whole", c.whole},
                     {"xla_constraints_hold", c.symbolic},
                     {"reads", c.reads},
                     {"distinct", c.distinct},
                     {"rereads", c.rereads()},
                     {"box_elements", c.box_elements},
                     {"covers", c.covers},
                     {"exact", c.exact},
                     {"counts_exact", c.counts_exact},
                     {"note", c.note}};
        if (concrete->k_tile > 0)
          e["tile"].update({{"step_sizes", c.step_sizes}, {"step_strides", c.step_strides}, {"steps", c.steps}});
      }
      j["entries"].push_back(std::move(e));
    }
    if (concrete)
      j["tiling"] = {{"sizes", concrete->sizes},     {"tiles_per_dimension", concrete->tiles_per_dimension},
                     {"tiles", concrete->tiles},     {"k_tile", concrete->k_tile},
                     {"k_steps", concrete->k_steps}, {"constraints_hold", concrete->constraints_hold}};
    if (search) {
      nlohmann::json s;
      s["device"] = device.name;
      s["candidates"] = search->candidates;
      s["xla_valid"] = search->xla_valid;
      s["checked_exactly"] = search->checked_exactly;
      s["accepted_exactly"] = search->accepted_exactly;
      s["best"] = nlohmann::json::array();
      for (const tiles::TilingEstimate& e : search->best)
        s["best"].push_back({{"sizes", e.sizes},
                             {"k_tile", e.k_tile},
                             {"k_steps", e.k_steps},
                             {"tiles", e.tiles},
                             {"waves", e.waves},
                             {"rounds", e.rounds},
                             {"seconds", e.seconds},
                             {"latency_seconds", e.latency_seconds},
                             {"bytes_read", e.bytes_read},
                             {"bytes_written", e.bytes_written},
                             {"flops", e.flops},
                             {"beyond_xla", e.exact_check},
                             {"why", e.why}});
      if (!search->note.empty()) s["note"] = search->note;
      j["search"] = std::move(s);
    }
    out << j.dump(2) << "\n";
    return k_exit_ok;
  }
  out << fmt::format("%{} (module {}, line {}): root tile sizes {} over root dimensions {}\n", fusion.name, module.name,
                     line, fmt::format("({})", fmt::join(params, ", ")), tuple_text(fusion.root_dims));
  if (!fusion.undefined_reason.empty()) {
    out << "no maps: " << fusion.undefined_reason << "\n";
    return k_exit_ok;
  }
  out << "constraints of all tiles: " << fusion.constraints.to_string() << "\n";
  if (!fusion.all_tiled) out << "XLA would not tile this fusion: an instruction has no tile (below)\n";
  for (const std::string& n : fusion.notes) out << "note: " << n << "\n";
  if (concrete) {
    out << concrete_text(fusion, *concrete);
    return k_exit_ok;
  }
  for (const tiles::TiledEntry& e : fusion.entries) out << entry_title(fusion, e) << "\n" << symbolic_text(e);
  if (search) out << search_text(fusion, *search, device);
  return k_exit_ok;
}

constexpr const char* k_tile_help =
    "Tiles one fusion (or any instruction) as XLA's tiling analysis does (SymbolicTile, SymbolicTileAnalysis),\n"
    "from the exact maps. The root's tile has sizes d0, d1, ... (one per root dimension); each instruction\n"
    "the root reads, through each map from the root to it, gets a tile in XLA's notation:\n"
    "  offset_map  its first element for the root tile at offset 0 (runtime offsets as symbols s0, ...)\n"
    "  size_map    its sizes, stride_map its strides, as functions of d0, d1, ...\n"
    "  constraints the sizes under which it is a strided box (a disjunction of conjunctions)\n"
    "or 'no tile' with the rule that fails (a reshape that mixes dimensions, a non-affine index).\n"
    "--tile 16,128 evaluates one tiling: every instruction's tile (tile 0's offsets, sizes, strides), the\n"
    "number of tiles, whether XLA's constraints hold, and, counted exactly from the maps, the elements all\n"
    "tiles read, how many neighbouring tiles read again, and whether the printed box is exactly the reads\n"
    "(a dimension whose box would miss elements is taken whole). Without --tile, a search: per root\n"
    "dimension the powers of two below it and the dimension itself (XLA's candidates), those satisfying the\n"
    "constraints with every tile within 2^20 elements, priced on --device: the bytes all tiles bring from\n"
    "memory (re-reads included), the FLOPs of every instruction over its tiles, the tiles against the\n"
    "device's cores (the last wave's idle cores); the --top fastest with their estimated time and why. A few\n"
    "sizes XLA rejects are decided exactly ('beyond XLA' when every tile reads a strided box). Reduced\n"
    "dimensions are read whole by each tile; a dot's or convolution's contracted dimensions (K) get a step\n"
    "size of their own, as XLA tiles a dot's contracting dimension: the search tries the powers of two\n"
    "below K and K itself, each tile looping over the steps (--k-tile with --tile sets it). In a\n"
    "multi-output fusion the root tile tiles every output of output 0's dimensions (what several reach\n"
    "through one map is one tile); the others are priced as written once, untiled.\n\n"
    "Examples:\n"
    "  hlo-index tile model.hlo --instruction fusion.3\n"
    "  hlo-index tile model.hlo --instruction fusion.3 --tile 16,128 --format json\n"
    "  hlo-index tile model.hlo --instruction gemm_fusion --tile 64,128 --k-tile 32";

}  // namespace

void add_tile_options(CLI::App& cmd, TileOptions& options) {
  cmd.add_option("files", options.files, "HLO text files ('-' reads standard input) or directories")->required();
  cmd.add_option("--instruction", options.instruction, "The instruction to tile (a fusion, or any op)");
  cmd.add_option("--match", options.match,
                 "Or: the one instruction whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--tile", options.tile, "Root tile sizes, one per root dimension (default: search)")
      ->delimiter(',')
      ->type_name("N,N,...");
  cmd.add_option("--k-tile", options.k_tile,
                 "With --tile: the K step over a dot's or convolution's contracted dimensions (default: all of K)")
      ->type_name("N");
  cmd.add_option("--top", options.top, "Tilings the search prints")->capture_default_str();
  cmd.add_option("--format", options.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  add_device_options(cmd, options.device);
  add_analysis_run_options(cmd, options);
}

void setup_tile_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<TileOptions>();
  CLI::App* cmd =
      app.add_subcommand("tile", "Tiles of a fusion's instructions, a tiling counted exactly, the best tilings");
  cmd->footer(k_tile_help);
  add_tile_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_tile_command(*options, std::cout, std::cerr); });
}

std::string best_tilings_text(const hlo::Module& module, const std::vector<tiles::BestTiling>& tilings,
                              const cost::Device& device) {
  std::string out =
      fmt::format("best tilings on {} (hlo-index tile FILE --instruction NAME for the tiles):\n", device.name);
  for (const tiles::BestTiling& t : tilings) {
    const std::string_view name = module.computations[t.computation].instructions[t.instruction].name;
    if (!t.best) {
      out += fmt::format("  %{}: no tiling: {}\n", name, t.note);
      continue;
    }
    out += fmt::format("  %{}: tile {}{}: {}{}\n", name, tuple_text(t.best->sizes), k_text(t.best->k_tile, t.k_extent),
                       cost::human_seconds(t.best->seconds),
                       t.best->exact_check ? " (beyond XLA: sizes its constraints reject, decided exactly)"
                       : t.xla_has_tiling  ? ""
                                           : " (XLA has no tiling)");
  }
  return out;
}

nlohmann::ordered_json best_tiling_json(const tiles::BestTiling& tiling) {
  if (!tiling.best) return nlohmann::ordered_json{{"sizes", nullptr}, {"note", tiling.note}};
  return nlohmann::ordered_json{{"sizes", tiling.best->sizes},
                                {"k_tile", tiling.best->k_tile},
                                {"seconds", tiling.best->seconds},
                                {"tiles", tiling.best->tiles},
                                {"waves", tiling.best->waves},
                                {"beyond_xla", tiling.best->exact_check},
                                {"xla_has_tiling", tiling.xla_has_tiling}};
}

int run_tile_command(const TileOptions& options, std::ostream& out, std::ostream& err) {
  const std::string name = analysis::without_sigil(options.instruction);
  if (name.empty() && options.match.empty()) {
    err << "hlo-index: error: tile needs --instruction NAME (or --match REGEX selecting one instruction)\n";
    return k_exit_input_error;
  }
  const std::optional<ChosenDevice> device = choose_device(options.device, err);
  if (!device) return k_exit_input_error;
  std::optional<analysis::InstructionFilter> filter =
      analysis::module_and_match_filter(options.modules, options.match, err);
  if (!filter) return k_exit_input_error;
  const std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(options.files, options.allow_truncated, *filter, err);
  if (!modules) return k_exit_input_error;
  const std::string asked = name.empty() ? fmt::format("--match '{}'", options.match) : fmt::format("'{}'", name);
  const analysis::OneInstruction one = analysis::find_one_instruction(*modules, *filter, name, asked);
  if (!one.found) {
    err << "hlo-index: error: " << one.error << "\n";
    return k_exit_input_error;
  }
  const Found& chosen = *one.found;
  const hlo::Module& module = (*modules)[chosen.module];
  const hlo::Instruction& instr = module.computations[chosen.computation].instructions[chosen.instruction];
  const hlo::Shape& shape = module.shape_of(instr);
  const hlo::Shape* root = shape.is_tuple && !shape.elements.empty() ? &shape.elements[0] : &shape;
  if (options.k_tile != 0 && (options.tile.empty() || options.k_tile < 0)) {
    err << (options.k_tile < 0 ? "hlo-index: error: --k-tile must be at least 1\n"
                               : "hlo-index: error: --k-tile needs --tile (the search tries every K step)\n");
    return k_exit_input_error;
  }
  if (!options.tile.empty()) {
    if (root->is_tuple || options.tile.size() != root->dims.size()) {
      err << fmt::format("hlo-index: error: --tile has {} size{}; %{}'s root {} has {} dimension{}\n",
                         options.tile.size(), options.tile.size() == 1 ? "" : "s", instr.name, hlo::to_string(*root),
                         root->dims.size(), root->dims.size() == 1 ? "" : "s");
      return k_exit_input_error;
    }
    for (std::size_t i = 0; i < options.tile.size(); ++i) {
      if (options.tile[i] < 1 || options.tile[i] > std::max<std::int64_t>(root->dims[i], 1)) {
        err << fmt::format("hlo-index: error: --tile size {} of dimension {} is outside [1, {}]\n", options.tile[i], i,
                           std::max<std::int64_t>(root->dims[i], 1));
        return k_exit_input_error;
      }
    }
  }
  ScopedAnalysisLimits limits(options.isl_max_operations, options.time_limit_per_instruction);
  indexing::AnalysisOptions analysis_options;
  analysis_options.time_limit_per_instruction = options.time_limit_per_instruction;
  analysis::ModuleAnalysis analysis(module, analysis_options);
  return print(options, module, chosen, analysis, cost::device_for(module, device->get()), out, err);
}

}  // namespace hlo_index::app

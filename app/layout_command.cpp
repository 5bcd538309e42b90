#include "app/layout_command.hpp"

#include <fmt/format.h>

#include <cctype>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "app/exit_codes.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/maps/layout_maps.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/maps/map_printer.hpp"
#include "layout/physical_layout.hpp"
#include "parser/parse.hpp"

namespace hlo_index::app {
namespace {

using json = nlohmann::ordered_json;
using indexing::IndexingMap;
using layout::PhysicalLayout;

// An array shape to report, with where it came from.
struct Target {
  std::string label;  // "" for a lone array; "{1,0}" for a tuple element
  hlo::Shape shape;
  const parser::SourceFile* source = nullptr;  // FILE: for diagnostics at the instruction
  const char* where = nullptr;
};

std::string join(const std::vector<std::int64_t>& values, std::string_view separator = ",") {
  return fmt::format("{}", fmt::join(values, separator));
}

// The seed documents write F32[3,5]; HLO text writes f32[3,5].
std::string lowercase_type(std::string text) {
  for (char& c : text) {
    if (c == '[' || c == '(') break;
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return text;
}

std::optional<hlo::Shape> parse_shape_argument(const std::string& text, std::ostream& err) {
  std::string error;
  std::string normalised = lowercase_type(text);
  if (auto shape = parser::parse_shape(normalised, &error)) return shape;
  // parse_shape reports "COLUMN: message".
  std::size_t column = std::strtoul(error.c_str(), nullptr, 10);
  std::string message = error.substr(std::min(error.size(), error.find(": ") + 2));
  parser::SourceFile source("<shape>", text);
  parser::DiagnosticEngine diagnostics;
  diagnostics.error_at(source, source.text().data() + std::min(text.size(), column == 0 ? 0 : column - 1), message);
  err << parser::render(diagnostics);
  return std::nullopt;
}

// Array leaves of a (possibly nested) tuple, with their tuple indices.
void collect_arrays(const hlo::Shape& shape, std::vector<std::int64_t>& path, std::vector<Target>& out,
                    const Target& base) {
  if (!shape.is_tuple) {
    // Not a copy of `base`: its shape is the whole tuple (a copy per leaf is quadratic in the width).
    out.push_back(Target{path.empty() ? "" : "{" + join(path) + "}", shape, base.source, base.where});
    return;
  }
  for (std::size_t i = 0; i < shape.elements.size(); ++i) {
    path.push_back(static_cast<std::int64_t>(i));
    collect_arrays(shape.elements[i], path, out, base);
    path.pop_back();
  }
}

bool select_tuple_element(const std::vector<std::int64_t>& index, hlo::Shape& shape, std::ostream& err) {
  for (std::int64_t i : index) {
    if (!shape.is_tuple || i < 0 || static_cast<std::size_t>(i) >= shape.elements.size()) {
      err << fmt::format("hlo-index layout: error: --tuple-index {} does not name an element of {}\n", join(index),
                         hlo::to_string(shape));
      return false;
    }
    hlo::Shape element = shape.elements[static_cast<std::size_t>(i)];
    shape = std::move(element);
  }
  return true;
}

// The shapes document's padded_dimensions (one size per logical dimension)
// are a single tile in physical order that covers the whole padded array.
bool apply_padded_dims(const std::vector<std::int64_t>& padded, hlo::Shape& shape, std::ostream& err) {
  if (padded.empty()) return true;
  auto fail = [&](const std::string& message) {
    err << "hlo-index layout: error: --padded-dims: " << message << "\n";
    return false;
  };
  if (padded.size() != shape.rank())
    return fail(fmt::format("{} sizes given but the shape has rank {}", padded.size(), shape.rank()));
  if (shape.layout && !shape.layout->tiles.empty()) return fail("the shape already has tiles");
  for (std::size_t d = 0; d < padded.size(); ++d)
    if (padded[d] < shape.dims[d])
      return fail(fmt::format("dimension {} of size {} cannot be padded to {}", d, shape.dims[d], padded[d]));
  if (!shape.layout) {
    shape.layout.emplace();
    for (std::size_t i = shape.rank(); i-- > 0;) shape.layout->minor_to_major.push_back(static_cast<std::int64_t>(i));
  }
  hlo::Tile tile;
  const auto& m2m = shape.layout->minor_to_major;
  if (m2m.size() != shape.rank()) return fail("the layout does not match the rank");
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) tile.dims.push_back(padded[static_cast<std::size_t>(*it)]);
  shape.layout->tiles.push_back(std::move(tile));
  return true;
}

std::optional<std::vector<std::int64_t>> parse_index(const std::string& text, std::size_t rank, std::ostream& err) {
  std::vector<std::int64_t> index;
  std::string_view rest = text;
  while (!rest.empty() && rank > 0) {
    std::size_t comma = rest.find(',');
    std::string item(rest.substr(0, comma));
    char* end = nullptr;
    long long value = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') {
      err << fmt::format("hlo-index layout: error: --index '{}' is not a list of integers\n", text);
      return std::nullopt;
    }
    index.push_back(value);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  if (index.size() != rank) {
    err << fmt::format("hlo-index layout: error: --index '{}' has {} entries but the shape has rank {}\n", text,
                       index.size(), rank);
    return std::nullopt;
  }
  return index;
}

// Allocated slots per logical element (1 without padding); 0 for an empty array.
double padding_ratio(const PhysicalLayout& l) {
  return l.logical_elements() == 0
             ? 0.0
             : static_cast<double>(l.allocated_elements()) / static_cast<double>(l.logical_elements());
}

std::string words_of(const PhysicalLayout& l, const hlo::Shape& shape) {
  std::string text;
  text += fmt::format("  element type: {}, {} bit{} per element{}\n", hlo::element_type_name(shape.type),
                      l.element_bits(), l.element_bits() == 1 ? "" : "s", l.element_bits() < 8 ? " (packed)" : "");
  for (std::size_t d = 0; d < shape.rank(); ++d)
    if (shape.dim_kinds[d] == hlo::DimKind::kBounded)
      text += fmt::format("  dimension {} is dynamic: laid out at its bound {}\n", d, shape.dims[d]);
  std::vector<std::string> order;
  for (std::size_t d : l.physical_order()) order.push_back(fmt::format("d{} ({})", d, l.logical_dims()[d]));
  if (shape.rank() > 0)
    text += fmt::format("  minor_to_major {{{}}}{}: physical order, major to minor: {}\n", join(l.minor_to_major()),
                        shape.layout ? "" : " (default)", fmt::join(order, ", "));
  for (const layout::LayoutStep& step : l.steps()) {
    std::string level = fmt::format("  tile level {}: ", step.level + 1);
    switch (step.kind) {
      case layout::LayoutStep::Kind::kPrependUnits:
        text += level + fmt::format("the tile has more dimensions than [{}]: {} leading unit dimension{} added\n",
                                    join(step.sizes), step.count, step.count == 1 ? "" : "s");
        break;
      case layout::LayoutStep::Kind::kCombine:
        text += level + fmt::format("'*' combines dimensions {} and {} of [{}] into one of size {}\n", step.position,
                                    step.position + 1, join(step.sizes),
                                    step.sizes[step.position] * step.sizes[step.position + 1]);
        break;
      case layout::LayoutStep::Kind::kTile: {
        std::size_t base = step.sizes.size() - step.tile.size();
        std::vector<std::int64_t> grid(step.sizes.begin(), step.sizes.begin() + static_cast<long>(base));
        for (std::size_t i = 0; i < step.tile.size(); ++i)
          grid.push_back((step.sizes[base + i] + step.tile[i] - 1) / step.tile[i]);
        text += level + fmt::format("tiles ({}) over the {} minor-most dimension{} of [{}]: tile grid [{}]\n",
                                    join(step.tile), step.tile.size(), step.tile.size() == 1 ? "" : "s",
                                    join(step.sizes), join(grid));
        break;
      }
    }
  }
  text += fmt::format("  physical shape: [{}] (row-major; the offset is the linear index in it)\n",
                      join(l.physical_dims()));
  if (l.tail_alignment() > 1)
    text += fmt::format("  tail padding: the element count is rounded up to a multiple of {}\n", l.tail_alignment());
  std::int64_t padding = l.allocated_elements() - l.logical_elements();
  text += fmt::format(
      "  elements: {} logical, {} allocated, {} padding ({:.1f}% of the buffer; padding ratio {:.3f})\n",
      l.logical_elements(), l.allocated_elements(), padding,
      l.allocated_elements() == 0 ? 0.0
                                  : 100.0 * static_cast<double>(padding) / static_cast<double>(l.allocated_elements()),
      padding_ratio(l));
  text += fmt::format("  bytes: {} allocated, memory space {}\n", l.allocated_bytes(), l.memory_space());
  return text;
}

std::vector<std::int64_t> evaluate_results(const IndexingMap& map, std::span<const std::int64_t> dims) {
  std::vector<std::int64_t> values;
  for (const auto& e : map.results()) values.push_back(simplify::evaluate(e, {dims, {}, {}}));
  return values;
}

// Whether the point is in the map's domain (intervals and constraints).
bool holds(const IndexingMap& map, std::span<const std::int64_t> dims) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (!map.domain().bounds({simplify::VarKind::kDim, static_cast<std::uint32_t>(i)}).contains(dims[i])) return false;
  for (const auto& c : map.domain().constraints())
    if (!c.interval.contains(simplify::evaluate(c.expr, {dims, {}, {}}))) return false;
  return true;
}

// A layout with its two maps and the answers to --index and --offset.
struct LayoutAnswers {
  PhysicalLayout layout;
  IndexingMap to_offset, to_logical;
  struct IndexAnswer {
    std::vector<std::int64_t> index, physical;
    std::int64_t offset = 0;
  };
  struct OffsetAnswer {
    std::int64_t offset = 0;
    std::optional<std::vector<std::int64_t>> index;  // none: padding
  };
  std::vector<IndexAnswer> indices;
  std::vector<OffsetAnswer> offsets;
};

std::optional<PhysicalLayout> layout_of(const Target& target, std::ostream& err) {
  try {
    return PhysicalLayout::of(target.shape);
  } catch (const layout::LayoutError& e) {
    std::string message = fmt::format("cannot lay out {}: {}", hlo::to_string(target.shape), e.what());
    if (target.source && target.where) {
      parser::DiagnosticEngine diagnostics;
      diagnostics.error_at(*target.source, target.where, message);
      err << parser::render(diagnostics);
    } else {
      err << "hlo-index layout: error: " << message << "\n";
    }
    return std::nullopt;
  }
}

// The --index arguments, checked against the layout; errors reported.
std::optional<std::vector<std::vector<std::int64_t>>> checked_indices(const LayoutOptions& options,
                                                                      const PhysicalLayout& l, std::ostream& err) {
  std::vector<std::vector<std::int64_t>> indices;
  for (const std::string& index_text : options.indices) {
    auto index = parse_index(index_text, l.logical_dims().size(), err);
    if (!index) return std::nullopt;
    for (std::size_t d = 0; d < index->size(); ++d)
      if ((*index)[d] < 0 || (*index)[d] >= l.logical_dims()[d]) {
        err << fmt::format("hlo-index layout: error: --index {}: entry {} is outside [0, {}]\n", index_text, d,
                           l.logical_dims()[d] - 1);
        return std::nullopt;
      }
    indices.push_back(std::move(*index));
  }
  return indices;
}

bool check_offsets(const LayoutOptions& options, const PhysicalLayout& l, std::ostream& err) {
  for (std::int64_t offset : options.offsets)
    if (offset < 0 || offset >= l.allocated_elements()) {
      err << fmt::format("hlo-index layout: error: --offset {} is outside the buffer [0, {}]\n", offset,
                         l.allocated_elements() - 1);
      return false;
    }
  return true;
}

// Queries are checked before anything is printed; nullopt on an input error (reported).
std::optional<LayoutAnswers> answer(const Target& target, const LayoutOptions& options, std::ostream& err) {
  std::optional<PhysicalLayout> l = layout_of(target, err);
  if (!l) return std::nullopt;
  auto indices = checked_indices(options, *l, err);
  if (!indices || !check_offsets(options, *l, err)) return std::nullopt;
  LayoutAnswers a{*l, indexing::logical_to_physical(*l), indexing::physical_to_logical(*l), {}, {}};
  for (const auto& index : *indices) {
    LayoutAnswers::IndexAnswer q{index, {}, evaluate_results(a.to_offset, index)[0]};
    for (const auto& e : l->physical_index(indexing::build::dims(index.size())))
      q.physical.push_back(simplify::evaluate(e, {index, {}, {}}));
    a.indices.push_back(std::move(q));
  }
  for (std::int64_t offset : options.offsets) {
    const std::int64_t point[] = {offset};
    LayoutAnswers::OffsetAnswer q{offset, std::nullopt};
    if (holds(a.to_logical, point)) q.index = evaluate_results(a.to_logical, point);
    a.offsets.push_back(std::move(q));
  }
  return a;
}

void render_text(const Target& target, const LayoutAnswers& a, const LayoutOptions& options, std::ostream& out) {
  out << fmt::format("shape {}{}\n", target.label.empty() ? "" : "element " + target.label + ": ",
                     hlo::to_string(target.shape));
  out << words_of(a.layout, target.shape);
  indexing::MapPrintOptions print;
  print.layout = options.one_line ? indexing::MapLayout::kOneLine : indexing::MapLayout::kMultiLine;
  print.indent = "  ";
  out << "logical index -> physical offset:\n"
      << (options.one_line ? "  " : "") << indexing::print_map(a.to_offset, print) << "\n";
  out << "physical offset -> logical index (padding slots are outside the domain):\n"
      << (options.one_line ? "  " : "") << indexing::print_map(a.to_logical, print) << "\n";
  for (const auto& q : a.indices) {
    out << fmt::format("element ({}): physical index ({}), offset {}, bit offset {}\n", join(q.index, ", "),
                       join(q.physical, ", "), q.offset, q.offset * a.layout.element_bits());
  }
  for (const auto& q : a.offsets) {
    out << (q.index ? fmt::format("offset {}: element ({})\n", q.offset, join(*q.index, ", "))
                    : fmt::format("offset {}: padding\n", q.offset));
  }
}

json layout_json(const Target& target, const PhysicalLayout& l) {
  json j;
  if (!target.label.empty()) j["tuple_index"] = target.label;
  j["shape"] = hlo::to_string(target.shape);
  j["element_type"] = std::string(hlo::element_type_name(target.shape.type));
  j["element_bits"] = l.element_bits();
  j["minor_to_major"] = l.minor_to_major();
  json tiles = json::array();
  for (const hlo::Tile& t : l.tiles()) tiles.push_back(t.dims);
  j["tiles"] = tiles;
  j["physical_dims"] = l.physical_dims();
  j["memory_space"] = l.memory_space();
  j["logical_elements"] = l.logical_elements();
  j["allocated_elements"] = l.allocated_elements();
  j["padding_elements"] = l.allocated_elements() - l.logical_elements();
  j["padding_ratio"] = padding_ratio(l);
  j["allocated_bytes"] = l.allocated_bytes();
  return j;
}

json render_json(const Target& target, const LayoutAnswers& a) {
  json j = layout_json(target, a.layout);
  j["logical_to_physical"] = indexing::print_map(a.to_offset);
  j["physical_to_logical"] = indexing::print_map(a.to_logical);
  json queries = json::array();
  for (const auto& q : a.indices)
    queries.push_back(json{{"index", q.index}, {"physical_index", q.physical}, {"offset", q.offset}});
  for (const auto& q : a.offsets) {
    json o{{"offset", q.offset}, {"padding", !q.index}};
    if (q.index) o["index"] = *q.index;
    queries.push_back(std::move(o));
  }
  if (!queries.empty()) j["queries"] = std::move(queries);
  return j;
}

}  // namespace

void setup_layout_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LayoutOptions>();
  CLI::App* cmd = app.add_subcommand("layout", "Where the elements of an array live in memory: offset maps, sizes");
  cmd->footer(
      "TARGET is a shape with its layout, as HLO text writes it, e.g. 'bf16[128,256]{1,0:T(8,128)(2,1)}', or an HLO\n"
      "file with --instruction NAME (the instruction's result shape).\n\n"
      "The layout is read as XLA's documents define it: minor_to_major gives the physical order; each tile T(...)\n"
      "splits the minor-most dimensions into (tile index, index in the tile), repeated tiles apply to the result\n"
      "of the previous level, '*' (or -1) combines a dimension with the next more-minor one, a tile with more\n"
      "dimensions than the array adds leading dimensions of size 1, E(n) sets the element width (sub-byte elements\n"
      "are packed), L(n) rounds the element count up, dynamic dimensions (<=N) use their bound. The offset is in\n"
      "elements; the buffer is padded to whole tiles.\n\n"
      "Printed: the layout in words, the map from logical index to offset and its inverse (padding slots are\n"
      "outside the inverse's domain), element and byte counts. Bad shapes and layouts exit with code 2.\n\n"
      "Examples:\n"
      "  hlo-index layout 'f32[3,5]{1,0:T(2,2)}' --index 2,3          (offset 17)\n"
      "  hlo-index layout 'bf16[16,256]{1,0:T(8,128)(2,1)}' --offset 3077\n"
      "  hlo-index layout 'f32[2,3]{0,1}' --padded-dims 3,5\n"
      "  hlo-index layout module.hlo --instruction fusion.3 --format json");
  cmd->add_option("target", options->target,
                  "A shape such as 'f32[3,5]{1,0:T(2,2)}', or an HLO file ('-': stdin) or a directory of them (its "
                  ".hlo, .txt and .hlotxt files, at any depth)")
      ->required();
  cmd->add_option("--instruction", options->instruction, "FILE: the instruction whose result shape to lay out");
  cmd->add_option("--computation", options->computation, "FILE: look for the instruction in this computation only");
  cmd->add_option("--module", options->modules, "FILE: look for the instruction in this module only (repeatable)");
  cmd->add_option("--match", options->match,
                  "FILE: the one instruction whose name contains a match of this ECMAScript regex (instead of "
                  "--instruction)")
      ->type_name("REGEX");
  cmd->add_option("--tuple-index", options->tuple_index,
                  "For a tuple shape: the element to lay out, e.g. 1 or 1,0 (default: every array element)")
      ->delimiter(',');
  cmd->add_option("--padded-dims", options->padded_dims,
                  "Pad each logical dimension to this size (the shapes document's padded_dimensions), e.g. 3,5")
      ->delimiter(',');
  cmd->add_option("--index", options->indices, "Print the physical index and offset of this element, e.g. 2,3");
  cmd->add_option("--offset", options->offsets, "Print the element stored at this offset (or that it is padding)");
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--one-line", options->one_line, "Print maps on one line");
  cmd->add_flag("--allow-truncated", options->allow_truncated,
                "FILE: accept a dump cut off inside its last computation (a warning instead of an error)");
  cmd->callback([options, &exit_code] { exit_code = run_layout_command(*options, std::cout, std::cerr); });
}

namespace {

// The instructions named --instruction, or matching --match (in --module and --computation), of the modules.
std::vector<Target> instruction_targets(const LayoutOptions& options, const analysis::InstructionFilter& filter,
                                        const std::vector<hlo::Module>& modules,
                                        std::vector<std::string>& computations) {
  std::vector<Target> targets;
  const std::string computation = analysis::without_sigil(options.computation);
  const std::string instruction = analysis::without_sigil(options.instruction);
  for (const hlo::Module& m : modules) {
    if (!filter.accepts_module(m)) continue;
    for (const hlo::Computation& c : m.computations) {
      if (!computation.empty() && !analysis::name_matches(computation, c.name)) continue;
      for (const hlo::Instruction& i : c.instructions)
        if (options.instruction.empty() ? filter.accepts_instruction(m, c, i)
                                        : analysis::name_matches(instruction, i.name)) {
          // A plain name differs by computation only; a --match or a glob also by name.
          const bool plain = !options.instruction.empty() && instruction.find_first_of("*?[") == std::string::npos;
          computations.emplace_back(plain ? std::string(c.name) : fmt::format("{} ({})", c.name, i.name));
          const char* where = m.source->text().data() <= i.name.data() &&
                                      i.name.data() < m.source->text().data() + m.source->text().size()
                                  ? i.name.data()
                                  : nullptr;
          targets.push_back({"", m.shape_of(i), m.source.get(), where});
        }
    }
  }
  return targets;
}

// TARGET as an HLO file: the one instruction named; errors reported.
std::optional<Target> file_target(const LayoutOptions& options, std::vector<hlo::Module>& modules, std::ostream& err) {
  if (options.instruction.empty() && options.match.empty()) {
    err << fmt::format(
        "hlo-index layout: error: '{}' is not a shape; for an HLO file, name the instruction with "
        "--instruction NAME\n",
        options.target);
    return std::nullopt;
  }
  if (!options.instruction.empty() && !options.match.empty()) {
    err << "hlo-index layout: error: --instruction and --match both name the instruction; give one of them\n";
    return std::nullopt;
  }
  const std::optional<analysis::InstructionFilter> filter =
      analysis::module_and_match_filter(options.modules, options.match, err);
  if (!filter) return std::nullopt;
  analysis::LoadedFile loaded = analysis::load_file(options.target, options.allow_truncated, err);
  if (loaded.errors != 0) return std::nullopt;
  modules = std::move(loaded.modules);
  if (!analysis::check_module_names(*filter, modules, err)) return std::nullopt;
  std::vector<std::string> found;
  std::vector<Target> targets = instruction_targets(options, *filter, modules, found);
  // "matches --match 'x'" for one instruction, "match ..." for several; likewise a glob.
  const std::string instruction = analysis::without_sigil(options.instruction);
  auto what = [&](bool one) {
    if (options.instruction.empty()) return fmt::format("{} --match '{}'", one ? "matches" : "match", options.match);
    if (instruction.find_first_of("*?[") != std::string::npos)
      return fmt::format("{} '{}'", one ? "matches" : "match", instruction);
    return fmt::format("named '{}'", instruction);
  };
  if (targets.empty()) {
    err << fmt::format("hlo-index layout: error: no instruction {}{}\n", what(true),
                       options.computation.empty() ? "" : " in computation " + options.computation);
    return std::nullopt;
  }
  if (targets.size() > 1) {
    const std::size_t shown = std::min<std::size_t>(found.size(), 10);
    err << fmt::format(
        "hlo-index layout: error: {} instructions {}, in computations {}{}; pick one with {}\n", targets.size(),
        what(false), fmt::join(found.begin(), found.begin() + static_cast<long>(shown), ", "),
        shown < found.size() ? ", ..." : "",
        options.instruction.empty() ? "a narrower --match, --computation or --module" : "--computation or --module");
    return std::nullopt;
  }
  return targets[0];
}

std::optional<Target> shape_target(const LayoutOptions& options, std::ostream& err) {
  if (!options.instruction.empty() || !options.computation.empty() || !options.modules.empty() ||
      !options.match.empty()) {
    err << "hlo-index layout: error: --instruction, --match, --computation and --module need an HLO file, not a "
           "shape\n";
    return std::nullopt;
  }
  auto shape = parse_shape_argument(options.target, err);
  if (!shape) return std::nullopt;
  return Target{"", std::move(*shape)};
}

// The arrays to report: the target's, or its --tuple-index element's, leaves.
std::optional<std::vector<Target>> arrays_of(Target chosen, const LayoutOptions& options, std::ostream& err) {
  if (!select_tuple_element(options.tuple_index, chosen.shape, err)) return std::nullopt;
  std::vector<std::int64_t> path(options.tuple_index);
  std::vector<Target> arrays;
  collect_arrays(chosen.shape, path, arrays, chosen);
  if (arrays.size() != 1 && (!options.indices.empty() || !options.offsets.empty() || !options.padded_dims.empty())) {
    err << "hlo-index layout: error: --index, --offset and --padded-dims need one array; this is a tuple (pick an "
           "element with --tuple-index)\n";
    return std::nullopt;
  }
  if (arrays.size() == 1 && !apply_padded_dims(options.padded_dims, arrays[0].shape, err)) return std::nullopt;
  return arrays;
}

// Prints every array's report; false on an input error (reported).
bool report_arrays(const std::vector<Target>& arrays, const LayoutOptions& options, std::ostream& out,
                   std::ostream& err) {
  json j_arrays = json::array();
  const bool text = options.format == "text";
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    if (text && k > 0) out << "\n";
    try {
      const std::optional<LayoutAnswers> a = answer(arrays[k], options, err);
      if (!a) return false;
      if (text)
        render_text(arrays[k], *a, options, out);
      else
        j_arrays.push_back(render_json(arrays[k], *a));
    } catch (const simplify::ArithmeticOverflow& e) {
      err << "hlo-index layout: error: " << e.what() << "\n";
      return false;
    }
  }
  if (!text) out << json{{"arrays", std::move(j_arrays)}}.dump(2) << "\n";
  return true;
}

}  // namespace

int run_layout_command(const LayoutOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<hlo::Module> modules;  // keeps the sources of FILE targets alive
  const bool is_file = options.target == "-" || options.target.find('[') == std::string::npos;
  const std::optional<Target> target = is_file ? file_target(options, modules, err) : shape_target(options, err);
  if (!target) return k_exit_input_error;
  const std::optional<std::vector<Target>> arrays = arrays_of(*target, options, err);
  if (!arrays) return k_exit_input_error;
  return report_arrays(*arrays, options, out, err) ? k_exit_ok : k_exit_input_error;
}

}  // namespace hlo_index::app

#include "app/picture_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "app/svg_writer.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "indexing/verdicts/summary.hpp"

namespace hlo_index::app {

using analysis::AccessModel;
using analysis::GroupAccess;
using analysis::HeatAxis;
using analysis::HeatCell;
using analysis::HeatSlice;
using analysis::ReadHeatmap;

namespace {

constexpr int k_width = 760;
constexpr int k_margin = 20;
constexpr std::string_view k_unread = "#eeeeee";
constexpr TextStyle k_caption{11, false, "start", "#444"};
constexpr TextStyle k_heading{13, true, "start", "#222"};

// A sequential palette (light yellow to dark red), t in [0, 1].
std::string heat_colour(double t) {
  struct Rgb {
    double r, g, b;
  };
  static constexpr std::array<Rgb, 5> k_stops = {Rgb{255, 255, 204}, Rgb{254, 217, 118}, Rgb{253, 141, 60},
                                                 Rgb{227, 26, 28}, Rgb{128, 0, 38}};
  t = std::clamp(t, 0.0, 1.0) * static_cast<double>(k_stops.size() - 1);
  const auto k = std::min<std::size_t>(static_cast<std::size_t>(t), k_stops.size() - 2);
  const double f = t - static_cast<double>(k);
  auto mix = [&](double a, double b) { return static_cast<int>(std::lround(a + (b - a) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(k_stops[k].r, k_stops[k + 1].r), mix(k_stops[k].g, k_stops[k + 1].g),
                     mix(k_stops[k].b, k_stops[k + 1].b));
}

// 129, 2.5, 0.031: a count or a mean, short.
std::string number(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(value));
  if (value >= 100) return fmt::format("{:.0f}", value);
  if (value >= 1) return fmt::format("{:.1f}", value);
  return fmt::format("{:.3f}", value);
}

// `0–7` or `3`.
std::string index_range(std::int64_t first, std::int64_t last) {
  return first == last ? std::to_string(first) : fmt::format("{}\u2013{}", first, last);
}

std::string axis_text(const HeatAxis& a, std::string_view what) {
  if (!a.dim) return "";
  return fmt::format("{}: dim {} ({})", what, *a.dim, a.size);
}

// The element or block of elements a cell covers, as an index tuple.
std::string cell_place(const ReadHeatmap& h, const HeatSlice& slice, std::int64_t row, std::int64_t first_column,
                       std::int64_t last_column) {
  std::vector<std::string> parts;
  const std::size_t rank = h.dims.size();
  for (std::size_t k = 0; k + 2 < rank; ++k)
    parts.push_back(h.projected ? std::string("*") : std::to_string(slice.index[k]));
  if (h.rows.dim) parts.push_back(index_range(h.rows.first(row), h.rows.last(row)));
  if (h.columns.dim) parts.push_back(index_range(h.columns.first(first_column), h.columns.last(last_column)));
  return fmt::format("({})", fmt::join(parts, ", "));
}

std::string cell_title(const ReadHeatmap& h, const HeatSlice& slice, std::int64_t row, std::int64_t first,
                       std::int64_t last, const HeatCell& cell) {
  const std::int64_t cells = last - first + 1;
  const std::string where = cell_place(h, slice, row, first, last);
  std::string what;
  if (cell.reads == 0) {
    what = cell.may_read ? "not read with the runtime offsets drawn; read for other values" : "not read";
  } else if (cell.elements == 1) {
    what = cost::plural(cell.reads, "read");
  } else {
    what = fmt::format("{} of {} elements ({} per element)", cost::plural(cell.reads, "read"), cell.elements,
                       number(cell.mean()));
  }
  return cells == 1 ? fmt::format("{}: {}", where, what) : fmt::format("{} ({} cells), each: {}", where, cells, what);
}

bool same_cell(const HeatCell& a, const HeatCell& b) {
  return a.reads == b.reads && a.elements == b.elements && a.may_read == b.may_read;
}

// The caption lines: what the axes, cells and slices are, and what is drawn for runtime offsets.
std::vector<std::string> heat_caption(const ReadHeatmap& h) {
  std::vector<std::string> lines;
  const std::size_t rank = h.dims.size();
  std::string axes;
  if (rank == 0) {
    axes = "a scalar: one cell";
  } else if (rank == 1) {
    axes = fmt::format("a vector of {} elements, drawn as one row", h.columns.size);
  } else {
    axes = fmt::format("{}; {} (logical indices)", axis_text(h.rows, "rows"), axis_text(h.columns, "columns"));
  }
  const std::int64_t per_cell = h.rows.per_cell * h.columns.per_cell;
  const std::string binning = per_cell == 1 ? "one element per cell"
                                            : fmt::format("binned: {} x {} elements per cell (rows x columns)",
                                                          h.rows.per_cell, h.columns.per_cell);
  lines.push_back(fmt::format("{}; {} x {} cells, {}{}", axes, h.rows.cells, h.columns.cells, binning,
                              h.coarsened ? " (coarser than asked: finer cells would cost too many counts)" : ""));
  if (h.may_read_boxed)
    lines.emplace_back(
        "may read: the bounding box of where the runtime offsets can reach (a map of too many runtime "
        "variables to count cell by cell)");
  if (rank > 2) {
    std::vector<std::string> leading;
    for (std::size_t k = 0; k + 2 < rank; ++k) leading.push_back(std::to_string(h.dims[k]));
    const std::string dims = fmt::format("dims 0\u2013{} ({})", rank - 3, fmt::join(leading, " x "));
    if (h.projected) {
      lines.push_back(fmt::format("projected: reads summed over {}, {} slices in one picture", dims, h.leading_slices));
    } else if (static_cast<std::int64_t>(h.slices.size()) < h.leading_slices) {
      lines.push_back(
          fmt::format("a grid of slices over {}: the first {} of {} shown", dims, h.slices.size(), h.leading_slices));
    } else {
      lines.push_back(fmt::format("a grid of the {} slices over {}", h.leading_slices, dims));
    }
  }
  std::string colour = "colour: reads per element";
  if (per_cell > 1 || h.projected) colour += ", the mean over the elements a cell covers";
  lines.push_back(fmt::format("{}; {} in total through {}{}", colour, cost::plural(h.total_reads, "read"),
                              cost::plural(static_cast<std::int64_t>(h.maps), "map"),
                              h.exact ? "" : " (upper bounds: approximate maps)"));
  if (h.runtime_offsets)
    lines.emplace_back(
        "runtime offsets (dynamic-slice, gather): reads of one execution with every offset at its lowest feasible "
        "value; hatched: cells other values may read");
  if (h.replicas_merged) lines.emplace_back("all-gathered: the reads of every replica's copy drawn on one element");
  return lines;
}

// Lines of at most `width` characters, broken at blanks (a longer word stays whole).
std::vector<std::string> wrapped(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t columns = 0;  // of `line`, counting a UTF-8 character once
  auto length = [](std::string_view word) {
    return static_cast<std::size_t>(
        std::count_if(word.begin(), word.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view word(text.data() + at, end - at);
    if (!line.empty() && columns + 1 + length(word) > width) {
      lines.push_back(line);
      line.clear();
      columns = 0;
    }
    if (!line.empty()) {
      line += ' ';
      ++columns;
    }
    line.append(word);
    columns += length(word);
    at = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

int caption_block(SvgWriter& svg, int y, const std::vector<std::string>& lines) {
  for (const std::string& l : lines) {
    for (const std::string& part : wrapped(l, 118)) {
      svg.text(k_margin, y, part, k_caption);
      y += 15;
    }
  }
  return y;
}

struct Grid {
  int panels_per_row = 1, cell_width = 8, cell_height = 8, panel_width = 0, panel_height = 0;
};

Grid grid_of(const ReadHeatmap& h) {
  Grid g;
  const auto slices = static_cast<int>(h.slices.size());
  g.panels_per_row = std::clamp(slices, 1, 4);
  const int room = (k_width - 2 * k_margin - 40 - (g.panels_per_row - 1) * 16) / g.panels_per_row;
  const auto columns = static_cast<int>(std::max<std::int64_t>(1, h.columns.cells));
  const auto rows = static_cast<int>(std::max<std::int64_t>(1, h.rows.cells));
  g.cell_width = std::clamp(room / columns, 2, 24);
  g.cell_height = h.dims.size() < 2 ? 24 : std::clamp(std::min(g.cell_width, (slices > 4 ? 192 : 384) / rows), 2, 24);
  if (h.dims.size() >= 2) g.cell_width = g.cell_height = std::min(g.cell_width, g.cell_height);
  g.panel_width = columns * g.cell_width;
  g.panel_height = rows * g.cell_height;
  return g;
}

// One slice at (x, y): runs of equal cells as one rectangle each, with the run's tooltip.
void draw_slice(SvgWriter& svg, const ReadHeatmap& h, const HeatSlice& slice, const Grid& g, int x, int y,
                double most) {
  for (std::int64_t r = 0; r < h.rows.cells; ++r) {
    for (std::int64_t c = 0; c < h.columns.cells;) {
      const HeatCell& cell = slice.cells[static_cast<std::size_t>(r * h.columns.cells + c)];
      std::int64_t end = c + 1;
      while (end < h.columns.cells && same_cell(slice.cells[static_cast<std::size_t>(r * h.columns.cells + end)], cell))
        ++end;
      const std::string fill = cell.reads > 0  ? heat_colour(most > 0 ? cell.mean() / most : 0)
                               : cell.may_read ? std::string("url(#may-read)")
                                               : std::string(k_unread);
      svg.rect(x + static_cast<int>(c) * g.cell_width, y + static_cast<int>(r) * g.cell_height,
               static_cast<int>(end - c) * g.cell_width, g.cell_height, fill,
               cell_title(h, slice, r, c, end - 1, cell));
      c = end;
    }
  }
  svg.rect(x, y, g.panel_width, g.panel_height, "none", {}, R"(stroke="#999" stroke-width="1")");
}

std::string slice_label(const ReadHeatmap& h, const HeatSlice& slice) {
  if (h.dims.size() <= 2) return "";
  std::vector<std::string> parts;
  for (std::size_t k = 0; k + 2 < h.dims.size(); ++k)
    parts.push_back(h.projected ? std::string("*") : std::to_string(slice.index[k]));
  return fmt::format("[{}, :, :]", fmt::join(parts, ", "));
}

int draw_heatmap(SvgWriter& svg, const ReadHeatmap& h, int y) {
  svg.text(k_margin, y, "Which elements are read, and how often", k_heading);
  y += 18;
  if (!h.defined()) {
    svg.text(k_margin, y, fmt::format("no heat map: {}", h.undefined_reason), k_caption);
    return y + 20;
  }
  y = caption_block(svg, y, heat_caption(h));
  const Grid g = grid_of(h);
  const double most = h.max_mean();
  const int left = k_margin + 36;
  const bool labels = h.dims.size() > 2;
  y += 6;
  for (std::size_t s = 0; s < h.slices.size(); ++s) {
    const int column = static_cast<int>(s) % g.panels_per_row, row = static_cast<int>(s) / g.panels_per_row;
    const int x = left + column * (g.panel_width + 16);
    const int top = y + row * (g.panel_height + (labels ? 34 : 24)) + (labels ? 14 : 0);
    if (labels) svg.text(x, top - 4, slice_label(h, h.slices[s]), {10, false, "start", "#444"});
    draw_slice(svg, h, h.slices[s], g, x, top, most);
    // Index labels: the first and last row and column.
    const TextStyle tick{9, false, "end", "#666"};
    if (h.rows.dim) {
      svg.text(x - 3, top + 9, std::to_string(0), tick);
      svg.text(x - 3, top + g.panel_height, std::to_string(h.rows.size - 1), tick);
    }
    if (h.columns.dim) {
      svg.text(x, top + g.panel_height + 11, "0", {9, false, "start", "#666"});
      svg.text(x + g.panel_width, top + g.panel_height + 11, std::to_string(h.columns.size - 1), tick);
    }
  }
  const int rows_of_panels = (static_cast<int>(h.slices.size()) + g.panels_per_row - 1) / g.panels_per_row;
  y += rows_of_panels * (g.panel_height + (labels ? 34 : 24)) + 4;
  // The legend: the colour scale, unread, and hatched.
  const int bar = 200, steps = 50;
  svg.text(k_margin, y + 10, "reads per element", {10, false, "start", "#444"});
  const int bx = k_margin + 110;
  for (int k = 0; k < steps; ++k)
    svg.rect(bx + k * bar / steps, y, bar / steps + 1, 12, heat_colour(static_cast<double>(k) / (steps - 1)));
  svg.text(bx, y + 24, "0", {9, false, "start", "#666"});
  svg.text(bx + bar, y + 24, number(most), {9, false, "end", "#666"});
  svg.rect(bx + bar + 24, y, 12, 12, std::string(k_unread), {}, R"(stroke="#999" stroke-width="1")");
  svg.text(bx + bar + 40, y + 10, "not read", {10, false, "start", "#444"});
  if (h.runtime_offsets) {
    svg.rect(bx + bar + 100, y, 12, 12, "url(#may-read)", {}, R"(stroke="#999" stroke-width="1")");
    svg.text(bx + bar + 116, y + 10, "read for other runtime offsets", {10, false, "start", "#444"});
  }
  return y + 40;
}

std::string unit_word(AccessModel model) {
  switch (model) {
    case AccessModel::kTpuTiles: return "tile";
    case AccessModel::kCpuLines: return "line";
    default: return "segment";
  }
}

std::string group_words(const GroupAccess& a) {
  const std::int64_t n = a.setup.group_outputs;
  switch (a.model) {
    case AccessModel::kTpuTiles:
      return fmt::format("output tile 0 of {}: {} outputs, each with its iterations (up to 128)", a.reads.groups, n);
    case AccessModel::kCpuLines:
      return fmt::format("group 0 of {}: {} consecutive outputs, each with its iterations (up to 128)", a.reads.groups,
                         n);
    case AccessModel::kGpuRowReduction:
      return fmt::format("warp 0 of {}: 32 threads reading consecutive elements of a reduced row{}", a.reads.groups,
                         a.reads.step > 1 ? fmt::format(" ({} rows per warp)", a.reads.step) : std::string());
    case AccessModel::kGpuTiledTranspose:
      return fmt::format("warp 0 of {}: 32 threads of a tile row, output elements {} apart, first reads",
                         a.reads.groups, a.reads.step);
    default: return fmt::format("warp 0 of {}: 32 threads on consecutive output elements, first reads", a.reads.groups);
  }
}

// What one member of a group is: a GPU thread, or an output element on TPU and CPU.
std::string group_member(AccessModel model, bool several) {
  const bool outputs = model == AccessModel::kTpuTiles || model == AccessModel::kCpuLines;
  if (outputs) return several ? "outputs" : "output";
  return several ? "threads" : "thread";
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", 100.0 * fraction); }

int draw_access(SvgWriter& svg, const GroupAccess& a, int y) {
  svg.text(
      k_margin, y,
      fmt::format("One thread group's reads: {} ({})", analysis::model_name(a.model), analysis::target_name(a.target)),
      k_heading);
  y += 18;
  if (!a.reason.empty() && a.units.empty()) {
    svg.text(k_margin, y, fmt::format("not drawn: {}", a.reason), k_caption);
    return y + 20;
  }
  const std::string unit = unit_word(a.model);
  std::vector<std::string> lines;
  lines.push_back(group_words(a));
  const analysis::Coalescing& v = a.verdict;
  lines.push_back(
      fmt::format("verdict{}: {}: {:.1f} {}-byte {}s per group where {:.1f} would do, {} of the bytes "
                  "fetched used (mean of {} groups sampled; as summary and lint judge it)",
                  a.maps > 1 ? fmt::format(" of map {} of {} (the worst)", a.map + 1, a.maps) : "", access_words(a),
                  v.transfers, v.unit_bytes, unit, v.min_transfers, percent(v.used_fraction), v.groups_sampled));
  lines.push_back(
      fmt::format("group 0: {} of {} distinct elements touch {} {}{}; a square per element slot, "
                  "coloured by its reads",
                  cost::plural(a.reads_total, "read"), a.distinct_elements, static_cast<std::int64_t>(a.units.size()),
                  unit, a.units.size() == 1 ? "" : "s"));
  y = caption_block(svg, y, lines) + 4;
  const std::int64_t slots = a.units.empty() ? 1 : static_cast<std::int64_t>(a.units[0].slot_reads.size());
  // At most 128 marks per unit: wider units pool slots.
  const std::int64_t per_mark = (slots + 127) / 128;
  const std::int64_t marks = (slots + per_mark - 1) / per_mark;
  const int mark_width = std::clamp(512 / static_cast<int>(marks), 2, 16);
  std::int64_t most = 1;
  for (const auto& u : a.units)
    for (std::int64_t r : u.slot_reads) most = std::max(most, r);
  const std::size_t shown = std::min<std::size_t>(a.units.size(), 24);
  const int left = k_margin + 200;
  svg.raw(fmt::format(R"svg(<defs><pattern id="slot-grid" x="{}" y="0" width="{}" height="12" )svg"
                      R"svg(patternUnits="userSpaceOnUse"><rect x="{}" y="0" width="1" height="12" )svg"
                      R"svg(fill="#ffffff"/></pattern></defs>)svg"
                      "\n",
                      left, mark_width, mark_width - 1));
  for (std::size_t k = 0; k < shown; ++k) {
    const analysis::UnitTouched& u = a.units[k];
    const std::int64_t first_byte = u.unit * v.unit_bytes;
    svg.text(left - 6, y + 10,
             fmt::format("{} {} (bytes {})", unit, u.unit, index_range(first_byte, first_byte + v.unit_bytes - 1)),
             {10, false, "end", "#444"});
    auto mark_reads = [&](std::int64_t m) {
      std::int64_t reads = 0;
      for (std::int64_t s = m * per_mark; s < std::min(slots, (m + 1) * per_mark); ++s)
        reads += u.slot_reads[static_cast<std::size_t>(s)];
      return reads;
    };
    // Runs of marks with equal reads as one rectangle each.
    for (std::int64_t m = 0; m < marks;) {
      const std::int64_t reads = mark_reads(m);
      std::int64_t end = m + 1;
      while (end < marks && mark_reads(end) == reads) ++end;
      const std::string fill =
          reads == 0 ? std::string("#dde6f0")
                     : heat_colour(0.35 + 0.65 * static_cast<double>(reads) / static_cast<double>(most * per_mark));
      const std::int64_t first_slot = m * per_mark, last_slot = std::min(slots, end * per_mark) - 1;
      // The threads (outputs on TPU and CPU) whose reads land in the run.
      std::int64_t first_thread = -1, last_thread = -1;
      for (std::int64_t slot = first_slot; slot <= last_slot; ++slot) {
        const auto at = static_cast<std::size_t>(slot);
        if (u.first_thread[at] >= 0 && (first_thread < 0 || u.first_thread[at] < first_thread))
          first_thread = u.first_thread[at];
        last_thread = std::max(last_thread, u.last_thread[at]);
      }
      const std::string by = first_thread < 0
                                 ? std::string()
                                 : fmt::format(", by {} {}", group_member(a.model, first_thread != last_thread),
                                               index_range(first_thread, last_thread));
      const std::string title =
          fmt::format("element slot{} {}: {}", first_slot == last_slot ? "" : "s", index_range(first_slot, last_slot),
                      reads == 0     ? std::string("fetched, not read")
                      : per_mark > 1 ? fmt::format("{} per {} slots{}", cost::plural(reads, "read"), per_mark, by)
                      : end - m > 1  ? fmt::format("{} each{}", cost::plural(reads, "read"), by)
                                     : cost::plural(reads, "read") + by);
      svg.rect(left + static_cast<int>(m) * mark_width, y, static_cast<int>(end - m) * mark_width, 12, fill, title);
      m = end;
    }
    // The marks' borders, over the runs.
    if (mark_width > 3) svg.rect(left, y, static_cast<int>(marks) * mark_width, 12, "url(#slot-grid)");
    y += 15;
  }
  if (shown < a.units.size())
    svg.text(left, y + 10, fmt::format("\u2026 and {} more {}s", a.units.size() - shown, unit), k_caption);
  y += shown < a.units.size() ? 18 : 4;
  svg.text(k_margin, y + 10,
           per_mark == 1
               ? fmt::format("each {}: {} element slots; pale: fetched, not read", unit, slots)
               : fmt::format("each {}: {} element slots, {} per mark; pale: fetched, not read", unit, slots, per_mark),
           k_caption);
  return y + 24;
}

constexpr std::string_view k_defs =
    R"svg(<defs><pattern id="may-read" width="6" height="6" patternUnits="userSpaceOnUse" )svg"
    R"svg(patternTransform="rotate(45)"><rect width="6" height="6" fill="#f4f4f4"/>)svg"
    R"svg(<line x1="0" y1="0" x2="0" y2="6" stroke="#e08a2c" stroke-width="2"/></pattern></defs>)svg"
    "\n";

}  // namespace

std::string access_words(const GroupAccess& a) {
  if (!a.reason.empty() && a.units.empty()) return "-";
  return analysis::access_verdict(a.verdict).text;
}

std::string picture_svg(const PictureSubject& s, const ReadHeatmap& heatmap, const GroupAccess& access) {
  SvgWriter svg;
  svg.raw(k_defs);
  int y = 26;
  svg.text(k_margin, y, fmt::format("%{} reads operand {} %{}", s.instruction, s.operand, s.operand_name),
           {15, true, "start", "#111"});
  y += 18;
  y = caption_block(
          svg, y,
          {fmt::format("{} of computation {}, module {}; operand {}", s.kind, s.computation, s.module, s.operand_shape),
           fmt::format("{}{}", s.file, s.line > 0 ? fmt::format(":{}", s.line) : std::string())}) +
      10;
  y = draw_heatmap(svg, heatmap, y);
  y = draw_access(svg, access, y + 6);
  std::string document =
      svg.document(k_width, y, fmt::format("%{} reads operand {} %{}", s.instruction, s.operand, s.operand_name));
  if (s.id_prefix.empty()) return document;
  for (const std::string_view id : {"may-read", "slot-grid"}) {
    const std::pair<std::string, std::string> renames[] = {
        {fmt::format("id=\"{}\"", id), fmt::format("id=\"{}{}\"", s.id_prefix, id)},
        {fmt::format("url(#{})", id), fmt::format("url(#{}{})", s.id_prefix, id)}};
    for (const auto& [from, to] : renames) {
      for (std::size_t at = 0; (at = document.find(from, at)) != std::string::npos; at += to.size())
        document.replace(at, from.size(), to);
    }
  }
  return document;
}

std::string picture_summary(const PictureSubject& s, const ReadHeatmap& h, const GroupAccess& a) {
  std::string heat;
  if (!h.defined()) {
    heat = fmt::format("no heat map ({})", h.undefined_reason);
  } else {
    std::int64_t read = 0, most = 0;
    for (const HeatSlice& slice : h.slices)
      for (const HeatCell& c : slice.cells) {
        read += c.reads > 0 ? 1 : 0;
        most = std::max(most, c.reads);
      }
    const std::string per_cell = h.rows.per_cell * h.columns.per_cell == 1
                                     ? std::string("one element per cell")
                                     : fmt::format("{} x {} elements per cell", h.rows.per_cell, h.columns.per_cell);
    heat = fmt::format("{}{}, {} of {} cells read ({}{})", cost::plural(h.total_reads, "read"),
                       h.exact ? "" : " (upper bound)", read,
                       static_cast<std::int64_t>(h.slices.size()) * h.rows.cells * h.columns.cells, per_cell,
                       h.projected           ? ", projected"
                       : h.slices.size() > 1 ? fmt::format(", {} slices", h.slices.size())
                                             : std::string());
  }
  const std::string access = a.units.empty() ? fmt::format("access: {}", a.reason.empty() ? "-" : a.reason)
                                             : fmt::format("access: {} ({}, group 0 touches {} {}{})", access_words(a),
                                                           analysis::model_name(a.model), a.units.size(),
                                                           unit_word(a.model), a.units.size() == 1 ? "" : "s");
  return fmt::format("%{} operand {} %{} {}: {}; {}", s.instruction, s.operand, s.operand_name, s.operand_shape, heat,
                     access);
}

}  // namespace hlo_index::app

#include "app/summary_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/common_options.hpp"
#include "app/cost_render.hpp"
#include "app/exit_codes.hpp"
#include "app/isl_limit.hpp"
#include "app/progress.hpp"
#include "app/tile_command.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/cost/units.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "indexing/verdicts/summary.hpp"
#include "indexing/verdicts/summary_groups.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::app {

using analysis::SummaryColumn;
using analysis::SummaryRow;

namespace {

using json = nlohmann::ordered_json;

constexpr std::size_t k_table_width = 120;

// The rows of one module, sorted, with the totals over all of them (before --top).
struct ModuleRows {
  std::string name, file;
  std::vector<SummaryRow> rows;
  std::size_t total_rows = 0;
  std::int64_t logical_reads = 0, read = 0, written = 0;
  double seconds = 0;  // over the rows
  std::size_t lint_findings = 0, approximate = 0, undefined = 0;
  bool counts_exact = true;
  cost::CostTotals totals;  // over the module
  const cost::Device* device = nullptr;
  analysis::DumpStage stage;
  std::optional<double> measured_seconds;  // with a profile (analysis::ModuleSummary)
  double estimated_seconds_measured = 0;
  std::size_t profile_steps = 0;
  std::size_t cut_off = 0;                 // computations of a truncated dump left out (analysis::cut_off_computations)
  std::vector<analysis::RowGroup> groups;  // with --group-by: every row's group (the first --top)
  std::size_t group_count = 0;             // before --top
  /// The text table's lines: rows of one identity folded into their first (the first --top);
  /// empty with --every-row.
  struct Kind {
    SummaryRow row;  // the first, its time and share those of all copies
    std::size_t copies = 1;
  };
  std::vector<Kind> kinds;
  std::size_t kind_count = 0;  // before --top
};

ModuleRows module_rows(const hlo::Module& module, analysis::ModuleSummary summary, SummaryColumn sort,
                       std::optional<std::size_t> top, std::optional<analysis::RowGrouping> group_by, bool fold) {
  ModuleRows m;
  m.name = std::string(module.name);
  m.file = module.source ? module.source->name() : std::string();
  m.totals = summary.totals;
  m.device = summary.device;
  m.stage = summary.stage;
  m.measured_seconds = summary.measured_seconds;
  m.estimated_seconds_measured = summary.estimated_seconds_measured;
  m.profile_steps = summary.profile_steps;
  m.cut_off = analysis::cut_off_computations(module).size();
  std::vector<SummaryRow> rows = std::move(summary.rows);
  m.total_rows = rows.size();
  for (const SummaryRow& r : rows) {
    m.seconds += r.seconds();
    m.logical_reads = simplify::saturating_add(m.logical_reads, r.logical_read_bytes);
    m.read = simplify::saturating_add(m.read, r.bytes_read);
    m.written = simplify::saturating_add(m.written, r.output_bytes);
    m.lint_findings += r.lint_findings;
    m.approximate += r.approximate ? 1 : 0;
    m.undefined += r.undefined ? 1 : 0;
    m.counts_exact = m.counts_exact && r.counts_exact;
  }
  if (group_by) {
    m.groups = analysis::group_rows(rows, *group_by);
    m.group_count = m.groups.size();
    if (top && m.groups.size() > *top) m.groups.resize(*top);
  }
  analysis::sort_rows(rows, sort);
  if (fold) {
    const std::vector<analysis::FoldedRows> folded = analysis::fold_repeats(rows, sort == SummaryColumn::kTime);
    m.kind_count = folded.size();
    for (const analysis::FoldedRows& f : folded) {
      if (top && m.kinds.size() >= *top) break;
      ModuleRows::Kind kind{rows[f.first], f.members.size()};
      // The line's time and share are those of every copy: one run's cost times all their runs.
      double runs = 0;
      for (const std::size_t k : f.members) runs += rows[k].runs.count;
      kind.row.runs.count = kind.row.cost.seconds > 0 ? f.seconds / kind.row.cost.seconds : runs;
      kind.row.runs.exact = f.exact;
      kind.row.share = f.share;
      // With a profile, the measured time of every copy too, so the line compares like with like.
      kind.row.measured_seconds.reset();
      kind.row.measured_events = 0;
      for (const std::size_t k : f.members) {
        if (!rows[k].measured_seconds) continue;
        kind.row.measured_seconds = kind.row.measured_seconds.value_or(0) + *rows[k].measured_seconds;
        kind.row.measured_events += rows[k].measured_events;
      }
      m.kinds.push_back(std::move(kind));
    }
  }
  if (top && rows.size() > *top) rows.resize(*top);
  m.rows = std::move(rows);
  return m;
}

std::string utilisation_text(const std::optional<double>& u) { return u ? fmt::format("{:.3f}", *u) : "-"; }

std::string multiplicity_text(const std::optional<double>& m) {
  if (!m) return "-";
  return *m < 1000 ? fmt::format("{:.1f}", *m) : fmt::format("{:.0f}", *m);
}

// A fusion's kind, or the opcode of another instruction.
std::string kind_text(const SummaryRow& r) { return r.kind != "-" ? r.kind : r.opcode; }

// `~` marks times over runs that are not exact (a while without a known trip count, a branch).
std::string time_cell(const SummaryRow& r) {
  if (!r.cost.runs) return "-";
  return (r.runs.exact ? "" : "~") + cost::human_seconds(r.seconds());
}

std::string share_cell(const SummaryRow& r) { return r.cost.runs ? fmt::format("{:.1f}%", 100 * r.share) : "-"; }

std::string flops_cell(const SummaryRow& r) {
  if (!r.cost.runs) return "-";
  if (!r.cost.flops_known) return "?";
  return cost::human_count(static_cast<double>(r.cost.flops + r.cost.transcendentals));
}

std::string device_bytes_cell(const SummaryRow& r) {
  if (!r.cost.runs) return "-";
  return (r.cost.bytes_exact ? "" : "<=") + cost::human_bytes(r.cost.device_bytes());
}

std::string intensity_cell(const SummaryRow& r) {
  if (!r.cost.runs || r.cost.device_bytes() == 0 || !r.cost.flops_known) return "-";
  return fmt::format("{:.3g}", r.cost.intensity());
}

}  // namespace

// The table's cells of one row, in column order; the last (the name) is elided to the room left.
std::vector<std::string> summary_cells(const SummaryRow& r) {
  return {time_cell(r),
          share_cell(r),
          std::string(cost::bound_name(r.cost.bound)),
          flops_cell(r),
          device_bytes_cell(r),
          intensity_cell(r),
          utilisation_text(r.worst_utilisation),
          multiplicity_text(r.highest_multiplicity),
          r.access.text,
          std::to_string(r.lint_findings),
          r.line != 0 ? std::to_string(r.line) : "-",
          kind_text(r),
          r.computation,
          r.name};
}

const std::vector<std::string>& summary_headers() {
  static const std::vector<std::string> k_headers = {"time", "%",    "bound",       "flops",  "bytes",
                                                     "AI",   "util", "mult",        "access", "lint",
                                                     "line", "kind", "computation", "name"};
  return k_headers;
}

namespace {

// Columns aligned left (the others are numbers, aligned right).
// Positions of the text columns in summary_headers() and summary_cells().
constexpr std::size_t k_bound_column = 2, k_access_column = 8, k_kind_column = 11, k_computation_column = 12,
                      k_name_column = 13;

// Where the row comes from in the user's program: the framework op and the source line.
// (Framework op paths run long: the cell keeps both ends; JSON and CSV have them whole.)
std::string source_cell(const SummaryRow& r) {
  constexpr std::size_t k_op_name_width = 60;
  if (r.op_name.empty()) return r.source.empty() ? "-" : r.source;
  const std::string op_name = elide_middle(r.op_name, k_op_name_width);
  return r.source.empty() ? op_name : fmt::format("{} ({})", op_name, r.source);
}

// With a profile, a `measured` column follows `time`: the positions after it move by `shift`.
bool left_aligned(std::size_t column, std::size_t shift) {
  return column == k_bound_column + shift || column == k_access_column + shift || column >= k_kind_column + shift;
}

// Longest cell per column; kind, access and computation are capped so that the name keeps its room.
std::vector<std::size_t> column_widths(const std::vector<std::string>& headers,
                                       const std::vector<std::vector<std::string>>& table, std::size_t shift) {
  const std::size_t access = k_access_column + shift, kind = k_kind_column + shift,
                    computation = k_computation_column + shift, name = k_name_column + shift;
  const bool source = headers.size() > summary_headers().size() + shift;
  std::vector<std::size_t> widths;
  widths.reserve(headers.size());
  for (const std::string& h : headers) widths.push_back(h.size());
  for (const auto& row : table) {
    for (std::size_t k = 0; k < row.size(); ++k) widths[k] = std::max(widths[k], row[k].size());
  }
  widths[access] = std::min<std::size_t>(widths[access], 14);
  widths[kind] = std::min<std::size_t>(widths[kind], 12);
  widths[computation] = std::min<std::size_t>(widths[computation], 20);
  // With a source column after it, the name gives it room.
  if (source) widths[name] = std::min<std::size_t>(widths[name], 24);
  constexpr std::size_t k_min_name = 12, k_min_computation = 11;
  std::size_t used = 0;
  for (std::size_t k = 0; k + 1 < widths.size(); ++k) used += widths[k] + 1;
  // Very wide figures (huge multiplicities, bounds): the computation gives up room first.
  if (used + k_min_name > k_table_width) {
    const std::size_t excess = used + k_min_name - k_table_width;
    const std::size_t room = widths[computation] - std::min(widths[computation], k_min_computation);
    widths[computation] -= std::min(excess, room);
    used -= std::min(excess, room);
  }
  // The source column, last, keeps its width: lines with one run past the table's width.
  if (source) return widths;
  widths.back() = std::min(widths.back(), used + k_min_name <= k_table_width ? k_table_width - used : k_min_name);
  return widths;
}

// One line of a table: each cell cut to its column's width (the middle elided), padded on the
// right where `left(k)` and on the left elsewhere; the last column unpadded.
template <typename LeftAligned>
std::string aligned_line(const std::vector<std::string>& row, const std::vector<std::size_t>& widths,
                         LeftAligned left) {
  std::string line;
  for (std::size_t k = 0; k < row.size(); ++k) {
    const std::string cell = elide_middle(row[k], widths[k]);
    // The ellipsis is three bytes and one column.
    const std::size_t shown = cell.size() == row[k].size() ? cell.size() : widths[k];
    const std::string pad(widths[k] - std::min(widths[k], shown), ' ');
    if (k > 0) line += ' ';
    if (k + 1 == row.size()) {
      line += cell;  // the last column: no trailing blanks
    } else {
      line += left(k) ? cell + pad : pad + cell;
    }
  }
  return line + "\n";
}

std::string table_line(const std::vector<std::string>& row, const std::vector<std::size_t>& widths, std::size_t shift) {
  return aligned_line(row, widths, [shift](std::size_t k) { return left_aligned(k, shift); });
}

std::string what(bool all_instructions) { return all_instructions ? "instruction" : "fusion"; }

std::string total_text(const ModuleRows& m, bool all_instructions) {
  std::string shown = m.rows.size() < m.total_rows ? fmt::format(" (top {} shown)", m.rows.size()) : "";
  if (!m.kinds.empty() && m.kind_count < m.total_rows)
    shown = fmt::format(" as {} (repeated layers folded: \u00d7N){}", cost::plural(m.kind_count, "kind"),
                        m.kinds.size() < m.kind_count ? fmt::format(", top {} shown", m.kinds.size()) : "");
  if (m.group_count > 0)
    shown = fmt::format(" in {}{}", cost::plural(m.group_count, "group"),
                        m.groups.size() < m.group_count ? fmt::format(" (top {} shown)", m.groups.size()) : "");
  const double share = m.totals.seconds > 0 ? 100 * m.seconds / m.totals.seconds : 0;
  return fmt::format(
      "total: {}{}: {} of the module's {}{} estimated ({:.1f}%), {} FLOP, {} moved to and from device memory; "
      "{}, {} approximate, {} undefined\n",
      cost::plural(m.total_rows, what(all_instructions)), shown, cost::human_seconds(m.seconds),
      m.totals.exact ? "" : "~", cost::human_seconds(m.totals.seconds), share,
      cost::human_count(m.totals.flops + m.totals.transcendentals), cost::human_bytes(m.totals.device_bytes),
      cost::plural(m.lint_findings, "lint finding"), m.approximate, m.undefined);
}

std::string stage_note(const analysis::DumpStage& stage) {
  return fmt::format(
      "note: a dump taken before optimisation ({}): one row per instruction, each costed as a kernel of its "
      "own; XLA's layout assignment and fusion would change these figures, and lint does not judge fusion "
      "decisions in it\n",
      stage.evidence);
}

std::string device_text(const cost::Device* device) {
  return device == nullptr ? std::string("-") : fmt::format("{} ({})", device->name, device->description);
}

// With a profile, rows go by measured time unless --sort says otherwise.
std::string sort_column(const SummaryOptions& options) {
  return !options.profile.empty() && !options.sort_given ? std::string("measured") : options.sort;
}

// The rows added up per group (--group-by), the most time first: time, share of the module, rows,
// FLOPs and device bytes over their runs, lint findings, then the group's key.
std::string group_table(const ModuleRows& m, const std::string& key_name) {
  const std::vector<std::string> headers = {"time", "%", "rows", "flops", "bytes", "lint", key_name};
  std::vector<std::vector<std::string>> table;
  for (const analysis::RowGroup& g : m.groups) {
    const double share = m.totals.seconds > 0 ? g.totals.seconds / m.totals.seconds : 0;
    table.push_back({fmt::format("{}{}", g.totals.exact ? "" : "~", cost::human_seconds(g.totals.seconds)),
                     fmt::format("{:.1f}%", 100 * share), std::to_string(g.totals.rows),
                     cost::human_count(g.totals.flops), cost::human_bytes(g.totals.device_bytes),
                     std::to_string(g.totals.lint_findings), g.key});
  }
  std::vector<std::size_t> widths(headers.size());
  for (std::size_t k = 0; k < headers.size(); ++k) {
    widths[k] = headers[k].size();
    for (const auto& row : table) widths[k] = std::max(widths[k], row[k].size());
  }
  // Figures right-aligned; the key, last, as it is.
  const auto numbers = [](std::size_t) { return false; };
  std::string out;
  if (!table.empty()) out += aligned_line(headers, widths, numbers);
  for (const auto& row : table) out += aligned_line(row, widths, numbers);
  return out;
}

void render_text(const std::vector<ModuleRows>& modules, const SummaryOptions& options, std::ostream& out) {
  for (std::size_t n = 0; n < modules.size(); ++n) {
    const ModuleRows& m = modules[n];
    if (n > 0) out << "\n";
    out << fmt::format("module {} ({}), {}; times on {}\n", m.name, m.file,
                       options.group_by.empty() ? "sorted by " + sort_column(options)
                                                : "time by " + options.group_by + ", the most first",
                       device_text(m.device));
    if (m.stage.before_optimisation) out << stage_note(m.stage);
    if (!options.group_by.empty()) {
      out << group_table(m, options.group_by);
      out << total_text(m, options.all_instructions || m.stage.before_optimisation);
      continue;
    }
    const std::size_t shift = options.profile.empty() ? 0 : 1;
    // A source column when the dump has metadata.
    const bool sources = std::any_of(m.rows.begin(), m.rows.end(),
                                     [](const SummaryRow& r) { return !r.op_name.empty() || !r.source.empty(); });
    std::vector<std::string> headers = summary_headers();
    if (shift != 0) headers.insert(headers.begin() + 1, "measured");
    if (sources) headers.emplace_back("source");
    std::vector<std::vector<std::string>> table;
    auto add_line = [&](const SummaryRow& r, std::size_t copies) {
      table.push_back(summary_cells(r));
      if (copies > 1) table.back()[k_kind_column] += fmt::format(" \u00d7{}", copies);
      if (shift != 0) table.back().insert(table.back().begin() + 1, measured_cell(r));
      if (sources) table.back().push_back(source_cell(r));
    };
    if (options.every_row || m.kinds.empty()) {
      for (const SummaryRow& r : m.rows) add_line(r, 1);
    } else {
      for (const ModuleRows::Kind& kind : m.kinds) add_line(kind.row, kind.copies);
    }
    const std::vector<std::size_t> widths = column_widths(headers, table, shift);
    if (!table.empty()) out << table_line(headers, widths, shift);
    for (const auto& row : table) out << table_line(row, widths, shift);
    out << total_text(m, options.all_instructions || m.stage.before_optimisation);
    if (shift != 0) out << measured_line(m.measured_seconds, m.estimated_seconds_measured, m.profile_steps);
    if (m.total_rows == 0 && m.cut_off > 0)
      out << fmt::format(
          "no row: the input is cut off and {} of its computations are reached only by callers it "
          "lacks (left out, as the note says)\n",
          m.cut_off);
    else if (m.total_rows == 0 && !options.all_instructions && !m.stage.before_optimisation)
      out << "no fusion in this module: --all-instructions gives a row per instruction\n";
  }
}

json optional_json(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json row_json(const SummaryRow& r) {
  return json{{"file", r.file},
              {"line", r.line},
              {"column", r.column},
              {"module", r.module},
              {"computation", r.computation},
              {"name", r.name},
              {"kind", r.kind},
              {"opcode", r.opcode},
              {"output_shape", r.output_shape},
              {"op_name", r.op_name.empty() ? json(nullptr) : json(r.op_name)},
              {"source", r.source.empty() ? json(nullptr) : json(r.source)},
              {"seconds", r.seconds()},
              {"measured_seconds", optional_json(r.measured_seconds)},
              {"share", r.share},
              {"runs", r.runs.count},
              {"runs_exact", r.runs.exact},
              {"cost", cost_json(r.cost)},
              {"output_bytes", r.output_bytes},
              {"bytes_read", r.bytes_read},
              {"logical_read_bytes", r.logical_read_bytes},
              {"counts_exact", r.counts_exact},
              {"worst_utilisation", optional_json(r.worst_utilisation)},
              {"highest_multiplicity", optional_json(r.highest_multiplicity)},
              {"access", r.access.text},
              {"lint_findings", r.lint_findings},
              {"approximate", r.approximate},
              {"undefined", r.undefined}};
}

void render_json(const std::vector<ModuleRows>& modules, const SummaryOptions& options,
                 const std::vector<std::vector<tiles::BestTiling>>& tilings, std::ostream& out) {
  json list = json::array();
  for (std::size_t n = 0; n < modules.size(); ++n) {
    const ModuleRows& m = modules[n];
    json rows = json::array();
    for (const SummaryRow& r : m.rows) {
      rows.push_back(row_json(r));
      if (!options.tiles) continue;
      // --tiles: each fusion row's best tiling (null for other rows).
      rows.back()["best_tiling"] = nullptr;
      for (const tiles::BestTiling& t : tilings[n])
        if (t.computation == r.computation_index && t.instruction == r.instruction_index)
          rows.back()["best_tiling"] = best_tiling_json(t);
    }
    json total{{"rows", m.total_rows},           {"shown", m.rows.size()},
               {"seconds", m.seconds},           {"logical_read_bytes", m.logical_reads},
               {"bytes_read", m.read},           {"output_bytes", m.written},
               {"counts_exact", m.counts_exact}, {"lint_findings", m.lint_findings},
               {"approximate", m.approximate},   {"undefined", m.undefined}};
    list.push_back(json{{"name", m.name},
                        {"file", m.file},
                        {"before_optimisation", m.stage.before_optimisation},
                        {"device", m.device != nullptr ? json(m.device->name) : json(nullptr)},
                        {"module_cost", totals_json(m.totals)},
                        {"measured_seconds", optional_json(m.measured_seconds)},
                        {"profile_runs", m.profile_steps},
                        {"total", std::move(total)},
                        {"rows", std::move(rows)}});
    if (!options.group_by.empty()) {
      json groups = json::array();
      for (const analysis::RowGroup& g : m.groups) {
        groups.push_back(json{{"key", g.key},
                              {"rows", g.totals.rows},
                              {"seconds", g.totals.seconds},
                              {"share", m.totals.seconds > 0 ? g.totals.seconds / m.totals.seconds : 0.0},
                              {"flops", g.totals.flops},
                              {"device_bytes", g.totals.device_bytes},
                              {"lint_findings", g.totals.lint_findings},
                              {"exact", g.totals.exact}});
      }
      list.back()["group_by"] = options.group_by;
      list.back()["groups"] = std::move(groups);
    }
  }
  out << json{{"sort", sort_column(options)}, {"modules", std::move(list)}}.dump(2) << "\n";
}

// RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string optional_csv(const std::optional<double>& value) { return value ? fmt::format("{}", *value) : ""; }

void render_group_csv(const std::vector<ModuleRows>& modules, const std::string& key_name, std::ostream& out) {
  out << "file,module," << key_name << ",rows,seconds,share,flops,device_bytes,lint_findings,exact\n";
  for (const ModuleRows& m : modules) {
    for (const analysis::RowGroup& g : m.groups) {
      out << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_field(m.file), csv_field(m.name), csv_field(g.key),
                         g.totals.rows, g.totals.seconds,
                         m.totals.seconds > 0 ? g.totals.seconds / m.totals.seconds : 0.0, g.totals.flops,
                         g.totals.device_bytes, g.totals.lint_findings, g.totals.exact ? "true" : "false");
    }
  }
}

void render_csv(const std::vector<ModuleRows>& modules, const std::vector<std::vector<tiles::BestTiling>>& tilings,
                bool with_tiles, std::ostream& out) {
  out << "file,line,column,module,computation,name,kind,opcode,output_shape,seconds,measured_seconds,share,runs,bound,"
         "flops,"
         "transcendentals,device_bytes_read,device_bytes_written,intensity,output_bytes,bytes_read,logical_read_bytes,"
         "counts_exact,worst_utilisation,highest_multiplicity,access,lint_findings,approximate,undefined,op_name,"
         "source"
      << (with_tiles ? ",tile_sizes,tile_seconds" : "") << "\n";
  for (std::size_t n = 0; n < modules.size(); ++n) {
    const ModuleRows& m = modules[n];
    for (const SummaryRow& r : m.rows) {
      std::vector<std::string> fields = {r.file,
                                         std::to_string(r.line),
                                         std::to_string(r.column),
                                         r.module,
                                         r.computation,
                                         r.name,
                                         r.kind,
                                         r.opcode,
                                         r.output_shape,
                                         fmt::format("{}", r.seconds()),
                                         optional_csv(r.measured_seconds),
                                         fmt::format("{}", r.share),
                                         fmt::format("{}", r.runs.count),
                                         std::string(cost::bound_name(r.cost.bound)),
                                         r.cost.flops_known ? std::to_string(r.cost.flops) : "",
                                         r.cost.flops_known ? std::to_string(r.cost.transcendentals) : "",
                                         std::to_string(r.cost.device_bytes_read),
                                         std::to_string(r.cost.device_bytes_written),
                                         fmt::format("{}", r.cost.intensity()),
                                         std::to_string(r.output_bytes),
                                         std::to_string(r.bytes_read),
                                         std::to_string(r.logical_read_bytes),
                                         r.counts_exact ? "true" : "false",
                                         optional_csv(r.worst_utilisation),
                                         optional_csv(r.highest_multiplicity),
                                         r.access.text,
                                         std::to_string(r.lint_findings),
                                         r.approximate ? "true" : "false",
                                         r.undefined ? "true" : "false",
                                         r.op_name,
                                         r.source};
      if (with_tiles) {
        // --tiles: the best tiling's sizes ("16x128", "16x128:K32" with a K step) and estimated seconds;
        // empty for other rows.
        std::string sizes, seconds;
        for (const tiles::BestTiling& t : tilings[n]) {
          if (t.computation != r.computation_index || t.instruction != r.instruction_index || !t.best) continue;
          sizes = fmt::format("{}", fmt::join(t.best->sizes, "x"));
          if (t.best->k_tile > 0) sizes += fmt::format(":K{}", t.best->k_tile);
          seconds = fmt::format("{}", t.best->seconds);
        }
        fields.push_back(sizes);
        fields.push_back(seconds);
      }
      std::string line;
      for (const std::string& f : fields) line.append(line.empty() ? "" : ",").append(csv_field(f));
      out << line << "\n";
    }
  }
}

// The filters as the user wrote them, for the message when nothing matches.
std::string filter_text(const SummaryOptions& o) {
  std::vector<std::string> parts;
  for (const auto& n : o.modules) parts.push_back("--module " + n);
  for (const auto& n : o.computations) parts.push_back("--computation " + n);
  for (const auto& n : o.kinds) parts.push_back("--kind " + n);
  for (const auto& n : o.opcodes) parts.push_back("--opcode " + n);
  if (!o.match.empty()) parts.push_back("--match '" + o.match + "'");
  return fmt::format("{}", fmt::join(parts, " "));
}

std::optional<analysis::InstructionFilter> make_filter(const SummaryOptions& options, std::ostream& err) {
  analysis::InstructionFilter filter;
  for (const auto& n : options.modules) filter.modules.push_back(n);
  for (const auto& n : options.computations) filter.computations.push_back(analysis::without_sigil(n));
  filter.kinds = options.kinds;
  filter.opcodes = options.opcodes;
  if (!options.match.empty()) {
    std::string error;
    filter.match = analysis::NamePattern::compile(options.match, &error);
    if (!filter.match) {
      err << fmt::format("hlo-index: error: --match '{}' is not a regular expression (ECMAScript): {}\n", options.match,
                         error);
      return std::nullopt;
    }
  }
  return filter;
}

std::string column_list() { return fmt::format("{}", fmt::join(analysis::summary_column_names(), ", ")); }

}  // namespace

std::string elide_middle(std::string_view text, std::size_t width) {
  if (text.size() <= width) return std::string(text);
  if (width == 0) return {};
  const std::size_t head = (width - 1) / 2, tail = width - 1 - head;
  return std::string(text.substr(0, head)) + "\u2026" + std::string(text.substr(text.size() - tail));
}

constexpr const char* k_summary_help =
    "One row per fusion of every computation that is not a fusion body (--all-instructions: per instruction),\n"
    "to find the few fusions of a large dump where the time goes. Columns (times on the device of --device,\n"
    "by default the target's: h100-sxm for GPU dumps, tpu-v5e for TPU dumps; docs/cost-model.md):\n"
    "  time         estimated time (roofline: max(compute, memory) + launch overhead + collective time),\n"
    "               times the runs of its computation (a while body: times the trip count; `~`: not exact)\n"
    "  measured     with --profile TRACE: the time the profiler measured, per run of the module and per\n"
    "               device (the runs in the trace are counted from the instructions that run once per run)\n"
    "  %            its share of the module's estimated time (every instruction that runs, not only the rows)\n"
    "  bound        what the time is: compute, memory, overhead or collective\n"
    "  flops        FLOPs executed, transcendentals included (a recomputed fused producer once per\n"
    "               evaluation); `?`: an op without known semantics\n"
    "  bytes        bytes moved to and from device memory, in transfer units of the layouts (32-byte\n"
    "               sectors on GPU, 64-byte lines on CPU, tiles on TPU); `<=`: an upper bound\n"
    "  AI           arithmetic intensity, FLOPs per byte of device memory\n"
    "  util         the lowest utilisation of an operand (elements read / operand size)\n"
    "  mult         the highest read multiplicity of an operand (reads per element read)\n"
    "  access       the worst read pattern across threads (as analyze --coalescing): coalesced, broadcast,\n"
    "               strided N, irregular\n"
    "  lint         findings of every lint rule at its default thresholds\n"
    "  line, kind (a fusion's kind, else the opcode), computation, name\n"
    "`<=` marks upper bounds (runtime offsets, approximate maps). Rows are grouped by module; --sort orders\n"
    "them (time, measured (the default with --profile), flops, bytes, intensity, logical-reads (every read x element "
    "size: the work of reading,\n"
    "not memory traffic), read (distinct elements read, in bytes), written, multiplicity, access, lint:\n"
    "largest first; utilisation: lowest first; line, name, computation, module, kind, opcode: ascending),\n"
    "ties by file and line; --top N keeps the first N per module. A total line per module gives the rows'\n"
    "time against the module's and counts every row that passed the filters. JSON and CSV carry every\n"
    "figure (the cost per run, runs, the module's totals).\n"
    "--match REGEX is an ECMAScript regular expression searched anywhere in the name (`^fusion\\.3$` for one).\n"
    "Filters that select nothing are an error (exit 2).\n\n"
    "Examples:\n"
    "  hlo-index summary model.hlo --top 10\n"
    "  hlo-index summary model.hlo --sort lint --kind kLoop --match 'transpose'\n"
    "  hlo-index summary dumps/ --format csv > fusions.csv";

std::string measured_cell(const SummaryRow& row) {
  return row.measured_seconds ? cost::human_seconds(*row.measured_seconds) : std::string("-");
}

std::string measured_line(std::optional<double> measured_seconds, double estimated_seconds_measured,
                          std::size_t profile_steps) {
  if (!measured_seconds) return "profile: no event of it joined an instruction of this module\n";
  const double ratio = estimated_seconds_measured > 0 ? *measured_seconds / estimated_seconds_measured : 0;
  return fmt::format(
      "profile: {} measured per run of the module ({} in the trace, per device), {} estimated for the "
      "instructions measured (measured/estimated {:.2f})\n",
      cost::human_seconds(*measured_seconds), cost::plural(profile_steps, "run"),
      cost::human_seconds(estimated_seconds_measured), ratio);
}

void add_summary_options(CLI::App& cmd, SummaryOptions& options) {
  cmd.add_option("files", options.files,
                 "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files, at any "
                 "depth, in sorted order)")
      ->required();
  cmd.add_flag("--all-instructions", options.all_instructions,
               "A row per instruction of the non-fused computations, not only per fusion");
  add_target_option(cmd, options.target, "the access verdicts judge reads for");
  add_device_options(cmd, options.device);
  cmd.add_flag("--tiles", options.tiles,
               "The best tile sizes of each fusion row on the device, from `hlo-index tile`'s search: after the "
               "table (text), `best_tiling` in each row (JSON), columns tile_sizes and tile_seconds (CSV)");
  cmd.add_option("--sort", options.sort, "Order rows by this column: " + column_list())
      ->each([&options](const std::string&) { options.sort_given = true; })
      ->type_name("COLUMN")
      ->capture_default_str();
  add_profile_option(cmd, options.profile,
                     "a `measured` column per run of the module and device beside the estimates, and rows sorted by "
                     "it");
  cmd.add_option("--top", options.top, "Only the first N rows of each module (after sorting)")->type_name("N");
  cmd.add_option("--kind", options.kinds, "Only fusions of this kind, e.g. kLoop, kInput (repeatable)");
  cmd.add_option("--opcode", options.opcodes, "Only instructions with this opcode (repeatable)");
  cmd.add_option("--match", options.match,
                 "Only instructions whose name contains a match of this ECMAScript regular expression")
      ->type_name("REGEX");
  cmd.add_option("--module", options.modules, "Only this module (repeatable)");
  cmd.add_option("--computation", options.computations, "Only instructions of this computation (repeatable)");
  cmd.add_flag("--every-row", options.every_row,
               "Text: a line per row; without it, rows of one identity (a model's repeated layers: same "
               "computation, shapes and framework op) are one line, `name xN` with the time of all N");
  cmd.add_option("--group-by", options.group_by,
                 "Add the rows up per framework op (op_name, the path without numeric suffixes, as xprof's op "
                 "profile), source line, computation, module or opcode, the most time first (--top: the first N "
                 "groups)")
      ->type_name("op_name|source|computation|module|opcode");
  cmd.add_option("--format", options.format, "Output format: an aligned table, JSON or CSV")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  add_analysis_run_options(cmd, options);
}

void setup_summary_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SummaryOptions>();
  CLI::App* cmd = app.add_subcommand("summary", "One row of figures per fusion, sorted: the fusions that matter");
  cmd->footer(k_summary_help);
  add_summary_options(*cmd, *options);
  cmd->callback([options, &exit_code] { exit_code = run_summary_command(*options, std::cout, std::cerr); });
}

int run_summary_command(const SummaryOptions& options, std::ostream& out, std::ostream& err) {
  // With a profile, rows go by measured time unless --sort says otherwise.
  const std::optional<SummaryColumn> sort = analysis::find_summary_column(sort_column(options));
  if (!sort) {
    err << fmt::format("hlo-index: error: unknown column '{}' for --sort (columns: {})\n", options.sort, column_list());
    return k_exit_input_error;
  }
  if (options.format != "text" && options.format != "json" && options.format != "csv") {
    err << fmt::format("hlo-index: error: unknown format '{}' (text, json or csv)\n", options.format);
    return k_exit_input_error;
  }
  std::optional<analysis::RowGrouping> group_by;
  if (!options.group_by.empty()) {
    const auto& names = analysis::row_grouping_names();
    const auto it = std::find(names.begin(), names.end(), options.group_by);
    if (it == names.end()) {
      err << fmt::format("hlo-index: error: unknown grouping '{}' for --group-by ({})\n", options.group_by,
                         fmt::join(names, ", "));
      return k_exit_input_error;
    }
    group_by = static_cast<analysis::RowGrouping>(it - names.begin());
  }
  std::optional<analysis::InstructionFilter> filter = make_filter(options, err);
  if (!filter) return k_exit_input_error;
  const std::optional<ChosenDevice> device = choose_device(options.device, err);
  if (!device) return k_exit_input_error;
  bool some_input_failed = false;
  const std::optional<std::vector<hlo::Module>> modules =
      analysis::load_modules(options.files, options.allow_truncated, *filter, err, &some_input_failed);
  if (!modules) return k_exit_input_error;

  std::optional<cost::Profile> profile;
  if (!read_profile_option(options.profile, profile, err)) return k_exit_input_error;
  ScopedAnalysisLimits limit(options.isl_max_operations, options.time_limit_per_instruction,
                             options.work_budget_per_instruction);
  std::vector<ModuleRows> shown;
  std::vector<std::size_t> shown_module;  // index in *modules of each shown
  std::size_t rows = 0;
  {
    Progress progress(err, "hlo-index summary", progress_wanted(options.format));  // erased before the table
    analysis::SummaryRequest request = summary_request(options, *filter, progress, *modules, device->get());
    if (profile) request.profile = &*profile;
    std::vector<analysis::ModuleSummary> by_module = analysis::summarise_modules(*modules, request);
    for (std::size_t k = 0; k < modules->size(); ++k) {
      if (!filter->accepts_module((*modules)[k])) continue;
      ModuleRows m = module_rows((*modules)[k], std::move(by_module[k]), *sort, options.top, group_by,
                                 options.format == "text" && !options.every_row && !group_by);
      rows += m.total_rows;
      shown.push_back(std::move(m));
      shown_module.push_back(k);
    }
  }
  const std::string filters = filter_text(options);
  if (!filters.empty() && rows == 0) {
    err << fmt::format("hlo-index: error: no {} matches {} (in {})\n", what(options.all_instructions), filters,
                       cost::plural(modules->size(), "module"));
    return k_exit_input_error;
  }
  // --tiles: the best tiling of each fusion row shown (hlo-index tile's search).
  std::vector<std::vector<tiles::BestTiling>> tilings(shown.size());
  for (std::size_t k = 0; options.tiles && k < shown.size(); ++k) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> fusions;
    for (const SummaryRow& row : shown[k].rows)
      if (row.kind != "-") fusions.emplace_back(row.computation_index, row.instruction_index);
    const hlo::Module& module = (*modules)[shown_module[k]];
    tilings[k] = tiles::best_tilings(module, fusions, cost::device_for(module, device->get()));
  }
  if (options.format == "text") {
    render_text(shown, options, out);
    for (std::size_t k = 0; options.tiles && k < shown.size(); ++k)
      out << best_tilings_text((*modules)[shown_module[k]], tilings[k], *shown[k].device);
  } else if (options.format == "json")
    render_json(shown, options, tilings, out);
  else if (!options.group_by.empty())
    render_group_csv(shown, options.group_by, out);
  else
    render_csv(shown, tilings, options.tiles, out);
  return exit_code_after_input(some_input_failed, k_exit_ok, err);
}

}  // namespace hlo_index::app

// The page of `hlo-index report`: one self-contained HTML document (inline
// CSS, a few lines of inline JavaScript to sort the table, inline SVG; no
// network reference) with, per distinct module: its figures and where the
// time goes (by bound, a roofline, by framework op), the heaviest kinds of
// fusion each opening its detail (HLO, operands with pictures, findings),
// the sortable summary table and the lint findings.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "indexing/cost/cost_model.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "indexing/verdicts/summary.hpp"

namespace hlo_index::app {

/// One operand of a detailed row: what it reads, and a picture when the
/// reads have a shape worth seeing (part of the operand, elements read more
/// than once, a stride); else `reads` says so ("every element read once").
struct ReportOperand {
  std::string name, shape;
  std::string reads;  // one line
  std::string svg;    // empty: no picture
  std::string picture_summary;
};

/// A row opened in detail: the first in the sort order of the rows with its
/// identity (analysis/fingerprint.hpp: repeated layers are one), with the HLO
/// it runs, its operands and its findings.
struct ReportDetail {
  std::string anchor;               // the id on the page
  analysis::SummaryRow row;         // the first of its kind
  std::size_t copies = 1;           // rows of this identity
  double seconds = 0, share = 0;    // over all copies
  std::vector<std::string> others;  // names of the other copies (the first few)
  /// The instruction's line and, for a fusion, its fused computation: line number and text.
  std::vector<std::pair<std::size_t, std::string>> hlo;
  std::size_t hlo_left_out = 0;  // lines past the page's limit
  std::vector<ReportOperand> operands;
};

struct ReportModule {
  std::string name, file;
  std::vector<std::string> identical;      // the other modules of the same structure: "name (file:line)"
  std::vector<analysis::SummaryRow> rows;  // sorted; at most the page's max_rows
  std::size_t total_rows = 0;              // before max_rows
  std::int64_t read = 0, written = 0;
  cost::CostTotals totals;                      // the module's estimated time, over every instruction that runs
  std::string device;                           // the device the times are for
  std::vector<analysis::LintFinding> findings;  // sorted
  std::array<double, 5> seconds_by_bound{};     // the rows' time by what bounds it (cost::Bound order)
  std::string roofline;                         // HTML (report_charts.hpp)
  std::string op_tree;                          // HTML (report_charts.hpp)
  std::vector<ReportDetail> details;            // the heaviest kinds of row, in sort order
  std::map<std::string, std::string> links;     // row name -> the anchor of its detail
  std::optional<double> measured_seconds;       // with a profile (analysis::ModuleSummary)
  double estimated_seconds_measured = 0;
  std::size_t profile_steps = 0;
};

struct ReportPage {
  std::vector<std::string> files;
  std::string target;  // as given, or "detected"
  std::string sort;    // the column rows are sorted by
  bool all_instructions = false;
  bool profile = false;  // a `measured` column after `time`
  std::vector<ReportModule> modules;
};

/// The whole page (deterministic bytes; every text escaped).
std::string report_html(const ReportPage& page);

}  // namespace hlo_index::app

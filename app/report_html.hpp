// The page of `hlo-index report`: one self-contained HTML document (inline
// CSS, a few lines of inline JavaScript to sort the table, inline SVG; no
// network reference) with, per module, the summary table, the lint findings
// and the pictures of the heaviest fusions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "indexing/cost/cost_model.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "indexing/verdicts/summary.hpp"

namespace hlo_index::app {

struct ReportPicture {
  std::string instruction;
  std::size_t line = 0;
  std::string summary;  // one line, as `hlo-index picture` prints it
  std::string svg;
};

struct ReportModule {
  std::string name, file;
  std::vector<analysis::SummaryRow> rows;  // sorted; at most the page's max_rows
  std::size_t total_rows = 0;              // before max_rows
  std::int64_t read = 0, written = 0;
  cost::CostTotals totals;                      // the module's estimated time, over every instruction that runs
  std::string device;                           // the device the times are for
  std::vector<analysis::LintFinding> findings;  // sorted
  std::vector<ReportPicture> pictures;          // in row order
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

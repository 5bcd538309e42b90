// `hlo-index summary`: one row of figures per fusion (or per analysed
// instruction), for finding the few fusions of a large dump that matter:
// the estimated time on a device and its share of the module's, what bounds
// it, FLOPs, bytes moved from and to device memory, arithmetic intensity,
// worst utilisation, highest read multiplicity, the access verdict, lint
// findings and whether the maps are exact; per module the totals over every
// instruction that runs. Rendering is the app's (app/summary_command.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/analysis/access_verdict.hpp"
#include "indexing/analysis/dump_stage.hpp"
#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/instruction_filter.hpp"
#include "indexing/analysis/read_patterns.hpp"
#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/cost/cost_model.hpp"
#include "indexing/cost/profile.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

struct SummaryRow {
  std::string file;  // the module's file, as given
  std::size_t line = 0, column = 0;
  std::string module, computation, name;
  std::uint32_t computation_index = 0, instruction_index = 0;  // in the module
  /// What the instruction is, names aside (analysis/fingerprint.hpp): equal for a model's repeated layers.
  std::uint64_t identity = 0;
  std::string kind;  // fusion kind (kLoop, ...), else "-"
  std::string opcode;
  std::string output_shape;
  std::string op_name;            // metadata op_name (analysis/source_info.hpp); empty: none
  std::string source;             // metadata source_file:source_line; empty: none
  std::int64_t output_bytes = 0;  // written, packed
  std::int64_t bytes_read = 0;    // distinct elements read, over operands (upper bounds with runtime offsets)
  /// Every read times its element size, over operands and maps: the work of
  /// reading (a broadcast operand counts once per output element), not memory traffic.
  std::int64_t logical_read_bytes = 0;
  bool counts_exact = true;                 // false: some count is an upper bound (runtime offsets, approximate maps)
  std::optional<double> worst_utilisation;  // lowest over counted operands; none: no operand counted
  std::optional<double> highest_multiplicity;  // likewise, highest
  AccessVerdict access;
  std::size_t lint_findings = 0;                // every lint rule, default thresholds
  std::vector<LintFinding> findings;            // those findings, with SummaryRequest::keep_findings; sorted
  bool approximate = false, undefined = false;  // some map is

  // The cost on the module's device (indexing/cost/cost_model.hpp).
  cost::InstructionCost cost;  // one run
  cost::Executions runs;       // runs per run of the module
  double share = 0;            // of the module's estimated time (seconds x runs)
  double seconds() const { return cost.seconds * runs.count; }
  /// Measured in a profile (SummaryRequest::profile), per device and run of the module; none: no
  /// event joined the row.
  std::optional<double> measured_seconds;
  std::size_t measured_events = 0;
};

/// One module's rows, and the cost totals over every instruction that runs
/// in it (not only the rows: the shares are of the whole module).
struct ModuleSummary {
  /// A dump taken before optimisation has no fusions: its rows are every
  /// instruction, as with all_instructions.
  DumpStage stage;
  std::vector<SummaryRow> rows;  // those the filter selects, in program order
  cost::CostTotals totals;
  const cost::Device* device = nullptr;
  /// With a profile: the measured time that joined this module's instructions, per device (rows or
  /// not), and the estimated time of the instructions it joined, to compare like with like.
  std::optional<double> measured_seconds;
  double estimated_seconds_measured = 0;
  std::size_t profile_steps = 0;  // runs of the module the profile holds (measured times are per run)
};

struct SummaryRequest {
  bool all_instructions = false;  // every instruction of the analysed computations, not only fusions
  InstructionFilter filter;
  indexing::AnalysisOptions analysis;
  std::optional<Target> target;          // the access verdicts' target; none: detected from the module
  const cost::Device* device = nullptr;  // the costs' device; null: the default of the module's target
  unsigned jobs = 1;                     // threads (ordered_work.hpp); 0: one per hardware thread
  /// A profiler's trace of the modules' runs: measured time beside the estimates; may be null.
  const cost::Profile* profile = nullptr;
  /// Per module: 1 leaves it out (no rows, no totals: a copy of another, shown once); empty: none.
  std::vector<char> skip_modules;
  /// Keep each row's lint findings (SummaryRow::findings), not only their number (report).
  bool keep_findings = false;
  /// Called on the calling thread with the module index of each row, in order (progress); may be empty.
  std::function<void(std::size_t module)> on_row;
};

/// The rows of each module (none when the filter rejects the module), in
/// program order.
/// With a profile, also the profile joined to the modules in `join` (when not null).
std::vector<ModuleSummary> summarise_modules(std::span<const hlo::Module> modules, const SummaryRequest& request,
                                             cost::ProfileJoin* join = nullptr);
/// The rows of one module; `fingerprints`: the module's, when the caller has them (else worked
/// out here).
ModuleSummary summarise_module(const hlo::Module& module, const SummaryRequest& request,
                               const ModuleFingerprints* fingerprints = nullptr);

enum class SummaryColumn {
  kTime,
  kMeasured,
  kFlops,
  kBytes,
  kIntensity,
  kLogicalReads,
  kRead,
  kWritten,
  kUtilisation,
  kMultiplicity,
  kAccess,
  kLint,
  kLine,
  kName,
  kComputation,
  kModule,
  kKind,
  kOpcode,
};

/// Column names as --sort takes them, in SummaryColumn order.
const std::vector<std::string_view>& summary_column_names();
std::optional<SummaryColumn> find_summary_column(std::string_view name);

/// Most interesting first: time, measured time, FLOPs, bytes, intensity, sizes,
/// multiplicity, access, lint findings descending; utilisation ascending;
/// line and names ascending. Rows without a value go last; ties by file,
/// line, then name.
void sort_rows(std::vector<SummaryRow>& rows, SummaryColumn column);

}  // namespace hlo_index::analysis

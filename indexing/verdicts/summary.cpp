#include "indexing/verdicts/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <utility>

#include "indexing/analysis/access_target.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/instruction_report.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/source_info.hpp"
#include "indexing/analysis/source_position.hpp"
#include "indexing/analysis/utilisation.hpp"
#include "indexing/verdicts/linter.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::analysis {

namespace {

using indexing::IndexingMap;
using indexing::InstructionIndexing;

void add_counts(const InstructionUtilisation& usage, SummaryRow& row) {
  row.output_bytes = usage.bytes_written;
  for (const OperandUtilisation& u : usage.operands) {
    if (!u.defined()) continue;
    row.bytes_read = simplify::saturating_add(row.bytes_read, u.bytes_read());
    row.logical_read_bytes = simplify::saturating_add(row.logical_read_bytes, u.read_traffic_bytes());
    row.counts_exact = row.counts_exact && u.distinct_read.exact && u.total_reads.exact && !u.depends_on_runtime;
    if (u.operand_elements == 0 || u.distinct_read.value == 0) continue;
    const double utilisation = u.utilisation(), multiplicity = u.multiplicity();
    if (!row.worst_utilisation || utilisation < *row.worst_utilisation) row.worst_utilisation = utilisation;
    if (!row.highest_multiplicity || multiplicity > *row.highest_multiplicity) row.highest_multiplicity = multiplicity;
  }
}

void note_maps(const InstructionIndexing& indexing, SummaryRow& row) {
  for (const auto& per_output : indexing.output_to_input) {
    for (const auto& [j, set] : per_output.stored()) {
      for (const IndexingMap& m : set) {
        row.undefined = row.undefined || m.is_undefined();
        row.approximate = row.approximate || m.approximate();
      }
    }
  }
  row.counts_exact = row.counts_exact && !row.approximate;
}

// The lint counts over the instructions of one module: layers repeat, and
// linting costs far more than analysing. Keys are interned map ids and
// interned shape ids, never printed text. (Counts are memoised by
// ModuleAnalysis.)
class SummaryMemo {
public:
  explicit SummaryMemo(ModuleAnalysis& analysis) : m_maps(analysis.offsets().maps()) {}

  /// The number of lint findings. The rules look at the maps and the shapes
  /// (layouts included), so an instruction with the same opcode, kind,
  /// shapes and maps as one linted before has as many findings, except where
  /// low-utilisation looks around: at the other users of an operand read in
  /// part (a split is no waste) and at the producers of runtime offsets (per
  /// device); such instructions are linted on their own. A rule that reads
  /// anything else must extend this key.
  /// With `keep`, the findings themselves go to `kept` (linted again on a memo hit with
  /// findings: they name the instruction).
  std::size_t lint_findings(Linter& linter, const hlo::Module& module, std::uint32_t ci, std::uint32_t ii,
                            const InstructionIndexing& indexing, const InstructionUtilisation& counted, bool keep,
                            std::vector<LintFinding>& kept) {
    auto lint = [&] {
      std::vector<LintFinding> found = linter.lint(ci, ii, indexing);
      const std::size_t count = found.size();
      if (keep) {
        std::sort(found.begin(), found.end());
        kept = std::move(found);
      }
      return count;
    };
    const bool findings_from_key_alone =
        std::all_of(counted.operands.begin(), counted.operands.end(), [](const OperandUtilisation& u) {
          return !u.defined() || (!u.depends_on_runtime && u.distinct_read.exact &&
                                  u.distinct_read.value == u.operand_elements * u.replicas);
        });
    if (!findings_from_key_alone) return lint();
    const hlo::Computation& c = module.computations[ci];
    const hlo::Instruction& instr = c.instructions[ii];
    std::string head(module.opcode_text(instr));
    if (auto kind = c.attribute(instr, "kind")) head.append("|").append(*kind);
    std::vector<std::uint32_t> ids{instr.shape};
    for (std::uint32_t operand : c.operands_of(instr)) ids.push_back(c.instructions[operand].shape);
    for (std::size_t k = 0; k < indexing.output_to_input.size(); ++k) {
      for (const auto& [j, set] : indexing.output_to_input[k].stored()) {
        if (set.empty()) continue;
        ids.insert(ids.end(), {static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(j),
                               static_cast<std::uint32_t>(set.size())});
        for (const IndexingMap& m : set) ids.push_back(m_maps.intern(m));
      }
    }
    auto [it, inserted] = m_lint.try_emplace({std::move(head), std::move(ids)}, 0);
    if (inserted || (keep && it->second > 0)) it->second = lint();
    return it->second;
  }

private:
  MapInterner& m_maps;
  std::map<std::pair<std::string, std::vector<std::uint32_t>>, std::size_t> m_lint;
};

SummaryRow summary_row(ModuleAnalysis& analysis, Linter& linter, SummaryMemo& memo, cost::CostModel& costs,
                       const ModuleSources& sources, const ModuleFingerprints& identities, std::uint32_t ci,
                       std::uint32_t ii, bool keep_findings) {
  const hlo::Module& module = analysis.module();
  const hlo::Computation& c = module.computations[ci];
  const hlo::Instruction& instr = c.instructions[ii];
  SummaryRow row;
  row.file = module.source ? module.source->name() : std::string();
  const SourcePosition at = source_position(module, instr);
  row.line = at.line;
  row.column = at.column;
  row.module = std::string(module.name);
  row.computation = std::string(c.name);
  row.name = std::string(instr.name);
  row.computation_index = ci;
  row.instruction_index = ii;
  row.identity = identities.hash(ci, ii);
  const std::optional<std::string_view> kind = c.attribute(instr, "kind");
  row.kind = instr.opcode == hlo::Opcode::kFusion && kind ? std::string(*kind) : std::string("-");
  row.opcode = std::string(module.opcode_text(instr));
  row.output_shape = hlo::to_string(module.shape_of(instr));
  const SourceInfo source = sources.of(ci, ii);
  row.op_name = source.op_name;
  row.source = source.location();
  const InstructionIndexing indexing = analysis.indexing(ci, ii, true, false);
  note_maps(indexing, row);
  const InstructionUtilisation counted = instruction_utilisation(analysis, ci, ii, indexing);
  add_counts(counted, row);
  // The access models do not describe how XLA's matmul emitters read (they
  // tile the operands themselves; the uncoalesced-read rule skips them too),
  // so a dot's or convolution's verdict would only mislead.
  row.access = matmul_emitted(module, c, instr)
                   ? AccessVerdict{.text = "matmul"}
                   : access_verdict(read_patterns(module, c, instr, indexing, analysis.offsets(), analysis.patterns()));
  row.lint_findings = memo.lint_findings(linter, module, ci, ii, indexing, counted, keep_findings, row.findings);
  row.runs = costs.executions(ci);
  // A reducer's or comparator's instruction runs inside the op that applies it: no cost of its own.
  if (row.runs.count > 0) row.cost = costs.cost(ci, ii, indexing, counted);
  return row;
}

template <typename T>
int compare(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Rows without a value sort after those with one, whatever the direction.
int compare_optional(const std::optional<double>& a, const std::optional<double>& b, bool descending) {
  if (!a || !b) return compare(!a, !b);
  return descending ? compare(*b, *a) : compare(*a, *b);
}

int compare_by(const SummaryRow& a, const SummaryRow& b, SummaryColumn column) {
  switch (column) {
    case SummaryColumn::kTime: return compare(b.seconds(), a.seconds());
    case SummaryColumn::kMeasured: return compare_optional(a.measured_seconds, b.measured_seconds, true);
    case SummaryColumn::kFlops: return compare(b.cost.flops, a.cost.flops);
    case SummaryColumn::kBytes: return compare(b.cost.device_bytes(), a.cost.device_bytes());
    case SummaryColumn::kIntensity: return compare(b.cost.intensity(), a.cost.intensity());
    case SummaryColumn::kLogicalReads: return compare(b.logical_read_bytes, a.logical_read_bytes);
    case SummaryColumn::kRead: return compare(b.bytes_read, a.bytes_read);
    case SummaryColumn::kWritten: return compare(b.output_bytes, a.output_bytes);
    case SummaryColumn::kUtilisation: return compare_optional(a.worst_utilisation, b.worst_utilisation, false);
    case SummaryColumn::kMultiplicity: return compare_optional(a.highest_multiplicity, b.highest_multiplicity, true);
    case SummaryColumn::kAccess: return compare_access(a.access, b.access);
    case SummaryColumn::kLint: return compare(b.lint_findings, a.lint_findings);
    case SummaryColumn::kLine: return 0;  // the tie-break below
    case SummaryColumn::kName: return compare(a.name, b.name);
    case SummaryColumn::kComputation: return compare(a.computation, b.computation);
    case SummaryColumn::kModule: return compare(a.module, b.module);
    case SummaryColumn::kKind: return compare(a.kind, b.kind);
    case SummaryColumn::kOpcode: return compare(a.opcode, b.opcode);
  }
  return 0;
}

}  // namespace

namespace {

// One worker's analyses of one module.
struct SummaryState {
  SummaryState(const hlo::Module& module, const SummaryRequest& request)
      : analysis(module, request.analysis),
        linter(analysis, every_rule(), LintThresholds{}),
        memo(analysis),
        costs(analysis, cost::device_for(module, request.device)),
        sources(module) {
    analysis.patterns().set_target(request.target);
    linter.set_target(request.target);
    linter.share_costs(costs);  // one cost model: the rows' device, each instruction costed once
  }
  static LintRuleSet every_rule() {
    LintRuleSet rules;
    rules.set();
    return rules;
  }
  ModuleAnalysis analysis;
  Linter linter;
  SummaryMemo memo;
  cost::CostModel costs;
  ModuleSources sources;
  // The module's fingerprints: given, or worked out with the first row (a module without rows needs none).
  const ModuleFingerprints* identities = nullptr;
  std::optional<ModuleFingerprints> own_identities;
};

// A row, or only the cost of an instruction the filter leaves out (for the module's totals).
struct SummaryItem {
  std::optional<SummaryRow> row;
  cost::InstructionCost cost;
  cost::Executions runs;
};

void add_measured(std::span<const hlo::Module> modules, const cost::Profile& profile, std::vector<ModuleSummary>& out,
                  cost::ProfileJoin* keep) {
  cost::ProfileJoin join = profile.join(modules);
  for (std::size_t m = 0; m < out.size() && m < join.times.size(); ++m) {
    ModuleSummary& summary = out[m];
    if (join.times[m].empty()) continue;
    // Like for like: per device (the estimates are for one) and per run of the module.
    std::set<std::string_view> once;
    for (const SummaryRow& row : summary.rows)
      if (row.runs.exact && row.runs.count == 1) once.insert(row.name);
    summary.profile_steps = join.runs_of_module(m, [&](std::string_view name) { return once.count(name) > 0; });
    auto per_run = [&](const cost::MeasuredTime& time) {
      return time.seconds / static_cast<double>(std::max<std::size_t>(1, time.devices)) /
             static_cast<double>(summary.profile_steps);
    };
    summary.measured_seconds = join.module_seconds[m] /
                               static_cast<double>(std::max<std::size_t>(1, join.module_devices[m])) /
                               static_cast<double>(summary.profile_steps);
    for (SummaryRow& row : summary.rows) {
      const std::optional<cost::MeasuredTime> time = join.measured(m, row.name);
      if (!time) continue;
      row.measured_seconds = per_run(*time);
      row.measured_events = time->events;
      summary.estimated_seconds_measured += row.seconds();
    }
  }
  if (keep != nullptr) *keep = std::move(join);
}

}  // namespace

namespace {

// summarise_modules; `fingerprints`: those of the one module, when the caller has them.
std::vector<ModuleSummary> summarise(std::span<const hlo::Module> modules, const SummaryRequest& request,
                                     cost::ProfileJoin* join, const ModuleFingerprints* fingerprints) {
  std::vector<ModuleSummary> out(modules.size());
  // Every instruction that runs in the computations the module's runs reach (the totals), each
  // a row when the filter selects it.
  InstructionFilter modules_only;
  modules_only.modules = request.filter.modules;
  std::vector<WorkItem> items = linted_items(modules, modules_only, true);
  auto skipped = [&](std::size_t m) { return m < request.skip_modules.size() && request.skip_modules[m] != 0; };
  std::erase_if(items, [&](const WorkItem& item) { return skipped(item.module); });
  for (std::size_t m = 0; m < modules.size(); ++m)
    if (!skipped(m) && request.filter.accepts_module(modules[m])) out[m].stage = dump_stage(modules[m]);
  std::vector<char> shown(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    const WorkItem& item = items[k];
    const hlo::Module& module = modules[item.module];
    const hlo::Computation& c = module.computations[item.computation];
    const hlo::Instruction& i = c.instructions[item.instruction];
    const bool every = request.all_instructions || out[item.module].stage.before_optimisation;
    shown[k] = static_cast<char>(request.filter.accepts_computation(c) && linted_instruction(i, every) &&
                                 request.filter.accepts_instruction(module, c, i));
  }
  for (std::size_t m = 0; m < modules.size(); ++m) out[m].device = &cost::device_for(modules[m], request.device);
  // Rows are large: each module's vector sized once (30,000 rows on a dump before optimisation).
  std::vector<std::size_t> rows_of(modules.size());
  for (std::size_t k = 0; k < items.size(); ++k) rows_of[items[k].module] += shown[k] != 0 ? 1 : 0;
  for (std::size_t m = 0; m < modules.size(); ++m) out[m].rows.reserve(rows_of[m]);
  run_in_program_order(
      items, resolve_jobs(request.jobs),
      [&](std::size_t module) {
        auto state = std::make_unique<SummaryState>(modules[module], request);
        state->identities = fingerprints;
        return state;
      },
      [&](SummaryState& state, const WorkItem& item) {
        SummaryItem result;
        const std::size_t k = static_cast<std::size_t>(&item - items.data());
        if (shown[k]) {
          if (state.identities == nullptr)
            state.identities = &state.own_identities.emplace(modules[item.module], state.sources);
          result.row = summary_row(state.analysis, state.linter, state.memo, state.costs, state.sources,
                                   *state.identities, item.computation, item.instruction, request.keep_findings);
          result.cost = result.row->cost;
          result.runs = result.row->runs;
        } else {
          result.runs = state.costs.executions(item.computation);
          result.cost = state.costs.cost(item.computation, item.instruction);
        }
        return result;
      },
      [&](std::size_t k, SummaryItem&& result) {
        ModuleSummary& m = out[items[k].module];
        m.totals.add(result.cost, result.runs);
        if (!result.row) return;
        if (request.on_row) request.on_row(items[k].module);
        m.rows.push_back(std::move(*result.row));
      });
  for (ModuleSummary& m : out) {
    for (SummaryRow& row : m.rows) row.share = m.totals.seconds > 0 ? row.seconds() / m.totals.seconds : 0;
  }
  if (request.profile != nullptr) add_measured(modules, *request.profile, out, join);
  return out;
}

}  // namespace

std::vector<ModuleSummary> summarise_modules(std::span<const hlo::Module> modules, const SummaryRequest& request,
                                             cost::ProfileJoin* join) {
  return summarise(modules, request, join, nullptr);
}

ModuleSummary summarise_module(const hlo::Module& module, const SummaryRequest& request,
                               const ModuleFingerprints* fingerprints) {
  return std::move(summarise(std::span<const hlo::Module>(&module, 1), request, nullptr, fingerprints).front());
}

const std::vector<std::string_view>& summary_column_names() {
  static const std::vector<std::string_view> k_names = {
      "time",         "measured", "flops", "bytes", "intensity", "logical-reads", "read",   "written", "utilisation",
      "multiplicity", "access",   "lint",  "line",  "name",      "computation",   "module", "kind",    "opcode"};
  return k_names;
}

std::optional<SummaryColumn> find_summary_column(std::string_view name) {
  const auto& names = summary_column_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) return std::nullopt;
  return static_cast<SummaryColumn>(it - names.begin());
}

void sort_rows(std::vector<SummaryRow>& rows, SummaryColumn column) {
  // Positions are sorted and the rows moved once: a row is large (strings, findings), and
  // a merge sort moves each row about log2(n) times (30,000 rows on a dump before optimisation).
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&rows, column](std::size_t x, std::size_t y) {
    const SummaryRow& a = rows[x];
    const SummaryRow& b = rows[y];
    if (const int by = compare_by(a, b, column); by != 0) return by < 0;
    return std::tie(a.file, a.line, a.column, a.module, a.computation, a.name) <
           std::tie(b.file, b.line, b.column, b.module, b.computation, b.name);
  });
  // In place, cycle by cycle: row order[k] goes to position k.
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (order[k] == k) continue;
    SummaryRow moving = std::move(rows[k]);
    std::size_t at = k;
    while (order[at] != k) {
      rows[at] = std::move(rows[order[at]]);
      const std::size_t next = order[at];
      order[at] = at;
      at = next;
    }
    rows[at] = std::move(moving);
    order[at] = at;
  }
}

}  // namespace hlo_index::analysis

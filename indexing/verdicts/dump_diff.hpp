// `hlo-index diff OLD NEW`: the fusions of two dumps of one program matched
// up, and the summary figures (indexing/analysis/summary) that changed. A
// recompiled program renumbers and reorders its fusions, so names alone do not
// match them: fusions pair first by their stable fingerprint
// (analysis/fingerprint.hpp), then by structure alone, then by canonical name
// when only the layouts or the ops that move data (transpose, copy, ...)
// differ; then a fusion split in several, or several merged into one
// (fusion_matching.hpp). A regression is a change beyond both the relative
// threshold and an absolute floor (estimated time, bytes), so that noise never
// fails CI. Rendering is the app's (app/diff_command.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "indexing/verdicts/summary.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

/// One fusion (or analysed instruction) of a dump, with what matching needs.
struct DiffEntry {
  SummaryRow row;
  std::string canonical;  // canonical computation/instruction name (parser/canonical_names)
  std::string structure;  // kind, sorted fused opcodes, operand and output shapes with layouts
  std::string signature;  // kind, fused opcodes that do arithmetic, operand and output shapes without layouts
  std::string shapes;     // "(operand shapes) -> output shape", with layouts
  std::vector<std::string> fused_opcodes;  // sorted
  std::string fingerprint;                 // the instruction's stable identity (analysis/fingerprint.hpp)
  std::string identity;                    // its hash without the occurrence: identical fusions pair in order
  /// The fused ops that compute (not those that only move data), each as `opcode` or
  /// `opcode@op_name`, sorted: what the parts of a split fusion add up to.
  std::vector<std::string> op_tokens;
  std::vector<std::string> computing_opcodes;  // the same ops, opcodes only (metadata differs between dumps)
};

/// The entries of one module, in program order (summarise_module's rows);
/// `totals`, when given, receives the module's cost totals.
std::vector<DiffEntry> diff_entries(const hlo::Module& module, const SummaryRequest& request,
                                    cost::CostTotals* totals = nullptr);

/// One figure of a changed fusion, as text, before and after.
struct FigureChange {
  std::string figure;  // bytes_read, logical_reads, utilisation, multiplicity, access, maps, lint_findings
  std::string before, after;
  std::optional<double> relative;  // (after - before) / before for byte counts and times with before > 0
  bool regression = false;
  /// Why an increase is or is not a regression: the relative change against the threshold
  /// and the absolute one against the floor ("+172% > 5% and +1.9 us >= 1 us"); empty otherwise.
  std::string why;
};

enum class MatchedBy { kFingerprint, kStructure, kNameOnly };
std::string_view matched_by_name(MatchedBy by);

struct FusionChange {
  const DiffEntry* before = nullptr;
  const DiffEntry* after = nullptr;
  MatchedBy matched_by = MatchedBy::kFingerprint;
  std::vector<std::string> ops_removed, ops_added;  // fused opcodes, by multiset difference
  bool shapes_changed = false;                      // operand or output shapes (layouts included)
  std::vector<FigureChange> figures;
  bool regression() const;
};

/// A regression must pass both: the relative increase and the absolute floor of its kind.
struct DiffThresholds {
  double relative_increase = 0.05;  // of a time or byte count, per fusion and per module
  double min_seconds = 1e-6;        // the time floor: estimated time over the runs
  double min_time_share = 0;        // the time floor as a share of the module's estimated time (larger one wins)
  std::int64_t min_bytes = std::int64_t{1} << 20;  // the bytes floor, also of an access verdict getting worse
};

/// Totals over a module's entries, for the module line.
struct DiffTotals {
  std::int64_t logical_read_bytes = 0, bytes_read = 0;
  std::int64_t bytes_written = 0;  // to device memory, over the runs
  std::size_t lint_findings = 0;
  bool counts_exact = true;  // false: some count is an upper bound
  double seconds = 0;        // the module's estimated time (every instruction, not only the entries)
};

/// A fusion split in several, or several merged into one, with the cost before and after.
struct Regroup {
  std::vector<const DiffEntry*> before, after;  // program order
  std::vector<FigureChange> figures;            // fusions, time, bytes_written, bytes_read
  bool split() const { return before.size() == 1; }
  bool regression() const;
};

struct ModuleDiff {
  std::string old_name, new_name;
  std::vector<DiffEntry> old_entries, new_entries;
  std::vector<const DiffEntry*> removed, added;  // program order
  std::vector<FusionChange> changed;             // in the new dump's order
  std::vector<Regroup> regrouped;                // splits and merges
  std::size_t matched = 0, matched_by_structure = 0;
  DiffTotals old_totals, new_totals;  // set old_totals.seconds and new_totals.seconds before diff_modules
  double time_floor = 0;              // seconds: the larger of the thresholds' two time floors
  /// fusions, time, bytes_written, bytes_read, logical_reads, lint_findings: the ones that changed.
  std::vector<FigureChange> totals;
  bool regression() const;
  bool same() const { return removed.empty() && added.empty() && changed.empty() && regrouped.empty(); }
};

/// Matches the entries of two modules and compares the pairs. Pointers in the
/// result point into its own entry vectors: do not copy a ModuleDiff after
/// this (move it, which keeps the vectors' buffers).
void diff_modules(ModuleDiff& diff, const DiffThresholds& thresholds);

}  // namespace hlo_index::analysis

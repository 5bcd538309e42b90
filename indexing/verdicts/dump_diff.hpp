// `hlo-index diff OLD NEW`: the fusions of two dumps of one program matched
// up, and the summary figures (indexing/analysis/summary) that changed. A
// recompiled program renumbers and reorders its fusions, so names alone do not
// match them: fusions pair first by canonical name and structure, then by
// structure alone, then by canonical name when only the layouts or the ops
// that move data (transpose, copy, ...) differ. Rendering is the app's (app/diff_command.cpp).
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
};

/// The entries of one module, in program order (summarise_module's rows).
std::vector<DiffEntry> diff_entries(const hlo::Module& module, const SummaryRequest& request);

/// One figure of a changed fusion, as text, before and after.
struct FigureChange {
  std::string figure;  // bytes_read, logical_reads, utilisation, multiplicity, access, maps, lint_findings
  std::string before, after;
  std::optional<double> relative;  // (after - before) / before for byte counts with before > 0
  bool regression = false;
};

enum class MatchedBy { kName, kStructure, kNameOnly };
std::string_view matched_by_name(MatchedBy by);

struct FusionChange {
  const DiffEntry* before = nullptr;
  const DiffEntry* after = nullptr;
  MatchedBy matched_by = MatchedBy::kName;
  std::vector<std::string> ops_removed, ops_added;  // fused opcodes, by multiset difference
  bool shapes_changed = false;                      // operand or output shapes (layouts included)
  std::vector<FigureChange> figures;
  bool regression() const;
};

struct DiffThresholds {
  double relative_increase = 0.05;  // of bytes read or read traffic, per fusion and per module
};

/// Totals over a module's entries, for the module line.
struct DiffTotals {
  std::int64_t logical_read_bytes = 0, bytes_read = 0;
  std::size_t lint_findings = 0;
  bool counts_exact = true;  // false: some count is an upper bound
};

struct ModuleDiff {
  std::string old_name, new_name;
  std::vector<DiffEntry> old_entries, new_entries;
  std::vector<const DiffEntry*> removed, added;  // program order
  std::vector<FusionChange> changed;             // in the new dump's order
  std::size_t matched = 0, matched_by_structure = 0;
  DiffTotals old_totals, new_totals;
  std::vector<FigureChange> totals;  // logical_reads, bytes_read, lint_findings: the ones that changed
  bool regression() const;
  bool same() const { return removed.empty() && added.empty() && changed.empty(); }
};

/// Matches the entries of two modules and compares the pairs. Pointers in the
/// result point into its own entry vectors: do not copy a ModuleDiff after
/// this (move it, which keeps the vectors' buffers).
void diff_modules(ModuleDiff& diff, const DiffThresholds& thresholds);

}  // namespace hlo_index::analysis

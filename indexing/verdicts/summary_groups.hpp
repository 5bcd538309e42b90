// Summary rows added up the ways a performance engineer asks "where does the
// time go": by framework op (the metadata op_name path, a hierarchy like
// xprof's op profile: `jit(train_step)/while/body/dot_general`), by source
// line, by computation, by module; and repeated layers (rows of one identity)
// folded into one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/verdicts/summary.hpp"

namespace hlo_index::analysis {

/// The rows' figures added up: time over every run, FLOPs and bytes per run of the module.
struct RowTotals {
  std::size_t rows = 0;
  double seconds = 0;       // SummaryRow::seconds(), summed
  double share = 0;         // of the module's estimated time, summed
  double flops = 0;         // FLOPs and transcendentals, times runs
  double device_bytes = 0;  // times runs
  std::size_t lint_findings = 0;
  bool exact = true;  // false: some row's runs or counts are bounds
  void add(const SummaryRow& row);
};

/// The node of the op_name hierarchy: its path part (`dot_general`; a chain
/// of only children is one node, `jit(f)/jit(main)`), the rows at or below
/// it, and its children, the most time first.
struct OpNameNode {
  std::string part;
  RowTotals totals;
  std::vector<OpNameNode> children;
};

/// `op_name` split at the `/` outside parentheses, with numeric suffixes
/// dropped from each part (as canonical_op_name): `jit(f)/add.5` -> {jit(f), add}.
std::vector<std::string> op_name_parts(std::string_view op_name);

/// The hierarchy of the rows' op_names, under a root whose part is empty.
/// Rows without an op_name go to the child `(no op_name)`. Children the most
/// time first (ties by part); chains of only children merged.
OpNameNode op_name_tree(const std::vector<SummaryRow>& rows);

enum class RowGrouping { kOpName, kSource, kComputation, kModule, kOpcode };
/// Names as `--group-by` takes them, in RowGrouping order.
const std::vector<std::string_view>& row_grouping_names();

struct RowGroup {
  std::string key;  // the op_name (canonical), source, computation, module or opcode; `-` for none
  RowTotals totals;
};

/// The rows grouped by `by`, the most time first (ties by key).
std::vector<RowGroup> group_rows(const std::vector<SummaryRow>& rows, RowGrouping by);

/// The rows of one identity (SummaryRow::identity: a model's repeated layers) as one.
struct FoldedRows {
  std::size_t first = 0;             // index in the rows: the first of them in their order
  std::vector<std::size_t> members;  // indices in the rows, in their order (first included)
  double seconds = 0, share = 0;     // added up
  bool exact = true;                 // false: some member's runs are a bound
};

/// `rows` (sorted) folded by identity, in the order of each kind's first row, or by their time
/// added up (the most first) with `by_time`: 32 copies of a layer's matmul come before one larger
/// fusion when together they cost more.
std::vector<FoldedRows> fold_repeats(const std::vector<SummaryRow>& rows, bool by_time);

}  // namespace hlo_index::analysis

#include "indexing/verdicts/summary_groups.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "parser/canonical_names.hpp"

namespace hlo_index::analysis {

void RowTotals::add(const SummaryRow& row) {
  ++rows;
  seconds += row.seconds();
  share += row.share;
  const double runs = static_cast<double>(row.runs.count);
  flops += static_cast<double>(row.cost.flops + row.cost.transcendentals) * runs;
  device_bytes += static_cast<double>(row.cost.device_bytes()) * runs;
  lint_findings += row.lint_findings;
  exact = exact && row.runs.exact && row.counts_exact;
}

std::vector<std::string> op_name_parts(std::string_view op_name) {
  std::vector<std::string> parts;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= op_name.size(); ++k) {
    const char c = k < op_name.size() ? op_name[k] : '/';
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    if (c != '/' || (depth > 0 && k < op_name.size())) continue;
    const std::string_view part = op_name.substr(start, k - start);
    if (!part.empty()) parts.emplace_back(parser::name_stem(part));
    start = k + 1;
  }
  return parts;
}

namespace {

// The tree while rows are added: children by part, in a map for a stable order.
struct Building {
  RowTotals totals;
  std::map<std::string, Building> children;
};

bool more_time(const OpNameNode& a, const OpNameNode& b) {
  return std::tie(b.totals.seconds, a.part) < std::tie(a.totals.seconds, b.part);
}

OpNameNode finished(std::string part, Building& b) {
  // A node with one child that holds all its rows is one step of a path: merge them.
  while (b.children.size() == 1 && b.children.begin()->second.totals.rows == b.totals.rows && !part.empty()) {
    auto only = b.children.begin();
    part += "/" + only->first;
    Building next = std::move(only->second);
    b = std::move(next);
  }
  OpNameNode node{std::move(part), b.totals, {}};
  for (auto& [name, child] : b.children) node.children.push_back(finished(name, child));
  std::sort(node.children.begin(), node.children.end(), more_time);
  return node;
}

std::string group_key(const SummaryRow& row, RowGrouping by) {
  switch (by) {
    case RowGrouping::kOpName: {
      std::string key;
      for (const std::string& part : op_name_parts(row.op_name)) key += (key.empty() ? "" : "/") + part;
      return key;
    }
    case RowGrouping::kSource: return row.source;
    case RowGrouping::kComputation: return row.computation;
    case RowGrouping::kModule: return row.module;
    case RowGrouping::kOpcode: return row.kind != "-" ? row.opcode + " " + row.kind : row.opcode;
  }
  return {};
}

}  // namespace

OpNameNode op_name_tree(const std::vector<SummaryRow>& rows) {
  Building root;
  for (const SummaryRow& row : rows) {
    root.totals.add(row);
    std::vector<std::string> parts = op_name_parts(row.op_name);
    if (parts.empty()) parts.emplace_back("(no op_name)");
    Building* at = &root;
    for (const std::string& part : parts) {
      at = &at->children[part];
      at->totals.add(row);
    }
  }
  return finished(std::string(), root);
}

const std::vector<std::string_view>& row_grouping_names() {
  static const std::vector<std::string_view> k_names = {"op_name", "source", "computation", "module", "opcode"};
  return k_names;
}

std::vector<RowGroup> group_rows(const std::vector<SummaryRow>& rows, RowGrouping by) {
  std::map<std::string, RowTotals> groups;
  for (const SummaryRow& row : rows) {
    std::string key = group_key(row, by);
    groups[key.empty() ? std::string("-") : std::move(key)].add(row);
  }
  std::vector<RowGroup> out;
  out.reserve(groups.size());
  for (auto& [key, totals] : groups) out.push_back({key, totals});
  std::stable_sort(out.begin(), out.end(),
                   [](const RowGroup& a, const RowGroup& b) { return a.totals.seconds > b.totals.seconds; });
  return out;
}

std::vector<FoldedRows> fold_repeats(const std::vector<SummaryRow>& rows, bool by_time) {
  std::vector<FoldedRows> out;
  std::map<std::uint64_t, std::size_t> kind_of;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto [it, inserted] = kind_of.try_emplace(rows[k].identity, out.size());
    if (inserted) out.push_back({k, {}, 0, 0, true});
    FoldedRows& f = out[it->second];
    f.members.push_back(k);
    f.seconds += rows[k].seconds();
    f.share += rows[k].share;
    f.exact = f.exact && rows[k].runs.exact;
  }
  if (by_time) {
    std::stable_sort(out.begin(), out.end(),
                     [](const FoldedRows& a, const FoldedRows& b) { return a.seconds > b.seconds; });
  }
  return out;
}

}  // namespace hlo_index::analysis

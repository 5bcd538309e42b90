#include "indexing/verdicts/dump_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <map>
#include <utility>

#include "indexing/verdicts/lint_rules.hpp"
#include "parser/canonical_names.hpp"

namespace hlo_index::analysis {

namespace {

constexpr std::int64_t k_max = std::numeric_limits<std::int64_t>::max();

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? k_max : sum;
}

hlo::Shape without_layout(hlo::Shape shape) {
  shape.layout.reset();
  for (hlo::Shape& element : shape.elements) element = without_layout(std::move(element));
  return shape;
}

// The opcodes a fusion evaluates: its body's, nested fusions' bodies included
// (a nested fusion is an implementation detail of the same work); parameters
// are not work. Another instruction is its own opcode.
void collect_opcodes(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& instr,
                     std::vector<std::string>& out) {
  if (instr.opcode != hlo::Opcode::kFusion) {
    out.emplace_back(module.opcode_text(instr));
    return;
  }
  for (std::uint32_t callee : c.callees_of(instr)) {
    if (callee == hlo::k_none) continue;  // a truncated dump lacks it
    const hlo::Computation& body = module.computations[callee];
    for (const hlo::Instruction& fused : body.instructions) {
      if (fused.opcode == hlo::Opcode::kParameter) continue;
      if (fused.opcode == hlo::Opcode::kFusion) {
        collect_opcodes(module, body, fused, out);
      } else {
        out.emplace_back(module.opcode_text(fused));
      }
    }
  }
}

// Ops that only move, replicate or reinterpret data, or make constants: a
// fusion that gains or loses some of these (a transpose, a copy for a new
// layout) still does the same arithmetic, so it is the same fusion, changed.
bool moves_data(std::string_view opcode) {
  static constexpr std::array<std::string_view, 14> k_moves = {
      "bitcast", "broadcast", "concatenate", "constant", "copy",      "dynamic-slice",     "iota",
      "pad",     "reshape",   "reverse",     "slice",    "transpose", "get-tuple-element", "tuple"};
  return std::find(k_moves.begin(), k_moves.end(), opcode) != k_moves.end();
}

// What matched fusions must agree on. Structure: kind, the work (fused
// opcodes) and the shapes in and out with layouts. Signature: kind, the
// arithmetic (fused opcodes that do not only move data) and the shapes
// without layouts.
void describe(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& instr, DiffEntry& e) {
  collect_opcodes(module, c, instr, e.fused_opcodes);
  std::sort(e.fused_opcodes.begin(), e.fused_opcodes.end());
  std::vector<std::string> arithmetic;
  std::copy_if(e.fused_opcodes.begin(), e.fused_opcodes.end(), std::back_inserter(arithmetic),
               [](const std::string& op) { return !moves_data(op); });
  std::vector<std::string> with_layouts, without_layouts;
  for (std::uint32_t operand : c.operands_of(instr)) {
    const hlo::Shape& shape = module.shape_of(c.instructions[operand]);
    with_layouts.push_back(hlo::to_string(shape));
    without_layouts.push_back(hlo::to_string(without_layout(shape)));
  }
  e.shapes = fmt::format("({}) -> {}", fmt::join(with_layouts, ", "), hlo::to_string(module.shape_of(instr)));
  e.signature = fmt::format("{}|{}|({}) -> {}", e.row.kind, fmt::join(arithmetic, ","),
                            fmt::join(without_layouts, ", "), hlo::to_string(without_layout(module.shape_of(instr))));
  e.structure = fmt::format("{}|{}|{}", e.row.kind, fmt::join(e.fused_opcodes, ","), e.shapes);
}

std::string maps_word(const SummaryRow& r) {
  if (r.undefined) return "undef";
  return r.approximate ? "approx" : "exact";
}

int maps_level(const SummaryRow& r) { return r.undefined ? 2 : (r.approximate ? 1 : 0); }

std::string bytes_word(std::int64_t bytes, bool exact) {
  return fmt::format("{}{}", exact ? "" : "<=", human_bytes(bytes));
}

std::string optional_word(const std::optional<double>& v, bool multiplicity) {
  if (!v) return "-";
  if (multiplicity) return *v < 1000 ? fmt::format("{:.1f}", *v) : fmt::format("{:.0f}", *v);
  return fmt::format("{:.3f}", *v);
}

// A byte count that grew by more than the threshold (or from nothing) is a regression.
void compare_bytes(std::string_view figure, std::int64_t before, bool before_exact, std::int64_t after,
                   bool after_exact, const DiffThresholds& t, std::vector<FigureChange>& out) {
  if (before == after) return;
  FigureChange f{std::string(figure), bytes_word(before, before_exact), bytes_word(after, after_exact), std::nullopt,
                 false};
  if (before > 0) {
    f.relative = (static_cast<double>(after) - static_cast<double>(before)) / static_cast<double>(before);
    f.regression = *f.relative > t.relative_increase;
  } else {
    f.regression = after > 0;
  }
  out.push_back(std::move(f));
}

void compare_text(std::string_view figure, std::string before, std::string after, bool regression,
                  std::vector<FigureChange>& out) {
  if (before == after) return;
  out.push_back(FigureChange{std::string(figure), std::move(before), std::move(after), std::nullopt, regression});
}

std::vector<FigureChange> compare_rows(const SummaryRow& a, const SummaryRow& b, const DiffThresholds& t) {
  std::vector<FigureChange> out;
  compare_bytes("logical_reads", a.logical_read_bytes, a.counts_exact, b.logical_read_bytes, b.counts_exact, t, out);
  compare_bytes("bytes_read", a.bytes_read, a.counts_exact, b.bytes_read, b.counts_exact, t, out);
  compare_text("written", human_bytes(a.output_bytes), human_bytes(b.output_bytes), false, out);
  compare_text("utilisation", optional_word(a.worst_utilisation, false), optional_word(b.worst_utilisation, false),
               false, out);
  compare_text("multiplicity", optional_word(a.highest_multiplicity, true), optional_word(b.highest_multiplicity, true),
               false, out);
  compare_text("access", a.access.text, b.access.text, b.access.rank > a.access.rank, out);
  compare_text("maps", maps_word(a), maps_word(b), maps_level(b) > maps_level(a), out);
  compare_text("lint_findings", std::to_string(a.lint_findings), std::to_string(b.lint_findings),
               b.lint_findings > a.lint_findings, out);
  return out;
}

// Multiset differences of two sorted lists: what only `a` has.
std::vector<std::string> only_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

DiffTotals totals_of(const std::vector<DiffEntry>& entries) {
  DiffTotals t;
  for (const DiffEntry& e : entries) {
    t.logical_read_bytes = saturating_add(t.logical_read_bytes, e.row.logical_read_bytes);
    t.bytes_read = saturating_add(t.bytes_read, e.row.bytes_read);
    t.lint_findings += e.row.lint_findings;
    t.counts_exact = t.counts_exact && e.row.counts_exact;
  }
  return t;
}

using Key = std::string (*)(const DiffEntry&);

// One matching pass: each unmatched old entry, in program order, takes the
// first unmatched new entry with the same key (layers repeat, so equal keys
// pair in order).
void match_by(const ModuleDiff& d, Key key, std::vector<int>& old_to_new, std::vector<bool>& new_taken,
              std::vector<MatchedBy>& how, MatchedBy by) {
  std::map<std::string, std::deque<int>> free;
  for (std::size_t n = 0; n < d.new_entries.size(); ++n) {
    if (!new_taken[n]) free[key(d.new_entries[n])].push_back(static_cast<int>(n));
  }
  for (std::size_t o = 0; o < d.old_entries.size(); ++o) {
    if (old_to_new[o] >= 0) continue;
    auto it = free.find(key(d.old_entries[o]));
    if (it == free.end() || it->second.empty()) continue;
    const int n = it->second.front();
    it->second.pop_front();
    old_to_new[o] = n;
    new_taken[static_cast<std::size_t>(n)] = true;
    how[o] = by;
  }
}

}  // namespace

std::string_view matched_by_name(MatchedBy by) {
  switch (by) {
    case MatchedBy::kName: return "name";
    case MatchedBy::kStructure: return "structure";
    case MatchedBy::kNameOnly: return "name, structure differs";
  }
  return "";
}

bool FusionChange::regression() const {
  return std::any_of(figures.begin(), figures.end(), [](const FigureChange& f) { return f.regression; });
}

bool ModuleDiff::regression() const {
  return std::any_of(changed.begin(), changed.end(), [](const FusionChange& c) { return c.regression(); }) ||
         std::any_of(totals.begin(), totals.end(), [](const FigureChange& f) { return f.regression; });
}

std::vector<DiffEntry> diff_entries(const hlo::Module& module, const SummaryRequest& request) {
  std::vector<SummaryRow> rows = summarise_module(module, request).rows;
  const parser::CanonicalNames names = parser::canonical_names(module);
  // Rows name their instruction by computation and name, unique within a module.
  std::map<std::pair<std::string_view, std::string_view>, std::pair<std::uint32_t, std::uint32_t>> where;
  for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
    const hlo::Computation& c = module.computations[ci];
    for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) where[{c.name, c.instructions[ii].name}] = {ci, ii};
  }
  std::vector<DiffEntry> entries;
  entries.reserve(rows.size());
  for (SummaryRow& row : rows) {
    DiffEntry e;
    e.row = std::move(row);
    const auto [ci, ii] = where.at({e.row.computation, e.row.name});
    const hlo::Computation& c = module.computations[ci];
    e.canonical = fmt::format("{}/{}", names.computations[ci], names.instructions[ci][ii]);
    describe(module, c, c.instructions[ii], e);
    entries.push_back(std::move(e));
  }
  return entries;
}

void diff_modules(ModuleDiff& d, const DiffThresholds& thresholds) {
  std::vector<int> old_to_new(d.old_entries.size(), -1);
  std::vector<bool> new_taken(d.new_entries.size(), false);
  std::vector<MatchedBy> how(d.old_entries.size(), MatchedBy::kName);
  match_by(
      d, [](const DiffEntry& e) { return fmt::format("{}\n{}", e.canonical, e.structure); }, old_to_new, new_taken, how,
      MatchedBy::kName);
  match_by(
      d, [](const DiffEntry& e) { return e.structure; }, old_to_new, new_taken, how, MatchedBy::kStructure);
  // Same place, same arithmetic, same shapes apart from layouts: the same
  // fusion, changed (the parts of a fusion split in two do less arithmetic
  // each, so they are added and the whole removed).
  match_by(
      d, [](const DiffEntry& e) { return fmt::format("{}\n{}", e.canonical, e.signature); }, old_to_new, new_taken, how,
      MatchedBy::kNameOnly);

  std::vector<int> new_to_old(d.new_entries.size(), -1);
  for (std::size_t o = 0; o < old_to_new.size(); ++o) {
    if (old_to_new[o] < 0) {
      d.removed.push_back(&d.old_entries[o]);
      continue;
    }
    new_to_old[static_cast<std::size_t>(old_to_new[o])] = static_cast<int>(o);
    ++d.matched;
    if (how[o] == MatchedBy::kStructure) ++d.matched_by_structure;
  }
  for (std::size_t n = 0; n < d.new_entries.size(); ++n) {
    if (new_to_old[n] < 0) {
      d.added.push_back(&d.new_entries[n]);
      continue;
    }
    const auto o = static_cast<std::size_t>(new_to_old[n]);
    FusionChange change;
    change.before = &d.old_entries[o];
    change.after = &d.new_entries[n];
    change.matched_by = how[o];
    change.ops_removed = only_in(change.before->fused_opcodes, change.after->fused_opcodes);
    change.ops_added = only_in(change.after->fused_opcodes, change.before->fused_opcodes);
    change.shapes_changed = change.before->shapes != change.after->shapes;
    change.figures = compare_rows(change.before->row, change.after->row, thresholds);
    if (!change.figures.empty() || !change.ops_removed.empty() || !change.ops_added.empty() || change.shapes_changed)
      d.changed.push_back(std::move(change));
  }
  d.old_totals = totals_of(d.old_entries);
  d.new_totals = totals_of(d.new_entries);
  const bool old_exact = d.old_totals.counts_exact, new_exact = d.new_totals.counts_exact;
  compare_bytes("logical_reads", d.old_totals.logical_read_bytes, old_exact, d.new_totals.logical_read_bytes, new_exact,
                thresholds, d.totals);
  compare_bytes("bytes_read", d.old_totals.bytes_read, old_exact, d.new_totals.bytes_read, new_exact, thresholds,
                d.totals);
  compare_text("lint_findings", std::to_string(d.old_totals.lint_findings), std::to_string(d.new_totals.lint_findings),
               d.new_totals.lint_findings > d.old_totals.lint_findings, d.totals);
}

}  // namespace hlo_index::analysis

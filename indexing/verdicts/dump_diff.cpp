#include "indexing/verdicts/dump_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "indexing/analysis/fingerprint.hpp"
#include "indexing/analysis/source_info.hpp"
#include "indexing/verdicts/fusion_matching.hpp"
#include "indexing/verdicts/lint_rules.hpp"
#include "parser/canonical_names.hpp"
#include "simplify/interval.hpp"

namespace hlo_index::analysis {

namespace {

hlo::Shape without_layout(hlo::Shape shape) {
  shape.layout.reset();
  for (hlo::Shape& element : shape.elements) element = without_layout(std::move(element));
  return shape;
}

// The opcodes a fusion evaluates: its body's, nested fusions' bodies included
// (a nested fusion is an implementation detail of the same work); parameters
// are not work. Another instruction is its own opcode.
bool moves_data(std::string_view opcode);

// The token of a fused op for regrouping: its opcode, with its framework op when it has one.
std::string op_token(const hlo::Module& module, const ModuleSources& sources, const hlo::Computation& c,
                     const hlo::Instruction& i) {
  const std::string op_name = canonical_op_name(sources.own(c, i).op_name);
  return op_name.empty() ? std::string(module.opcode_text(i)) : fmt::format("{}@{}", module.opcode_text(i), op_name);
}

void collect_opcodes(const hlo::Module& module, const ModuleSources& sources, const hlo::Computation& c,
                     const hlo::Instruction& instr, std::vector<std::string>& out, std::vector<std::string>& tokens) {
  if (instr.opcode != hlo::Opcode::kFusion) {
    out.emplace_back(module.opcode_text(instr));
    if (!moves_data(module.opcode_text(instr))) tokens.push_back(op_token(module, sources, c, instr));
    return;
  }
  for (std::uint32_t callee : c.callees_of(instr)) {
    if (callee == hlo::k_none) continue;  // a truncated dump lacks it
    const hlo::Computation& body = module.computations[callee];
    for (const hlo::Instruction& fused : body.instructions) {
      if (fused.opcode == hlo::Opcode::kParameter) continue;
      if (fused.opcode == hlo::Opcode::kFusion) {
        collect_opcodes(module, sources, body, fused, out, tokens);
      } else {
        out.emplace_back(module.opcode_text(fused));
        if (!moves_data(module.opcode_text(fused))) tokens.push_back(op_token(module, sources, body, fused));
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

// Each interned shape's text with and without layouts, written once: a while or conditional
// takes and gives tuples of hundreds of elements, and every row names its operands' shapes.
class ShapeTexts {
public:
  explicit ShapeTexts(const hlo::Module& module)
      : m_module(module), m_with(module.shapes.size()), m_without(module.shapes.size()) {}
  const std::string& with_layout(hlo::ShapeId id) {
    if (!m_with[id]) m_with[id] = hlo::to_string(m_module.shape(id));
    return *m_with[id];
  }
  const std::string& without_layouts(hlo::ShapeId id) {
    if (!m_without[id]) m_without[id] = hlo::to_string(without_layout(m_module.shape(id)));
    return *m_without[id];
  }

private:
  const hlo::Module& m_module;
  std::vector<std::optional<std::string>> m_with, m_without;
};

// What matched fusions must agree on. Structure: kind, the work (fused
// opcodes) and the shapes in and out with layouts. Signature: kind, the
// arithmetic (fused opcodes that do not only move data) and the shapes
// without layouts.
void describe(const hlo::Module& module, const ModuleSources& sources, ShapeTexts& texts, const hlo::Computation& c,
              const hlo::Instruction& instr, DiffEntry& e) {
  collect_opcodes(module, sources, c, instr, e.fused_opcodes, e.op_tokens);
  std::sort(e.fused_opcodes.begin(), e.fused_opcodes.end());
  std::sort(e.op_tokens.begin(), e.op_tokens.end());
  std::copy_if(e.fused_opcodes.begin(), e.fused_opcodes.end(), std::back_inserter(e.computing_opcodes),
               [](const std::string& op) { return !moves_data(op); });
  std::vector<std::string> arithmetic;
  std::copy_if(e.fused_opcodes.begin(), e.fused_opcodes.end(), std::back_inserter(arithmetic),
               [](const std::string& op) { return !moves_data(op); });
  std::vector<std::string_view> with_layouts, without_layouts;
  for (std::uint32_t operand : c.operands_of(instr)) {
    const hlo::ShapeId shape = c.instructions[operand].shape;
    with_layouts.push_back(texts.with_layout(shape));
    without_layouts.push_back(texts.without_layouts(shape));
  }
  e.shapes = fmt::format("({}) -> {}", fmt::join(with_layouts, ", "), texts.with_layout(instr.shape));
  e.signature = fmt::format("{}|{}|({}) -> {}", e.row.kind, fmt::join(arithmetic, ","),
                            fmt::join(without_layouts, ", "), texts.without_layouts(instr.shape));
  e.structure = fmt::format("{}|{}|{}", e.row.kind, fmt::join(e.fused_opcodes, ","), e.shapes);
}

std::string maps_word(const SummaryRow& r) {
  if (r.undefined) return "undef";
  return r.approximate ? "approx" : "exact";
}

std::string bytes_word(std::int64_t bytes, bool exact) {
  return fmt::format("{}{}", exact ? "" : "<=", human_bytes(bytes));
}

std::string optional_word(const std::optional<double>& v, bool multiplicity) {
  if (!v) return "-";
  if (multiplicity) return *v < 1000 ? fmt::format("{:.1f}", *v) : fmt::format("{:.0f}", *v);
  return fmt::format("{:.3f}", *v);
}

std::string whole_percent(double fraction) { return fmt::format("{:.0f}%", fraction * 100); }

// A time or byte count is a regression when it grows by more than the
// threshold and by at least the floor (from nothing: by at least the floor).
// `why` says which held.
void judge_increase(double before, double after, double floor, const DiffThresholds& t, std::string (*word)(double),
                    FigureChange& f) {
  if (after <= before) return;
  const double grown = after - before;
  const bool relative_ok = before <= 0 || (after - before) / before > t.relative_increase;
  const bool absolute_ok = grown >= floor;
  f.regression = relative_ok && absolute_ok;
  const std::string relative = before > 0 ? fmt::format("{:+.1f}% {} {}", 100 * grown / before,
                                                        relative_ok ? ">" : "<=", whole_percent(t.relative_increase))
                                          : std::string("from nothing");
  f.why = fmt::format("{} {} +{} {} {}", relative, relative_ok && absolute_ok ? "and" : (relative_ok ? "but" : "and"),
                      word(grown), absolute_ok ? ">=" : "<", word(floor));
}

std::string bytes_number(double bytes) { return human_bytes(static_cast<std::int64_t>(bytes)); }
std::string seconds_number(double seconds) { return cost::human_seconds(seconds); }

void compare_bytes(std::string_view figure, std::int64_t before, bool before_exact, std::int64_t after,
                   bool after_exact, const DiffThresholds& t, std::vector<FigureChange>& out, bool judged = true) {
  if (before == after) return;
  FigureChange f{
      std::string(figure), bytes_word(before, before_exact), bytes_word(after, after_exact), std::nullopt, false, ""};
  if (before > 0) f.relative = (static_cast<double>(after) - static_cast<double>(before)) / static_cast<double>(before);
  if (judged) {
    judge_increase(static_cast<double>(before), static_cast<double>(after), static_cast<double>(t.min_bytes), t,
                   bytes_number, f);
  }
  out.push_back(std::move(f));
}

void compare_seconds(double before, double after, double floor, const DiffThresholds& t,
                     std::vector<FigureChange>& out) {
  // Times print to three digits: what prints the same did not change.
  if (before == after) return;
  const std::string a = cost::human_seconds(before), b = cost::human_seconds(after);
  if (a == b) return;
  FigureChange f{"time", a, b, std::nullopt, false, ""};
  if (before > 0) f.relative = (after - before) / before;
  judge_increase(before, after, floor, t, seconds_number, f);
  out.push_back(std::move(f));
}

std::int64_t written_over_runs(const SummaryRow& r) {
  return static_cast<std::int64_t>(static_cast<double>(r.cost.device_bytes_written) * r.runs.count);
}

void compare_text(std::string_view figure, std::string before, std::string after, bool regression,
                  std::vector<FigureChange>& out) {
  if (before == after) return;
  out.push_back(FigureChange{std::string(figure), std::move(before), std::move(after), std::nullopt, regression, ""});
}

std::vector<FigureChange> compare_rows(const SummaryRow& a, const SummaryRow& b, const DiffThresholds& t,
                                       double time_floor) {
  std::vector<FigureChange> out;
  compare_seconds(a.seconds(), b.seconds(), time_floor, t, out);
  compare_bytes("bytes_read", a.bytes_read, a.counts_exact, b.bytes_read, b.counts_exact, t, out);
  compare_bytes("bytes_written", written_over_runs(a), a.cost.bytes_exact, written_over_runs(b), b.cost.bytes_exact, t,
                out);
  // Logical reads measure the work of reading, not memory traffic: shown, never a regression alone.
  compare_bytes("logical_reads", a.logical_read_bytes, a.counts_exact, b.logical_read_bytes, b.counts_exact, t, out,
                false);
  // Equal values print the same: only those that differ are put in words and compared.
  if (a.worst_utilisation != b.worst_utilisation) {
    compare_text("utilisation", optional_word(a.worst_utilisation, false), optional_word(b.worst_utilisation, false),
                 false, out);
  }
  if (a.highest_multiplicity != b.highest_multiplicity) {
    compare_text("multiplicity", optional_word(a.highest_multiplicity, true),
                 optional_word(b.highest_multiplicity, true), false, out);
  }
  // A worse access verdict matters on what is read in bulk only: the bytes floor.
  const bool worse = b.access.rank > a.access.rank;
  if (a.access.text != b.access.text) {
    compare_text("access", a.access.text, b.access.text, worse && b.bytes_read >= t.min_bytes, out);
    if (worse) {
      out.back().why = fmt::format("worse, on {} read {} {}", human_bytes(b.bytes_read),
                                   b.bytes_read >= t.min_bytes ? ">=" : "<", human_bytes(t.min_bytes));
    }
  }
  // Maps getting approximate are hlo-index's limit, not the program's: shown, not a regression.
  if (a.undefined != b.undefined || a.approximate != b.approximate)
    compare_text("maps", maps_word(a), maps_word(b), false, out);
  if (a.lint_findings != b.lint_findings) {
    compare_text("lint_findings", std::to_string(a.lint_findings), std::to_string(b.lint_findings),
                 b.lint_findings > a.lint_findings, out);
    if (b.lint_findings > a.lint_findings) out.back().why = "more lint findings (lint has floors of its own)";
  }
  return out;
}

// Multiset differences of two sorted lists: what only `a` has.
std::vector<std::string> only_in(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

template <typename Entries>
DiffTotals totals_of(const Entries& entries, double seconds = 0) {
  DiffTotals t;
  t.seconds = seconds;
  for (const auto& entry : entries) {
    const DiffEntry& e = [&]() -> const DiffEntry& {
      if constexpr (std::is_pointer_v<std::decay_t<decltype(entry)>>) {
        return *entry;
      } else {
        return entry;
      }
    }();
    t.logical_read_bytes = simplify::saturating_add(t.logical_read_bytes, e.row.logical_read_bytes);
    t.bytes_read = simplify::saturating_add(t.bytes_read, e.row.bytes_read);
    t.bytes_written = simplify::saturating_add(t.bytes_written, written_over_runs(e.row));
    t.lint_findings += e.row.lint_findings;
    t.counts_exact = t.counts_exact && e.row.counts_exact;
  }
  return t;
}

// An entry's key for one matching pass: one or two of its strings.
using MatchKey = std::pair<std::string_view, std::string_view>;

struct MatchKeyHash {
  std::size_t operator()(const MatchKey& k) const {
    const std::size_t h = std::hash<std::string_view>()(k.first);
    return h ^ (std::hash<std::string_view>()(k.second) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  }
};

// One matching pass: each unmatched old entry, in program order, takes the
// first unmatched new entry with the same key (layers repeat, so equal keys
// pair in order).
template <typename Key>
void match_by(const ModuleDiff& d, Key key, std::vector<int>& old_to_new, std::vector<bool>& new_taken,
              std::vector<MatchedBy>& how, MatchedBy by) {
  // The free new entries of each key, in program order: a list through `next`.
  struct Queue {
    int first = -1, last = -1;
  };
  std::unordered_map<MatchKey, Queue, MatchKeyHash> free;
  std::vector<int> next(d.new_entries.size(), -1);
  for (std::size_t n = 0; n < d.new_entries.size(); ++n) {
    if (new_taken[n]) continue;
    Queue& q = free[key(d.new_entries[n])];
    (q.last < 0 ? q.first : next[static_cast<std::size_t>(q.last)]) = static_cast<int>(n);
    q.last = static_cast<int>(n);
  }
  for (std::size_t o = 0; o < d.old_entries.size(); ++o) {
    if (old_to_new[o] >= 0) continue;
    auto it = free.find(key(d.old_entries[o]));
    if (it == free.end() || it->second.first < 0) continue;
    const int n = it->second.first;
    it->second.first = next[static_cast<std::size_t>(n)];
    old_to_new[o] = n;
    new_taken[static_cast<std::size_t>(n)] = true;
    how[o] = by;
  }
}

}  // namespace

std::string_view matched_by_name(MatchedBy by) {
  switch (by) {
    case MatchedBy::kFingerprint: return "fingerprint";
    case MatchedBy::kStructure: return "structure";
    case MatchedBy::kNameOnly: return "name, structure differs";
  }
  return "";
}

bool FusionChange::regression() const {
  return std::any_of(figures.begin(), figures.end(), [](const FigureChange& f) { return f.regression; });
}

bool Regroup::regression() const {
  return std::any_of(figures.begin(), figures.end(), [](const FigureChange& f) { return f.regression; });
}

bool ModuleDiff::regression() const {
  return std::any_of(changed.begin(), changed.end(), [](const FusionChange& c) { return c.regression(); }) ||
         std::any_of(regrouped.begin(), regrouped.end(), [](const Regroup& r) { return r.regression(); }) ||
         std::any_of(totals.begin(), totals.end(), [](const FigureChange& f) { return f.regression; });
}

std::vector<DiffEntry> diff_entries(const hlo::Module& module, const SummaryRequest& request,
                                    cost::CostTotals* totals) {
  const ModuleSources sources(module);
  const ModuleFingerprints fingerprints(module, sources);
  ModuleSummary summary = summarise_module(module, request, &fingerprints);
  if (totals != nullptr) *totals = summary.totals;
  std::vector<SummaryRow> rows = std::move(summary.rows);
  const parser::CanonicalNames names = parser::canonical_names(module);
  ShapeTexts texts(module);
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
    e.fingerprint = fingerprints.of(ci, ii);
    e.identity = fmt::format("{:016x}", fingerprints.hash(ci, ii));
    describe(module, sources, texts, c, c.instructions[ii], e);
    entries.push_back(std::move(e));
  }
  return entries;
}

void diff_modules(ModuleDiff& d, const DiffThresholds& thresholds) {
  std::vector<int> old_to_new(d.old_entries.size(), -1);
  std::vector<bool> new_taken(d.new_entries.size(), false);
  std::vector<MatchedBy> how(d.old_entries.size(), MatchedBy::kFingerprint);
  // The stable identity first (identical fusions pair in program order), whatever the names.
  match_by(
      d, [](const DiffEntry& e) { return MatchKey(e.identity, {}); }, old_to_new, new_taken, how,
      MatchedBy::kFingerprint);
  match_by(
      d, [](const DiffEntry& e) { return MatchKey(e.structure, {}); }, old_to_new, new_taken, how,
      MatchedBy::kStructure);
  // Same place, same arithmetic, same shapes apart from layouts: the same
  // fusion, changed (the parts of a fusion split in two do less arithmetic
  // each, so they are added and the whole removed).
  match_by(
      d, [](const DiffEntry& e) { return MatchKey(e.canonical, e.signature); }, old_to_new, new_taken, how,
      MatchedBy::kNameOnly);

  d.old_totals = totals_of(d.old_entries, d.old_totals.seconds);
  d.new_totals = totals_of(d.new_entries, d.new_totals.seconds);
  d.time_floor = std::max(thresholds.min_seconds,
                          thresholds.min_time_share * std::max(d.old_totals.seconds, d.new_totals.seconds));

  // What is left: fusions split in several, or several merged into one.
  std::vector<std::size_t> old_free, new_free;
  for (std::size_t o = 0; o < old_to_new.size(); ++o) {
    if (old_to_new[o] < 0) old_free.push_back(o);
  }
  for (std::size_t n = 0; n < new_taken.size(); ++n) {
    if (!new_taken[n]) new_free.push_back(n);
  }
  // With op_names first (they tell look-alike ops apart), then by opcodes alone for what is
  // left (a fusion's metadata may sit on the fusion in one dump and on its fused ops in the other).
  // Only the free entries take part (the others stay empty, which never matches).
  std::vector<std::vector<std::string>> old_ops(d.old_entries.size()), new_ops(d.new_entries.size()),
      old_opcodes(d.old_entries.size()), new_opcodes(d.new_entries.size());
  for (const std::size_t o : old_free) {
    old_ops[o] = d.old_entries[o].op_tokens;
    old_opcodes[o] = d.old_entries[o].computing_opcodes;
  }
  for (const std::size_t n : new_free) {
    new_ops[n] = d.new_entries[n].op_tokens;
    new_opcodes[n] = d.new_entries[n].computing_opcodes;
  }
  std::vector<Regrouping> groups = match_regroupings(old_ops, new_ops, old_free, new_free);
  {
    std::vector<bool> old_used(d.old_entries.size(), false), new_used(d.new_entries.size(), false);
    for (const Regrouping& g : groups) {
      for (const std::size_t o : g.old_entries) old_used[o] = true;
      for (const std::size_t n : g.new_entries) new_used[n] = true;
    }
    std::vector<std::size_t> old_left, new_left;
    std::copy_if(old_free.begin(), old_free.end(), std::back_inserter(old_left),
                 [&old_used](std::size_t o) { return !old_used[o]; });
    std::copy_if(new_free.begin(), new_free.end(), std::back_inserter(new_left),
                 [&new_used](std::size_t n) { return !new_used[n]; });
    for (Regrouping& g : match_regroupings(old_opcodes, new_opcodes, old_left, new_left))
      groups.push_back(std::move(g));
  }
  std::vector<bool> old_regrouped(d.old_entries.size(), false), new_regrouped(d.new_entries.size(), false);
  for (const Regrouping& g : groups) {
    Regroup r;
    DiffEntry sum_before, sum_after;
    for (const std::size_t o : g.old_entries) {
      r.before.push_back(&d.old_entries[o]);
      old_regrouped[o] = true;
    }
    for (const std::size_t n : g.new_entries) {
      r.after.push_back(&d.new_entries[n]);
      new_regrouped[n] = true;
    }
    const DiffTotals before = totals_of(r.before), after = totals_of(r.after);
    double seconds_before = 0, seconds_after = 0;
    for (const DiffEntry* e : r.before) seconds_before += e->row.seconds();
    for (const DiffEntry* e : r.after) seconds_after += e->row.seconds();
    r.figures.push_back(FigureChange{"fusions", std::to_string(r.before.size()), std::to_string(r.after.size()),
                                     std::nullopt, false, ""});
    compare_seconds(seconds_before, seconds_after, d.time_floor, thresholds, r.figures);
    compare_bytes("bytes_written", before.bytes_written, true, after.bytes_written, true, thresholds, r.figures);
    compare_bytes("bytes_read", before.bytes_read, before.counts_exact, after.bytes_read, after.counts_exact,
                  thresholds, r.figures);
    d.regrouped.push_back(std::move(r));
  }

  std::vector<int> new_to_old(d.new_entries.size(), -1);
  for (std::size_t o = 0; o < old_to_new.size(); ++o) {
    if (old_to_new[o] < 0) {
      if (!old_regrouped[o]) d.removed.push_back(&d.old_entries[o]);
      continue;
    }
    new_to_old[static_cast<std::size_t>(old_to_new[o])] = static_cast<int>(o);
    ++d.matched;
    if (how[o] == MatchedBy::kStructure) ++d.matched_by_structure;
  }
  for (std::size_t n = 0; n < d.new_entries.size(); ++n) {
    if (new_to_old[n] < 0) {
      if (!new_regrouped[n]) d.added.push_back(&d.new_entries[n]);
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
    change.figures = compare_rows(change.before->row, change.after->row, thresholds, d.time_floor);
    if (!change.figures.empty() || !change.ops_removed.empty() || !change.ops_added.empty() || change.shapes_changed)
      d.changed.push_back(std::move(change));
  }
  const bool old_exact = d.old_totals.counts_exact, new_exact = d.new_totals.counts_exact;
  if (d.old_entries.size() != d.new_entries.size()) {
    d.totals.push_back(FigureChange{"fusions", std::to_string(d.old_entries.size()),
                                    std::to_string(d.new_entries.size()), std::nullopt, false, ""});
  }
  compare_seconds(d.old_totals.seconds, d.new_totals.seconds, d.time_floor, thresholds, d.totals);
  compare_bytes("bytes_written", d.old_totals.bytes_written, true, d.new_totals.bytes_written, true, thresholds,
                d.totals);
  compare_bytes("bytes_read", d.old_totals.bytes_read, old_exact, d.new_totals.bytes_read, new_exact, thresholds,
                d.totals);
  compare_bytes("logical_reads", d.old_totals.logical_read_bytes, old_exact, d.new_totals.logical_read_bytes, new_exact,
                thresholds, d.totals, false);
  compare_text("lint_findings", std::to_string(d.old_totals.lint_findings), std::to_string(d.new_totals.lint_findings),
               d.new_totals.lint_findings > d.old_totals.lint_findings, d.totals);
  if (d.new_totals.lint_findings > d.old_totals.lint_findings) d.totals.back().why = "more lint findings";
}

}  // namespace hlo_index::analysis

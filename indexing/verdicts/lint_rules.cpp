#include "indexing/verdicts/lint_rules.hpp"

#include <fmt/format.h>

#include <functional>
#include <limits>
#include <tuple>

#include "parser/canonical_names.hpp"

namespace hlo_index::analysis {

namespace {

// keep sorted by LintRule
const std::array<LintRuleInfo, k_lint_rule_count> k_rules{{
    {LintRule::kUncoalescedRead, "uncoalesced-read",
     "A large operand is read with many more memory transfers than its bytes need, on the target's model.",
     "Judged per distinct map (each a load of its own) in physical offsets (`analyze --physical`), for the target "
     "given with --target or detected (tpu when a layout has tiles or a memory space, else gpu). GPU, after XLA's "
     "coalescing analysis: the emitter XLA would pick (loop: consecutive output elements to consecutive threads; row "
     "reduction: a warp walks one reduced row; column reduction; tiled transpose: a warp reads a tile row into "
     "shared memory) gives each warp of 32 its reads in one iteration; the read is coalesced when the minimum "
     "number of 128-byte transactions for as many bytes read contiguously is more than 90% of the transactions "
     "touched (XLA's threshold). TPU: an output tile with its iterations transfers whole tiles of the operand's "
     "tiled layout, and the rule speaks of poorly used tile transfers. CPU: 16 outputs with their iterations fetch "
     "64-byte lines. Fires when an operand of at least --uncoalesced-min-bytes is not coalesced under that model. "
     "Deliberately not flagged: offsets that differ between the threads of a group (gather indices: data-dependent, "
     "unknown until run time; a dynamic-slice's offsets are the same for every thread and are judged at one value), "
     "dots and convolutions and the fusions that hold one (XLA's matmul emitters tile their operands), broadcasts (one "
     "element per group), misaligned dense reads (a run with 90% of its span read needs the units it spans), and on "
     "the GPU loop emitter reads that walk a reduced dimension consecutively (a reduction fused into a loop).",
     "--uncoalesced-min-bytes (1MiB)"},
    {LintRule::kLowUtilisation, "low-utilisation", "A large operand is mostly not read.",
     "Rationale: the buffer was produced and is held in full but only part of it is used here (a slice or pad that "
     "was not fused into the producer, say), so the producer wrote, and memory holds, elements nobody reads. Fires "
     "when the instruction reads fewer than --min-utilisation of the elements of an operand of at least "
     "--low-utilisation-min-bytes (distinct elements, counted exactly from the maps; through an all-gather, "
     "(replica, element) pairs over the replicas read). Offsets computed only from partition-id or replica-id are "
     "judged (bounded by the reads): each device holds the whole buffer and reads its part, so an all-reduce "
     "sliced per device should be a reduce-scatter. Deliberately not flagged: other reads at offsets known only at "
     "run time (dynamic-slice, gather, a scan reading one layer of stacked weights: the whole buffer must exist, "
     "whichever part a run reads); an operand whose users in the computation together read at least "
     "--min-utilisation of it (a split: slices that each take a part); the slice an async computation wraps (the "
     "caller splits one buffer between several of them).",
     "--min-utilisation (0.5), --low-utilisation-min-bytes (1MiB)"},
    {LintRule::kCostlyRecompute, "costly-recompute",
     "A fusion recomputes a fused producer, and computing it once in a fusion of its own would save time.",
     "Rationale: fusion saves a round trip through memory by recomputing a producer where its consumer needs it; "
     "when the consumer re-reads each of the producer's elements many times (a reduce under a broadcast, a dot "
     "under a reduce-window), the fusion multiplies the producer's arithmetic. The rule weighs that against the "
     "alternative on the cost model (docs/cost-model.md): the producer in a kernel of its own, computed once per "
     "element, its result written to memory and read back by the fusion. Evaluations come from the maps (the "
     "fusion's loop, a fused instruction shared by several outputs once per element of their loop). Fires when "
     "a producer evaluated more than --max-multiplicity times per element of its result is the one whose "
     "materialisation saves the most, and the time saved over the runs of its computation is at least "
     "--min-saved-us and at least --min-saved-share of the module's estimated time; the message gives both times, "
     "the FLOPs recomputed and the bytes the intermediate would take. Deliberately not flagged: producers that "
     "only feed dots and convolutions (matmul emitters stage their operands and compute them once), savings under "
     "either floor (a cheap producer duplicated on purpose), approximate maps or maps with runtime offsets, dumps "
     "taken before optimisation (no fusion decision was made).",
     "--max-multiplicity (2), --min-saved-us (1), --min-saved-share (0.01)"},
    {LintRule::kDuplicatedRead, "duplicated-read",
     "A fusion reads the same elements of a large operand through different maps.",
     "Rationale: each distinct way a fusion reads an operand is a load of its own; when two of them fetch common "
     "elements (p0 + transpose(p0), a softmax reading its input for the maximum, the sum and the quotient), those "
     "elements come from memory twice for work that could have shared one read. Fires when an operand of at least "
     "--duplicated-read-min-bytes is read through at least --duplicated-read-min-maps distinct maps (different as "
     "integer relations) and two of them overlap: their images, for one execution (runtime offsets fixed), have an "
     "element in common. Deliberately not flagged: maps whose images are disjoint (the two pieces of a "
     "dynamic-update-slice, slices of different parts of one operand: each element is read once); one read "
     "shared by several outputs of a multi-output fusion (reduce(dot) and the dot itself read the dot's operands "
     "once, in the loop the outputs share); plain instructions (an op's own maps are its semantics).",
     "--duplicated-read-min-maps (2), --duplicated-read-min-bytes (1MiB)"},
    {LintRule::kUnknownIndexing, "unknown-indexing", "hlo-index cannot analyse the instruction.",
     "Fires once per instruction that has an UNDEFINED map (an op hlo-index has no maps for, inside a fusion or "
     "not), with the reason; the other rules cannot judge the operands concerned. A note: it says what was not "
     "checked, and does not fail the run.",
     "", LintLevel::kNote},
    {LintRule::kApproximateIndexing, "approximate-indexing", "The indexing maps of the instruction are approximate.",
     "Fires once per instruction that has an approximate map (a sound superset of the elements read: an isl "
     "computation ran out of its --isl-max-operations budget, or a runtime offset depends on a reduced index). "
     "low-utilisation judges the superset; costly-recompute does not judge such fusions, nor low-utilisation "
     "when the map also has runtime offsets. A note: it says which figures are bounds, and does not fail the run.",
     "", LintLevel::kNote},
    {LintRule::kMissedFusion, "missed-fusion",
     "A producer writes an intermediate that its consumers read back, where fusing it would save time.",
     "Rationale: an intermediate written to memory and read back costs its bytes twice and a kernel launch; "
     "fusing the producer into its consumers saves that, at the price of computing it where each consumer reads "
     "it. The rule looks at every producer -> consumers edge between the instructions of a computation that XLA's "
     "fusion passes would allow (the producer elementwise, data movement or a loop fusion and not a result of the "
     "computation; every consumer a loop or reduction fusion or a fusible op; not both holding a reduction of 16 "
     "or more elements; at most 96 operands and outputs; as XLA's priority fusion, the producer fused into all "
     "its consumers or none) and weighs, on the cost model, the kernels as they are against the consumers with "
     "the producer fused in. Fires when the time saved over the runs of the computation is at least "
     "--min-saved-us and at least --min-saved-share of the module's estimated time. Deliberately not flagged: "
     "dots, convolutions, custom-calls, collectives, sorts and control flow (XLA does not fuse them this way), a "
     "producer that is also a result (it is written anyway), dumps taken before optimisation (no fusion decision "
     "was made), savings under either floor. Limits the model does not see: shared-memory budgets, register "
     "pressure, code size.",
     "--min-saved-us (1), --min-saved-share (0.01)"},
}};

}  // namespace

const std::array<LintRuleInfo, k_lint_rule_count>& lint_rules() { return k_rules; }

const LintRuleInfo& rule_info(LintRule rule) { return k_rules[static_cast<std::size_t>(rule)]; }

std::string_view level_name(LintLevel level) { return level == LintLevel::kNote ? "note" : "warning"; }

std::string_view rule_fix(LintRule rule) {
  switch (rule) {
    case LintRule::kUncoalescedRead:
      return "give the operand the layout its readers walk (a copy or transpose in its producer), or let XLA's "
             "transpose emitter handle the fusion";
    case LintRule::kLowUtilisation:
      return "fuse the slice (or pad) into the operand's producer, or have the producer write only the part read";
    case LintRule::kCostlyRecompute:
      return "compute the producer in a fusion of its own and let the consumer read its result from memory";
    case LintRule::kDuplicatedRead:
      return "derive both uses from one read of the operand, or let the producer write it in the layout of the "
             "second use";
    case LintRule::kUnknownIndexing: return "nothing in the HLO: hlo-index has no maps for the op yet (report it)";
    case LintRule::kApproximateIndexing: return "raise --isl-max-operations, or accept the sound over-approximation";
    case LintRule::kMissedFusion:
      return "fuse the producer into its consumers (a pass, a flag or a custom call boundary kept them apart)";
  }
  return "";
}

std::optional<LintRule> find_lint_rule(std::string_view id) {
  if (id == "high-multiplicity") return LintRule::kCostlyRecompute;
  for (const LintRuleInfo& r : k_rules) {
    if (r.id == id) return r.rule;
  }
  return std::nullopt;
}

bool operator<(const LintFinding& a, const LintFinding& b) {
  auto key = [](const LintFinding& f) {
    return std::make_tuple(std::cref(f.file), f.line, f.column, f.rule, std::cref(f.module), std::cref(f.computation),
                           std::cref(f.instruction), f.operand.value_or(std::numeric_limits<std::size_t>::max()));
  };
  return key(a) < key(b);
}

std::string baseline_key(const LintFinding& f) {
  std::string key(rule_info(f.rule).id);
  const std::string module = parser::name_stem(f.module);
  key.append(" ").append(module.empty() ? std::string("module") : module);
  key.append(" ").append(f.fingerprint.empty() ? std::string("-") : f.fingerprint);
  key.append(" ").append(f.operand ? std::to_string(*f.operand) : std::string("-"));
  return key;
}

std::string legacy_baseline_key(const LintFinding& f) {
  std::string key(rule_info(f.rule).id);
  key.append(" ").append(f.module);
  key.append(" ").append(f.computation);
  key.append(" ").append(f.instruction);
  key.append(" ").append(f.operand ? std::to_string(*f.operand) : std::string("-"));
  return key;
}

}  // namespace hlo_index::analysis

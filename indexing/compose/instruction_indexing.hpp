// The indexing of whole instructions of a module: per-op maps for plain
// ops, and for fusions (and calls) the composition of the per-op maps of
// their bodies, from the root back to every parameter (output -> operand)
// and from every parameter forward to the root (operand -> output).
//
// Maps are grouped in sets per operand and deduplicated as integer
// relations (isl decides equality when the text differs). Per-op maps are
// memoised by op signature (opcode, shapes with layouts, and the attributes
// hlo::op_traits names as changing the maps), fused
// bodies by computation, since real modules repeat the same layer often.
// Nothing here throws for a bad or unsupported instruction: its maps are
// UNDEFINED with the reason.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "indexing/compose/map_memo.hpp"
#include "indexing/compose/map_row.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/loop_counter.hpp"
#include "indexing/ops/loop_dataflow.hpp"
#include "indexing/ops/op_maps.hpp"
#include "indexing/ops/output_dependence.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

/// Default wall-clock limit of one instruction's analysis, in seconds: none.
/// The work budget below bounds the analysis instead, the same on a loaded
/// machine as on an idle one; a time limit is an option.
inline constexpr double k_default_time_limit_per_instruction = 0.0;

/// Default work budget of one instruction's analysis, in steps: one per
/// composition step of a walk and one per isl computation (each bounded by
/// isl's operation budget, isl_context.hpp). Work whose result is memoised
/// across instructions (a single op's maps, a while's answer) is not counted,
/// so an instruction's answer does not depend on what was analysed before it
/// or on the thread that analysed it. The slowest instruction of the corpus
/// (torax's 268-output `call`) needs between 300,000 and 600,000 steps.
inline constexpr std::uint64_t k_default_work_budget_per_instruction = 5'000'000;

/// The per-instruction work budget of analyses whose options are created
/// afterwards on this thread (steps; 0: none). Commands set it for their
/// duration with ScopedWorkBudget.
std::uint64_t default_work_budget_per_instruction();

class ScopedWorkBudget {
public:
  explicit ScopedWorkBudget(std::uint64_t steps);
  ~ScopedWorkBudget();
  ScopedWorkBudget(const ScopedWorkBudget&) = delete;
  ScopedWorkBudget& operator=(const ScopedWorkBudget&) = delete;

private:
  std::uint64_t m_saved;
};

/// The per-instruction time limit of analyses whose options are created
/// afterwards on this thread (seconds; 0: none). Commands set it for their
/// duration with ScopedTimeLimit.
double default_time_limit_per_instruction();

class ScopedTimeLimit {
public:
  /// `seconds` < 0 keeps the current default.
  explicit ScopedTimeLimit(double seconds);
  ~ScopedTimeLimit();
  ScopedTimeLimit(const ScopedTimeLimit&) = delete;
  ScopedTimeLimit& operator=(const ScopedTimeLimit&) = delete;

private:
  double m_saved;
};

/// Thrown between composition steps when an instruction's analysis ran past
/// its work budget or its time limit; the instruction's maps become the
/// dependence fallback (approximate) or UNDEFINED, with the message as the reason.
class AnalysisLimitReached : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class TimeLimitReached : public AnalysisLimitReached {
public:
  explicit TimeLimitReached(double seconds);
};

class WorkBudgetReached : public AnalysisLimitReached {
public:
  explicit WorkBudgetReached(std::uint64_t steps);
};

/// Map compositions one walk of a called computation (one output, or one
/// operand) may take. Past it an output's maps are the dependence fallback
/// (OutputDependence: what it may depend on, read whole, approximate), an
/// operand's UNDEFINED with the reason: a count, so the answer does not depend
/// on the machine. Far
/// above what any call of the corpus needs but the wide ones (a main loop's
/// state of hundreds of elements read through a conditional's branch).
inline constexpr std::size_t k_max_compositions_per_walk = 8192;

/// Thrown by a walk that needs more than k_max_compositions_per_walk.
class CompositionLimitReached : public std::runtime_error {
public:
  CompositionLimitReached();
  explicit CompositionLimitReached(const std::string& reason);
};

/// Elements of its state one output of a while in a conditional's branch may
/// read (wholly, an approximation) for a walk of the branch to go on; past it
/// the walk's maps are the dependence fallback (OutputDependence). A program's main loop inside
/// a conditional (torax) otherwise makes every output of the conditional read
/// hundreds of tuple elements, composed once per output.
inline constexpr std::size_t k_max_while_reads_per_walk = 64;

struct AnalysisOptions {
  /// kXla: XLA's maps and its simplification policy (single ops are only
  /// simplified where XLA does; no isl), for string-for-string comparison.
  MapStyle style = MapStyle::kExact;
  /// Simplify maps (and fusion compositions after every step).
  bool simplify = true;
  /// Seconds one instruction's analysis may take (0: no limit); past it
  /// the instruction's maps are UNDEFINED with the reason.
  double time_limit_per_instruction = default_time_limit_per_instruction();
  /// Steps one instruction's analysis may take (0: no budget); past it as
  /// past the time limit. Deterministic: see k_default_work_budget_per_instruction.
  std::uint64_t work_budget_per_instruction = default_work_budget_per_instruction();
};

/// The maps of one instruction: [output][operand] -> set of maps, each row
/// sparse (map_row.hpp). An input_to_output row may be empty: no operand
/// feeds that output.
struct InstructionIndexing {
  std::vector<MapRow> output_to_input;
  std::vector<MapRow> input_to_output;
};

class IndexingAnalysis {
public:
  IndexingAnalysis(const hlo::Module& module, AnalysisOptions options);

  /// Output `output` of instruction `instruction` of computation
  /// `computation` to each of its operands.
  std::vector<MapSet> output_to_input(std::uint32_t computation, std::uint32_t instruction, std::size_t output);
  /// Operand `operand` to each output.
  std::vector<MapSet> input_to_output(std::uint32_t computation, std::uint32_t instruction, std::size_t operand);

  /// Both directions as asked, with runtime-variable sources named for
  /// display (`operand K (name)`, or XLA's `parameter(N)` in its style).
  /// Past the time limit every map of the instruction is UNDEFINED with
  /// the reason.
  InstructionIndexing analyze(std::uint32_t computation, std::uint32_t instruction, bool o2i, bool i2o);

  /// `first` then `second` composed and simplified as a step of a walk in the exact style
  /// (compose, the composition caps, SimplifyPolicy::kExactRulesOnly), through the memo of the
  /// pairs the last instruction analysed composed: a fusion's body walked right after its
  /// analysis (analysis/fused_reads.cpp) meets the same pairs. Null where the analysis' steps are
  /// simplified otherwise (the XLA style, no simplification): the caller composes itself. Throws
  /// CompositionLimitReached past the caps.
  std::optional<IndexingMap> exact_step(const IndexingMap& first, const IndexingMap& second);

  /// Number of per-op map computations answered from the memo (for bench/).
  std::size_t memo_hits() const { return m_memo_hits; }
  /// The memo of composed maps' final simplification and deduplication (for bench/).
  const FinalMapMemo& final_memo() const { return m_final_memo; }

private:
  InstructionIndexing analyze_maps(std::uint32_t computation, std::uint32_t instruction, bool o2i, bool i2o);
  std::vector<MapSet> op_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index, bool forward);
  std::vector<MapSet> fused_output_to_input(std::uint32_t callee, std::size_t output);
  std::vector<MapSet> fused_input_to_output(std::uint32_t callee, std::size_t operand);
  /// The walks behind fused_*: throw CompositionLimitReached past the bound.
  std::vector<MapSet> walk_output_to_input(std::uint32_t callee, std::size_t output);
  std::vector<MapSet> walk_input_to_output(std::uint32_t callee, std::size_t operand);
  std::vector<MapSet> called_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                  bool forward);
  /// async_maps.cpp: async-start's result element composed through the wrapped computation.
  std::vector<MapSet> async_start_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                       bool forward);
  /// conditional_maps.cpp: each branch's composed maps, when the branch index selects it.
  std::vector<MapSet> conditional_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                       bool forward);
  /// while_maps.cpp: a while's output `output` -> its operand; exact (the trips-th power of one
  /// iteration) when the trip count is known, else o2i_while's dataflow answer. `invertible`:
  /// the maps are the relation itself, not a bound, so their inverses are operand -> output.
  struct WhileAnswer {
    std::vector<MapSet> sets;
    bool invertible = false;
  };
  const WhileAnswer& while_answer(std::uint32_t computation, std::uint32_t instruction, std::size_t output);
  /// Output -> operand (forward: the operand -> each output, by inverse where invertible).
  std::vector<MapSet> while_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index, bool forward);
  /// The dataflow of a while's state, worked out once per while.
  LoopDataflow& loop_dataflow(std::uint32_t computation, const OpContext& op);
  /// Answers the outputs of a while whose trip count is known (into m_while_memo).
  void count_while(std::uint32_t computation, const OpContext& op, LoopDataflow& flow);
  void count_outputs(std::uint32_t computation, const OpContext& op, LoopDataflow& flow, const TripCount& trip,
                     const LoopComputations& called, const std::map<std::size_t, std::set<std::size_t>>& outputs,
                     const std::set<std::size_t>& leaves);
  // How single-op maps, each composition step and composed maps are simplified.
  SimplifyPolicy single_op_policy(hlo::Opcode opcode) const;
  SimplifyPolicy step_policy() const;
  SimplifyPolicy final_policy() const;
  std::string signature(std::uint32_t computation, std::uint32_t instruction, std::size_t index, bool forward);
  /// The same number for equal shapes (the parser interns shapes by their
  /// text, so `f32[2]` and `f32[2]{0}` have different ids but equal maps).
  std::uint32_t shape_class(hlo::ShapeId shape);
  /// op_maps of an instruction of a called computation. A body walked once
  /// per output (or operand) asks again for the same maps of its wide,
  /// runtime-offset and call instructions, which op_maps does not memoise:
  /// they are kept by position then. Returns `scratch` or the memo's entry.
  const std::vector<MapSet>& body_op_maps(std::uint32_t callee, std::uint32_t instruction, std::size_t index,
                                          bool forward, bool walked_often, std::vector<MapSet>& scratch);
  /// One composition step of a walk: `first` then `second` (hashed by MapIdentityHash),
  /// counted against the walk's bound, simplified, within the composition caps before and
  /// after simplifying (map_complexity.hpp); a pair seen before comes from m_pair_memo.
  IndexingMap composition_step(const IndexingMap& first, std::size_t first_hash, const IndexingMap& second,
                               std::size_t second_hash, std::size_t& compositions);
  /// Adds a finally simplified map to a composed set (insert_unique, semantic in the exact style).
  void insert_final(MapSet& set, std::vector<std::uint32_t>& ids, IndexingMap map);
  /// Replaces `set` by its maps inserted one by one with insert_final (per tuple element when they name one).
  void insert_all_final(MapSet& set);
  /// Whether a conditional of the module runs `computation` as a branch.
  bool is_branch(std::uint32_t computation);
  /// Post order of a called computation's body, computed once per body.
  const std::vector<std::uint32_t>& body_order(std::uint32_t callee);
  /// Counts one step of work; throws WorkBudgetReached past the work budget
  /// and TimeLimitReached past the deadline.
  void check_deadline() const;
  /// Steps and isl computations the current instruction has spent.
  std::uint64_t work_spent() const;
  /// Work inside its scope is not counted (its result is memoised across instructions).
  class UncountedWork {
  public:
    explicit UncountedWork(const IndexingAnalysis& analysis);
    ~UncountedWork();
    UncountedWork(const UncountedWork&) = delete;
    UncountedWork& operator=(const UncountedWork&) = delete;

  private:
    const IndexingAnalysis& m_analysis;
    std::uint64_t m_steps;
    std::uint64_t m_isl;
  };

  const hlo::Module& m_module;
  AnalysisOptions m_options;
  std::unordered_map<std::string, std::vector<MapSet>> m_op_memo;
  std::vector<std::uint32_t> m_shape_class;                        // by ShapeId; k_unclassified until asked
  std::unordered_map<std::string, std::uint32_t> m_shape_classes;  // by canonical text, computed once per ShapeId
  std::map<std::pair<std::uint32_t, std::size_t>, std::vector<MapSet>> m_fused_o2i, m_fused_i2o;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> m_body_order;
  std::vector<char> m_is_branch;  // by computation; empty until asked
  struct BodyOpMaps {
    std::size_t index;
    bool forward;
    std::vector<MapSet> sets;
  };
  // By called computation, then by instruction: a walk asks for every instruction it reaches,
  // once per output, and a lookup by (computation, instruction, index) in one hash table cost
  // a cache miss each.
  std::unordered_map<std::uint32_t, std::vector<std::vector<BodyOpMaps>>> m_body_op_maps;
  FinalMapMemo m_final_memo;
  // The simplification between composition steps, memoised the same way: the walks of a
  // wide call's outputs compose the same maps along the paths they share.
  FinalMapMemo m_step_memo;
  ComposedPairMemo m_pair_memo;  // the steps themselves, for the instruction being analysed
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::size_t>, WhileAnswer> m_while_memo;
  std::set<std::pair<std::uint32_t, std::uint32_t>> m_while_counted;  // whiles count_while has seen
  std::map<std::pair<std::uint32_t, std::uint32_t>, LoopDataflow> m_loop_dataflow;
  std::unique_ptr<OutputDependence> m_dependence;  // the fallback past the walk bounds; made when first needed
  std::optional<std::chrono::steady_clock::time_point> m_deadline;  // of the instruction being analysed
  // The work of the instruction being analysed: steps, and isl computations
  // since m_isl_at_start less those of uncounted work.
  mutable std::uint64_t m_steps = 0;
  std::uint64_t m_isl_at_start = 0;
  mutable std::uint64_t m_isl_uncounted = 0;
  mutable int m_uncounted_depth = 0;
  bool m_counting = false;  // inside analyze()
  int m_depth = 0;
  std::size_t m_memo_hits = 0;
};

/// Adds `map` to `set` unless the set already holds the same map, or with
/// `semantic` an equal relation (isl decides). KNOWN EMPTY maps only stand
/// in for an otherwise empty set.
void insert_unique(MapSet& set, IndexingMap map, bool semantic = true);

}  // namespace hlo_index::indexing

#include "indexing/compose/instruction_indexing.hpp"

#include <algorithm>
#include <exception>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "indexing/compose/dependence_fallback.hpp"
#include "indexing/compose/map_memo.hpp"
#include "indexing/compose/walk_state.hpp"
#include "indexing/maps/exact_ops.hpp"
#include "indexing/maps/isl_context.hpp"
#include "indexing/maps/map_complexity.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/maps/map_set_bound.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/output_dependence.hpp"
#include "indexing/ops/tuple_leaves.hpp"
#include "parser/attributes.hpp"
#include "parser/op_traits.hpp"

namespace hlo_index::indexing {

using hlo::Opcode;

namespace {

thread_local double t_default_time_limit = k_default_time_limit_per_instruction;
thread_local std::uint64_t t_default_work_budget = k_default_work_budget_per_instruction;

}  // namespace

double default_time_limit_per_instruction() { return t_default_time_limit; }

std::uint64_t default_work_budget_per_instruction() { return t_default_work_budget; }

ScopedWorkBudget::ScopedWorkBudget(std::uint64_t steps) : m_saved(t_default_work_budget) {
  t_default_work_budget = steps;
}

ScopedWorkBudget::~ScopedWorkBudget() { t_default_work_budget = m_saved; }

ScopedTimeLimit::ScopedTimeLimit(double seconds) : m_saved(t_default_time_limit) {
  if (seconds >= 0) t_default_time_limit = seconds;
}

ScopedTimeLimit::~ScopedTimeLimit() { t_default_time_limit = m_saved; }

namespace {

std::string time_limit_reason(double seconds) {
  std::ostringstream text;
  text << "analysis took longer than the per-instruction limit of " << seconds << " s";
  return text.str();
}

}  // namespace

TimeLimitReached::TimeLimitReached(double seconds) : AnalysisLimitReached(time_limit_reason(seconds)) {}

WorkBudgetReached::WorkBudgetReached(std::uint64_t steps)
    : AnalysisLimitReached(fmt::format("analysis took more than the per-instruction work budget of {} steps (see "
                                       "--work-budget-per-instruction)",
                                       steps)) {}

CompositionLimitReached::CompositionLimitReached(const std::string& reason) : std::runtime_error(reason) {}

CompositionLimitReached::CompositionLimitReached()
    : std::runtime_error(fmt::format("over {} compositions for one output of the called computation (a wide tuple "
                                     "through a while or conditional)",
                                     k_max_compositions_per_walk)) {}

std::uint64_t IndexingAnalysis::work_spent() const {
  return m_steps + (IslContext::get().computations() - m_isl_at_start - m_isl_uncounted);
}

IndexingAnalysis::UncountedWork::UncountedWork(const IndexingAnalysis& analysis)
    : m_analysis(analysis), m_steps(analysis.m_steps), m_isl(IslContext::get().computations()) {
  ++m_analysis.m_uncounted_depth;
}

IndexingAnalysis::UncountedWork::~UncountedWork() {
  --m_analysis.m_uncounted_depth;
  if (m_analysis.m_uncounted_depth != 0) return;  // the outermost scope settles the account
  m_analysis.m_steps = m_steps;
  m_analysis.m_isl_uncounted += IslContext::get().computations() - m_isl;
}

void IndexingAnalysis::check_deadline() const {
  const std::uint64_t budget = m_options.work_budget_per_instruction;
  if (m_counting && m_uncounted_depth == 0 && budget > 0) {
    ++m_steps;
    if (work_spent() > budget) throw WorkBudgetReached(budget);
  }
  if (m_deadline && std::chrono::steady_clock::now() > *m_deadline) {
    throw TimeLimitReached(m_options.time_limit_per_instruction);
  }
}

namespace {

bool is_call(Opcode op) { return hlo::op_traits(op).maps == hlo::MapFamily::kCall; }

// Post order from the root: every instruction after its operands.
std::vector<std::uint32_t> post_order(const hlo::Computation& c) {
  std::vector<std::uint32_t> order;
  std::vector<std::uint8_t> state(c.instructions.size(), 0);  // 0 new, 1 open, 2 done
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;
  auto visit = [&](std::uint32_t start) {
    if (state[start] != 0) return;
    stack.emplace_back(start, 0);
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      auto operands = c.operands_of(c.instructions[node]);
      if (next < operands.size()) {
        const std::uint32_t o = operands[next++];
        if (o < state.size() && state[o] == 0) {
          state[o] = 1;
          stack.emplace_back(o, 0);
        }
        continue;
      }
      state[node] = 2;
      order.push_back(node);
      stack.pop_back();
    }
  };
  if (c.root != hlo::k_none) visit(c.root);
  for (std::uint32_t i = 0; i < c.instructions.size(); ++i) visit(i);
  return order;
}

MapSet undefined_set(const std::string& reason) { return MapSet{IndexingMap::undefined(reason)}; }

// Bounds the maps into leaf `leaf` of `shape` (tuple_leaves.hpp; the shape
// itself when it is not a tuple).
void bound_element_maps(MapSet& set, const hlo::Shape& shape, std::size_t leaf) {
  // Within the bound whatever the array (bound_maps counts defined maps): no leaf to look up.
  if (set.size() <= k_max_maps_per_array) return;
  if (const hlo::Shape* array = find_leaf_shape(shape, leaf)) bound_maps(set, dimension_sizes(*array));
}

// Bounds a set of maps into a parameter: per leaf when it is a tuple.
void bound_parameter_maps(MapSet& set, const hlo::Shape& shape) {
  if (!shape.is_tuple) {
    bound_maps(set, dimension_sizes(shape));
    return;
  }
  std::vector<std::vector<std::int64_t>> leaves;
  for (const hlo::Shape* leaf : leaf_shapes(shape)) leaves.push_back(dimension_sizes(*leaf));
  bound_tuple_maps(set, leaves);
}

// XLA's composition of replica ids: two collectives on one path give no
// indexing at all, and the element maps of runtime sources carry none.
IndexingMap compose_like_xla(const IndexingMap& first, const IndexingMap& second) {
  if (first.has_replica_id() && second.has_replica_id()) {
    return IndexingMap::undefined("two all-gathers on one path (XLA gives no indexing for chained collectives)");
  }
  IndexingMap m = compose(first, second);
  for (RuntimeSource& s : m.runtime_sources()) {
    if (!s.map || !s.map->has_replica_id()) continue;
    IndexingMap element = *s.map;
    element.replica_id().clear();
    s.map = std::make_shared<const IndexingMap>(std::move(element));
  }
  return m;
}

// Every map of a set composed with every map of another by `step` (composition_step), into
// `into`; each map hashed once.
template <typename Step>
void compose_into(const MapSet& first, const MapSet& second, MapSet& into, const Step& step) {
  std::vector<std::size_t> second_hashes;
  second_hashes.reserve(second.size());
  for (const IndexingMap& b : second) second_hashes.push_back(MapIdentityHash()(b));
  for (const IndexingMap& a : first) {
    const std::size_t a_hash = MapIdentityHash()(a);
    for (std::size_t k = 0; k < second.size(); ++k) {
      // Structural dedup while composing; equal relations merge at the end.
      insert_unique(into, step(a, a_hash, second[k], second_hashes[k]), false);
    }
  }
}

}  // namespace

namespace {

// A map into leaf `element` of a tuple-shaped parameter, as a map into the tuple.
IndexingMap into_tuple_element(const IndexingMap& map, const hlo::Shape& tuple, std::size_t element) {
  if (!map.is_defined()) return map;
  if (element >= leaf_count(tuple)) return IndexingMap::undefined("no such leaf of a tuple parameter");
  IndexingMap out = map;
  out.results().insert(out.results().begin(), Expr::constant(static_cast<std::int64_t>(element)));
  return out;
}

// The element a map into a tuple operand reads.
std::size_t tuple_element_of(const IndexingMap& map) {
  if (!map.is_defined()) return 0;
  if (map.results().empty() || map.results().front().kind() != Expr::Kind::kConstant)
    throw Unsupported("a map into a tuple operand without its element");
  return static_cast<std::size_t>(map.results().front().constant_value());
}

// The map into that element: without its first result.
IndexingMap without_tuple_element(const IndexingMap& map) {
  if (!map.is_defined()) return map;
  IndexingMap rest = map;
  rest.results().erase(rest.results().begin());
  return rest;
}

}  // namespace

void insert_unique(MapSet& set, IndexingMap map, bool semantic) {
  if (map.is_known_empty()) {
    if (set.empty()) set.push_back(std::move(map));
    return;
  }
  std::erase_if(set, [](const IndexingMap& m) { return m.is_known_empty(); });
  // A structurally equal member anywhere in the set settles it before any isl question.
  // Members into other tuple elements are neither: skipped at the cost of a few loads.
  const std::optional<std::int64_t> element = element_read(map);
  auto equal = [&](const IndexingMap& m) { return !into_distinct_elements(m, element) && m == map; };
  if (std::find_if(set.begin(), set.end(), equal) != set.end()) return;
  for (const IndexingMap& m : set) {
    if (!into_distinct_elements(m, element) && merges_into(m, map, semantic)) return;
  }
  set.push_back(std::move(map));
}

IndexingAnalysis::IndexingAnalysis(const hlo::Module& module, AnalysisOptions options)
    : m_module(module), m_options(options) {}

std::uint32_t IndexingAnalysis::shape_class(hlo::ShapeId shape) {
  constexpr std::uint32_t k_unclassified = ~std::uint32_t{0};
  if (m_shape_class.empty()) m_shape_class.assign(m_module.shapes.size(), k_unclassified);
  std::uint32_t& known = m_shape_class[shape];
  if (known == k_unclassified) {
    const auto next = static_cast<std::uint32_t>(m_shape_classes.size());
    known = m_shape_classes.emplace(hlo::to_string(m_module.shape(shape)), next).first->second;
  }
  return known;
}

// Opcode, direction, index, the shapes of the result and the operands (by
// class), and the attributes the op's maps read.
std::string IndexingAnalysis::signature(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                        bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& i = c.instructions[instruction];
  std::string key(m_module.opcode_text(i));
  key.append(forward ? ">" : "<").append(std::to_string(index)).append("|");
  key.append(std::to_string(shape_class(i.shape)));
  for (std::uint32_t o : c.operands_of(i)) key.append("|").append(std::to_string(shape_class(c.instructions[o].shape)));
  const auto memo_attributes = hlo::op_traits(i.opcode).memo_attributes;
  for (const hlo::Attribute& a : c.attributes_of(i)) {
    if (std::find(memo_attributes.begin(), memo_attributes.end(), a.name) != memo_attributes.end()) {
      key.append("|").append(a.name).append("=").append(a.value);
    }
  }
  return key;
}

namespace {

// XLA simplifies the maps of a single op only where its per-op policy says so.
SimplifyPolicy xla_single_op_policy(Opcode opcode) {
  switch (hlo::op_traits(opcode).xla_simplify) {
    case hlo::XlaSimplify::kNone: break;
    case hlo::XlaSimplify::kKeepPoints: return SimplifyPolicy::kXlaKeepPoints;
    case hlo::XlaSimplify::kFull: return SimplifyPolicy::kXlaCompatible;
    case hlo::XlaSimplify::kUnusedSymbolsOnly: return SimplifyPolicy::kXlaUnusedSymbolsOnly;
  }
  return SimplifyPolicy::kNone;
}

}  // namespace

SimplifyPolicy IndexingAnalysis::single_op_policy(Opcode opcode) const {
  if (!m_options.simplify) return SimplifyPolicy::kNone;
  return m_options.style == MapStyle::kExact ? SimplifyPolicy::kExact : xla_single_op_policy(opcode);
}

SimplifyPolicy IndexingAnalysis::step_policy() const {
  if (!m_options.simplify) return SimplifyPolicy::kNone;
  return m_options.style == MapStyle::kExact ? SimplifyPolicy::kExactRulesOnly : SimplifyPolicy::kXlaCompatible;
}

SimplifyPolicy IndexingAnalysis::final_policy() const {
  if (!m_options.simplify) return SimplifyPolicy::kNone;
  return m_options.style == MapStyle::kExact ? SimplifyPolicy::kExact : SimplifyPolicy::kXlaCompatible;
}

std::vector<MapSet> IndexingAnalysis::op_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                              bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const std::size_t n = forward ? leaf_count(m_module.shape_of(instr)) : instr.operand_count;
  try {
    // Control flow into a computation a truncated dump lacks: what it reads is unknown, so every
    // output may read every operand element (sound, approximate).
    if (reads_tuple_leaves_by_result(instr.opcode) && c.has_missing_callee(instr))
      return whole_operand_maps(m_module, computation, instruction, index, forward,
                                "it calls a computation the truncated input lacks");
    if (is_call(instr.opcode)) return called_maps(computation, instruction, index, forward);
    if (hlo::op_traits(instr.opcode).maps == hlo::MapFamily::kConditional) {
      return conditional_maps(computation, instruction, index, forward);
    }
    if (hlo::op_traits(instr.opcode).maps == hlo::MapFamily::kAsyncStart) {
      return async_start_maps(computation, instruction, index, forward);
    }
    if (hlo::op_traits(instr.opcode).maps == hlo::MapFamily::kWhile) {
      return while_maps(computation, instruction, index, forward);
    }
    // Signatures grow with the operand list; wide ops (tuples) are cheap to rebuild. The maps of
    // ops with runtime offsets name the instructions holding them: memoised per instruction (lint
    // asks for them again after the walk, a chain of dynamic-update-slices hundreds of times).
    const bool runtime_offsets = hlo::op_traits(instr.opcode).runtime_offsets;
    const bool memoised = instr.operand_count <= 8;
    std::string key;
    if (memoised) {
      key = signature(computation, instruction, index, forward);
      if (runtime_offsets) key.append(fmt::format("@{}:{}", computation, instruction));
      if (auto it = m_op_memo.find(key); it != m_op_memo.end()) {
        ++m_memo_hits;
        return it->second;
      }
    }
    // A memoised op's maps cost the instruction that asks first only: not counted at all.
    std::optional<UncountedWork> uncounted;
    if (memoised) uncounted.emplace(*this);
    const OpContext op{m_module, c, instruction};
    std::vector<MapSet> sets = forward ? indexing::input_to_output(op, index, m_options.style)
                                       : indexing::output_to_input(op, index, m_options.style);
    for (MapSet& set : sets) {
      MapSet simplified;
      for (IndexingMap& m : set) {
        simplify(m, single_op_policy(instr.opcode));
        insert_unique(simplified, std::move(m), m_options.style == MapStyle::kExact);
      }
      set = std::move(simplified);
    }
    if (memoised) m_op_memo.emplace(std::move(key), sets);
    return sets;
  } catch (const AnalysisLimitReached&) {
    throw;  // the whole instruction is out of time or work, not this op
  } catch (const Unsupported& e) {
    return std::vector<MapSet>(n, undefined_set(e.what()));
  } catch (const std::exception& e) {
    return std::vector<MapSet>(n, undefined_set(std::string("cannot build the maps: ").append(e.what())));
  }
}

std::vector<MapSet> IndexingAnalysis::called_maps(std::uint32_t computation, std::uint32_t instruction,
                                                  std::size_t index, bool forward) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  auto callees = c.callees_of(instr);
  if (callees.size() != 1) throw Unsupported("expected one called computation");
  if (m_depth > 64) throw Unsupported("calls nested too deeply");
  ++m_depth;
  std::vector<MapSet> sets;
  try {
    sets = forward ? fused_input_to_output(callees[0], index) : fused_output_to_input(callees[0], index);
  } catch (...) {
    --m_depth;
    throw;
  }
  --m_depth;
  // Runtime values read from an operand of the call now come from the
  // instruction producing that operand here.
  auto operands = c.operands_of(instr);
  for (MapSet& set : sets) {
    for (IndexingMap& m : set) {
      for (RuntimeSource& s : m.runtime_sources()) {
        s.instruction = s.operand >= 0 && static_cast<std::size_t>(s.operand) < operands.size()
                            ? static_cast<std::int64_t>(operands[static_cast<std::size_t>(s.operand)])
                            : -1;
      }
    }
  }
  return sets;
}

namespace {

// Inside a called computation, a runtime value read from a parameter is
// the call's operand of that number; one computed inside stays internal.
void relabel_sources(const hlo::Computation& callee, MapSet& set, MapStyle style) {
  for (IndexingMap& m : set) {
    for (RuntimeSource& s : m.runtime_sources()) {
      const hlo::Instruction* producer =
          s.instruction >= 0 ? &callee.instructions[static_cast<std::size_t>(s.instruction)] : nullptr;
      if (producer != nullptr && producer->opcode == Opcode::kParameter) {
        s.operand = producer->parameter_number;
      } else {
        s.operand = -1;
        // XLA names the instruction only; we also say which computation holds it.
        if (producer != nullptr && style == MapStyle::kExact) {
          s.source = std::string(callee.name).append("/").append(producer->name);
        }
      }
      s.instruction = -1;
    }
  }
}

std::size_t parameter_count(const hlo::Computation& c) {
  std::size_t n = 0;
  for (const hlo::Instruction& i : c.instructions) {
    if (i.opcode == Opcode::kParameter) n = std::max(n, static_cast<std::size_t>(i.parameter_number + 1));
  }
  return n;
}

}  // namespace

bool IndexingAnalysis::is_branch(std::uint32_t computation) {
  if (m_is_branch.empty()) {
    m_is_branch.assign(m_module.computations.size(), 0);
    for (const hlo::Computation& c : m_module.computations) {
      for (const hlo::Instruction& i : c.instructions) {
        if (i.opcode != Opcode::kConditional) continue;
        for (std::uint32_t callee : c.callees_of(i))
          if (callee < m_is_branch.size()) m_is_branch[callee] = 1;
      }
    }
  }
  return computation < m_is_branch.size() && m_is_branch[computation] != 0;
}

const std::vector<std::uint32_t>& IndexingAnalysis::body_order(std::uint32_t callee) {
  auto it = m_body_order.find(callee);
  if (it == m_body_order.end()) it = m_body_order.emplace(callee, post_order(m_module.computations[callee])).first;
  return it->second;
}

const std::vector<MapSet>& IndexingAnalysis::body_op_maps(std::uint32_t callee, std::uint32_t instruction,
                                                          std::size_t index, bool forward, bool walked_often,
                                                          std::vector<MapSet>& scratch) {
  // Also the ops op_maps memoises by signature: asking it again builds the
  // signature and copies the maps, for every instruction of every walk. Past
  // the nesting bound a call's maps are UNDEFINED, whatever was seen before.
  if (!walked_often || m_depth > 64) {
    scratch = op_maps(callee, instruction, index, forward);
    return scratch;
  }
  std::vector<std::vector<BodyOpMaps>>& by_instruction = m_body_op_maps[callee];
  if (by_instruction.empty()) by_instruction.resize(m_module.computations[callee].instructions.size());
  for (BodyOpMaps& known : by_instruction.at(instruction))
    if (known.index == index && known.forward == forward) return known.sets;
  std::vector<MapSet> sets = op_maps(callee, instruction, index, forward);  // may walk other computations
  // A reference into this vector lives only until the caller asks again.
  std::vector<BodyOpMaps>& known = m_body_op_maps[callee].at(instruction);
  known.push_back({index, forward, std::move(sets)});
  return known.back().sets;
}

// The semantic deduplication of a composed set: a wide call asks the same
// pairs for every output, so the verdicts are memoised.
void IndexingAnalysis::insert_final(MapSet& set, std::vector<std::uint32_t>& ids, IndexingMap map) {
  if (m_options.style == MapStyle::kExact) {
    m_final_memo.insert_unique(set, ids, std::move(map));
  } else {
    insert_unique(set, std::move(map), false);
  }
}

namespace {

// The maps into each parameter of a called computation as composition
// reaches it, deduplicated structurally like insert_unique(set, map, false),
// in arrival order. Maps into different elements of a tuple parameter (or an
// UNDEFINED map and a defined one) never merge, so each element is checked
// against its own maps only: a wide tuple parameter does not compare every
// pair of its elements' maps.
class ParameterMaps {
public:
  explicit ParameterMaps(std::size_t parameters) : m_known_empty(parameters) {}

  /// `element`: the tuple element `map` reads (0 for an array parameter).
  void add(std::size_t parameter, std::int64_t element, IndexingMap map) {
    if (parameter >= m_known_empty.size()) throw std::out_of_range("a parameter number past the parameter count");
    if (map.is_known_empty()) {
      // Stands in for an otherwise empty set only.
      if (!m_known_empty[parameter]) m_known_empty[parameter] = std::move(map);
      return;
    }
    const Key key{parameter, map.is_undefined() ? -1 : element};
    MapSet& set = m_sets[key];
    const std::size_t before = set.size();
    insert_unique(set, std::move(map), false);
    if (set.size() > before) m_order.emplace_back(key, before);
  }

  std::vector<MapSet> take() {
    std::vector<MapSet> out(m_known_empty.size());
    for (const auto& [key, position] : m_order) out[key.first].push_back(std::move(m_sets[key][position]));
    for (std::size_t p = 0; p < out.size(); ++p) {
      if (out[p].empty() && m_known_empty[p]) out[p].push_back(std::move(*m_known_empty[p]));
    }
    return out;
  }

private:
  using Key = std::pair<std::size_t, std::int64_t>;  // parameter, element (-1: UNDEFINED maps)
  std::map<Key, MapSet> m_sets;
  std::vector<std::pair<Key, std::size_t>> m_order;  // each survivor: its set and position there
  std::vector<std::optional<IndexingMap>> m_known_empty;
};

// The tuple element a map into a tuple names in its first result; none for a
// map that names none (or is not defined).
std::optional<std::int64_t> named_element(const IndexingMap& m) {
  if (!m.is_defined() || m.results().empty() || m.results().front().kind() != Expr::Kind::kConstant)
    return std::nullopt;
  return m.results().front().constant_value();
}

}  // namespace

// Maps into different elements of a tuple never merge, so a set into a wide
// tuple is deduplicated per element: the same survivors in the same order as
// one pass over the whole set, without comparing every pair of elements.
void IndexingAnalysis::insert_all_final(MapSet& set) {
  const bool by_element = std::all_of(
      set.begin(), set.end(), [](const IndexingMap& m) { return m.is_undefined() || named_element(m).has_value(); });
  if (!by_element) {
    MapSet unique;
    std::vector<std::uint32_t> ids;
    for (IndexingMap& m : set) insert_final(unique, ids, std::move(m));
    set = std::move(unique);
    return;
  }
  // Group key: the element, or -1 for UNDEFINED maps (they merge only with each other).
  std::map<std::int64_t, std::pair<MapSet, std::vector<std::uint32_t>>> groups;
  std::vector<std::pair<std::int64_t, std::size_t>> order;  // group and position of each survivor
  for (IndexingMap& m : set) {
    const std::int64_t key = named_element(m).value_or(-1);
    auto& [group, ids] = groups[key];
    const std::size_t before = group.size();
    insert_final(group, ids, std::move(m));
    if (group.size() > before) order.emplace_back(key, before);
  }
  MapSet unique;
  unique.reserve(order.size());
  for (const auto& [key, position] : order) unique.push_back(std::move(groups[key].first[position]));
  set = std::move(unique);
}

IndexingMap IndexingAnalysis::composition_step(const IndexingMap& first, std::size_t first_hash,
                                               const IndexingMap& second, std::size_t second_hash,
                                               std::size_t& compositions) {
  auto count = [&] {
    check_deadline();
    if (++compositions > k_max_compositions_per_walk) throw CompositionLimitReached();
  };
  const ComposedPairMemo::Step* known = m_pair_memo.find(first, first_hash, second, second_hash);
  if (known == nullptr) {
    IndexingMap m = m_options.style == MapStyle::kXla ? compose_like_xla(first, second) : compose(first, second);
    count();
    // Deterministic caps on the map's size, before and after simplifying it (map_complexity.hpp).
    ComposedPairMemo::Step step;
    step.over_caps = exceeds_composition_caps(m);
    if (!step.over_caps) {
      m_step_memo.simplify(m, step_policy());
      step.over_caps = exceeds_composition_caps(m);
    }
    if (!step.over_caps) step.map = std::move(m);
    known = &m_pair_memo.insert(first, first_hash, second, second_hash, std::move(step));
  } else {
    count();
  }
  if (known->over_caps) throw CompositionLimitReached(composition_caps_reason());
  return known->map;
}

std::optional<IndexingMap> IndexingAnalysis::exact_step(const IndexingMap& first, const IndexingMap& second) {
  if (step_policy() != SimplifyPolicy::kExactRulesOnly || m_options.style != MapStyle::kExact) return std::nullopt;
  std::size_t compositions = 0;  // not a walk's: no bound
  return composition_step(first, MapIdentityHash()(first), second, MapIdentityHash()(second), compositions);
}

std::vector<MapSet> IndexingAnalysis::fused_output_to_input(std::uint32_t callee, std::size_t output) {
  if (auto it = m_fused_o2i.find({callee, output}); it != m_fused_o2i.end()) return it->second;
  std::vector<MapSet> result;
  try {
    result = walk_output_to_input(callee, output);
  } catch (const CompositionLimitReached& e) {
    // Past the bound: what the output may depend on, read whole (approximate), instead of UNDEFINED.
    try {
      if (!m_dependence) m_dependence = std::make_unique<OutputDependence>(m_module);
      result = m_dependence->maps(callee, output, dataflow_only(e.what()));
    } catch (const Unsupported& why) {
      result.assign(parameter_count(m_module.computations[callee]),
                    undefined_set(std::string(e.what()).append("; ").append(why.what())));
    }
  }
  m_fused_o2i.emplace(std::make_pair(callee, output), result);
  return result;
}

std::vector<MapSet> IndexingAnalysis::walk_output_to_input(std::uint32_t callee, std::size_t output) {
  const hlo::Computation& body = m_module.computations[callee];
  if (body.root == hlo::k_none) throw Unsupported("the called computation has no root");
  const hlo::Shape& root_shape = m_module.shape_of(body.instructions[body.root]);
  const hlo::Shape& out_shape = leaf_shape(root_shape, output);

  WalkState state(m_module, body);
  state[{body.root, output}].push_back(IndexingMap::identity(dimension_sizes(out_shape)));
  ParameterMaps into_parameters(parameter_count(body));
  const std::vector<std::uint32_t>& order = body_order(callee);
  const bool walked_often = leaf_count(root_shape) > 1;  // once per output
  std::size_t compositions = 0;
  auto step = [this, &compositions](const IndexingMap& a, std::size_t a_hash, const IndexingMap& b,
                                    std::size_t b_hash) {
    return composition_step(a, a_hash, b, b_hash, compositions);
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint32_t i = *it;
    const hlo::Instruction& instr = body.instructions[i];
    WalkState::Outputs* reached = state.reached(i);
    if (reached == nullptr) continue;  // not on this output's paths
    check_deadline();
    const auto operands = body.operands_of(instr);
    std::vector<char> operand_is_tuple(operands.size());
    for (std::size_t j = 0; j < operands.size(); ++j)
      operand_is_tuple[j] = m_module.shape_of(body.instructions[operands[j]]).is_tuple ? 1 : 0;
    for (auto s = reached->begin(); s != reached->end(); ++s) {
      bound_element_maps(s->second, m_module.shape_of(instr), s->first);
      const MapSet& consumer = s->second;
      if (instr.opcode == Opcode::kParameter) {
        const auto parameter = static_cast<std::size_t>(instr.parameter_number);
        const hlo::Shape& shape = m_module.shape_of(instr);
        for (const IndexingMap& m : consumer) {
          if (!shape.is_tuple) {
            into_parameters.add(parameter, 0, m);
          } else {
            into_parameters.add(parameter, static_cast<std::int64_t>(s->first), into_tuple_element(m, shape, s->first));
          }
        }
        continue;
      }
      if (instr.opcode == Opcode::kTuple) {
        // An output element of a tuple reads one array operand by identity: composed directly,
        // without the set per operand op_maps builds (a wide tuple has thousands, for every output).
        const hlo::Shape& shape = m_module.shape_of(instr);
        const std::vector<std::size_t> path = leaf_path(shape, s->first);
        if (path.size() == 1 && path[0] < operands.size() && !operand_is_tuple[path[0]]) {
          if (!consumer.empty()) {
            IndexingMap identity = IndexingMap::identity(dimension_sizes(leaf_shape(shape, s->first)));
            simplify(identity, single_op_policy(Opcode::kTuple));
            compose_into(consumer, {std::move(identity)}, state[{operands[path[0]], 0}], step);
          }
          continue;
        }
      }
      std::vector<MapSet> scratch;
      // The root is asked for each output's element once, by that output's walk: not kept (a wide
      // tuple root would keep a set per operand for every output, quadratic in its width).
      const std::vector<MapSet>& producer =
          body_op_maps(callee, i, s->first, false, walked_often && i != body.root, scratch);
      if (instr.opcode == Opcode::kWhile && is_branch(callee) && !producer.empty() &&
          producer[0].size() > k_max_while_reads_per_walk) {
        throw CompositionLimitReached(
            fmt::format("a while in a conditional's branch reads over {} state elements for one output",
                        k_max_while_reads_per_walk));
      }
      for (std::size_t j = 0; j < operands.size() && j < producer.size(); ++j) {
        if (!operand_is_tuple[j]) {
          // An operand the output does not read (an empty set) is not walked: one output of a
          // wide tuple reads one of its thousands of operands, and walking the others with
          // empty sets made the walks of all outputs quadratic in the width.
          if (!consumer.empty() && !producer[j].empty())
            compose_into(consumer, producer[j], state[{operands[j], 0}], step);
        } else if (reads_tuple_leaves_by_result(instr.opcode)) {
          // Each map names the leaf it reads in its first result.
          for (const IndexingMap& p : producer[j]) {
            MapSet& into = state[{operands[j], tuple_element_of(p)}];
            if (!consumer.empty()) compose_into(consumer, {without_tuple_element(p)}, into, step);
          }
        } else {
          // The op reads the leaf its output passes on (get-tuple-element's index=, ...).
          const std::size_t element = operand_tuple_element(OpContext{m_module, body, i}, s->first).value_or(0);
          compose_into(consumer, producer[j], state[{operands[j], element}], step);
        }
      }
    }
  }
  std::vector<MapSet> result = into_parameters.take();
  for (std::uint32_t i = 0; i < body.instructions.size(); ++i) {
    const hlo::Instruction& instr = body.instructions[i];
    if (instr.opcode == Opcode::kParameter)
      bound_parameter_maps(result.at(static_cast<std::size_t>(instr.parameter_number)), m_module.shape_of(instr));
  }
  for (MapSet& set : result) {
    check_deadline();
    for (IndexingMap& m : set) m_final_memo.simplify(m, final_policy());
    relabel_sources(body, set, m_options.style);
    insert_all_final(set);
  }
  return result;
}

std::vector<MapSet> IndexingAnalysis::fused_input_to_output(std::uint32_t callee, std::size_t operand) {
  if (auto it = m_fused_i2o.find({callee, operand}); it != m_fused_i2o.end()) return it->second;
  std::vector<MapSet> result;
  try {
    result = walk_input_to_output(callee, operand);
  } catch (const CompositionLimitReached& e) {
    const hlo::Computation& body = m_module.computations[callee];
    result.assign(leaf_count(m_module.shape_of(body.instructions[body.root])), undefined_set(e.what()));
  }
  m_fused_i2o.emplace(std::make_pair(callee, operand), result);
  return result;
}

std::vector<MapSet> IndexingAnalysis::walk_input_to_output(std::uint32_t callee, std::size_t operand) {
  const hlo::Computation& body = m_module.computations[callee];
  if (body.root == hlo::k_none) throw Unsupported("the called computation has no root");
  std::vector<std::vector<std::pair<std::uint32_t, std::size_t>>> users(body.instructions.size());
  for (std::uint32_t i = 0; i < body.instructions.size(); ++i) {
    auto operands = body.operands_of(body.instructions[i]);
    for (std::size_t j = 0; j < operands.size(); ++j) users[operands[j]].push_back({i, j});
  }
  WalkState state(m_module, body);
  for (std::uint32_t i = 0; i < body.instructions.size(); ++i) {
    const hlo::Instruction& instr = body.instructions[i];
    if (instr.opcode == Opcode::kParameter && static_cast<std::size_t>(instr.parameter_number) == operand) {
      if (m_module.shape_of(instr).is_tuple)
        throw Unsupported("operand -> output maps are not composed from a tuple parameter");
      state[{i, 0}].push_back(IndexingMap::identity(dimension_sizes(m_module.shape_of(instr))));
    }
  }
  const bool walked_often = parameter_count(body) > 1;        // once per operand
  std::vector<char> read_whole(body.instructions.size(), 0);  // users given UNDEFINED for a whole tuple
  std::size_t compositions = 0;
  auto step = [this, &compositions](const IndexingMap& a, std::size_t a_hash, const IndexingMap& b,
                                    std::size_t b_hash) {
    return composition_step(a, a_hash, b, b_hash, compositions);
  };
  for (std::uint32_t i : body_order(callee)) {
    WalkState::Outputs* reached = state.reached(i);
    if (reached == nullptr) continue;  // not reached from this operand
    check_deadline();
    for (auto s = reached->begin(); s != reached->end(); ++s) {
      bound_element_maps(s->second, m_module.shape_of(body.instructions[i]), s->first);
      const MapSet& producer = s->second;  // insertions below are under other keys
      const std::size_t element = s->first;
      for (const auto& [user, position] : users[i]) {
        const hlo::Instruction& u = body.instructions[user];
        if (u.opcode == Opcode::kGetTupleElement) {
          // The leaves of element index= are the output's leaves.
          const hlo::Shape& tuple = m_module.shape_of(body.instructions[i]);
          const auto index = static_cast<std::size_t>(parser::int_attribute(body, u, "index").value_or(0));
          const std::size_t first = leaf_offset(tuple, index);
          if (element < first || element - first >= leaf_count(m_module.shape_of(u))) continue;
          for (const IndexingMap& m : producer) insert_unique(state[{user, element - first}], m, false);
          continue;
        }
        if (m_module.shape_of(body.instructions[i]).is_tuple &&
            (hlo::op_traits(u.opcode).tuple_element != hlo::TupleElement::kNone || u.opcode == Opcode::kTuple)) {
          // Only the user's outputs that are this leaf of the tuple.
          const OpContext user_op{m_module, body, user};
          std::vector<MapSet> scratch;
          const std::vector<MapSet>& consumer = body_op_maps(callee, user, position, true, walked_often, scratch);
          for (std::size_t q = 0; q < consumer.size(); ++q) {
            if (consumer[q].empty() || operand_tuple_element(user_op, q) != element) continue;
            compose_into(producer, consumer[q], state[{user, q}], step);
          }
          continue;
        }
        if (m_module.shape_of(body.instructions[i]).is_tuple) {
          // A whole tuple read by an op that does not pass its leaves on: any
          // output leaf may depend on it (a get-tuple-element further on may
          // take any of them).
          // Once per user: every leaf of a wide tuple reaches it.
          if (std::exchange(read_whole[user], 1) != 0) continue;
          const IndexingMap why =
              IndexingMap::undefined(std::string("a tuple operand of '").append(m_module.opcode_text(u)).append("'"));
          const std::size_t leaves = leaf_count(m_module.shape_of(u));
          for (std::size_t q = 0; q < leaves; ++q) insert_unique(state[{user, q}], why);
          continue;
        }
        std::vector<MapSet> scratch;
        const std::vector<MapSet>& consumer = body_op_maps(callee, user, position, true, walked_often, scratch);
        for (std::size_t q = 0; q < consumer.size(); ++q) {
          compose_into(producer, consumer[q], state[{user, q}], step);
        }
      }
    }
  }
  const hlo::Shape& root_shape = m_module.shape_of(body.instructions[body.root]);
  std::vector<MapSet> result(leaf_count(root_shape));
  for (std::size_t q = 0; q < result.size(); ++q) {
    check_deadline();
    MapSet* reached = state.find({body.root, q});
    if (reached == nullptr) continue;
    bound_element_maps(*reached, root_shape, q);
    std::vector<std::uint32_t> ids;
    for (IndexingMap m : *reached) {
      m_final_memo.simplify(m, final_policy());
      insert_final(result[q], ids, std::move(m));
    }
    relabel_sources(body, result[q], m_options.style);
  }
  return result;
}

std::vector<MapSet> IndexingAnalysis::output_to_input(std::uint32_t computation, std::uint32_t instruction,
                                                      std::size_t output) {
  return op_maps(computation, instruction, output, false);
}

std::vector<MapSet> IndexingAnalysis::input_to_output(std::uint32_t computation, std::uint32_t instruction,
                                                      std::size_t operand) {
  return op_maps(computation, instruction, operand, true);
}

InstructionIndexing IndexingAnalysis::analyze(std::uint32_t computation, std::uint32_t instruction, bool o2i,
                                              bool i2o) {
  const double limit = m_options.time_limit_per_instruction;
  if (limit > 0) {
    m_deadline = std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit));
  }
  // The memos of composed maps serve the outputs of one instruction; kept
  // for a whole module they would hold every map of every call.
  auto forget = [this] {
    m_final_memo.clear();
    m_step_memo.clear();
    m_pair_memo.clear();
    if (!m_body_op_maps.empty()) m_body_op_maps = {};
  };
  // isl computations stop at the deadline too: one long call would otherwise
  // run past it before the next check_deadline.
  const ScopedIslDeadline isl_deadline(m_deadline);
  m_steps = 0;
  m_isl_at_start = IslContext::get().computations();
  m_isl_uncounted = 0;
  m_counting = true;
  // The last instruction's memos go now, not when it was done: exact_step() serves its fused
  // body's walk, which comes right after its analysis.
  forget();
  try {
    InstructionIndexing out = analyze_maps(computation, instruction, o2i, i2o);
    m_deadline.reset();
    m_counting = false;
    return out;
  } catch (const AnalysisLimitReached& e) {
    m_deadline.reset();
    m_counting = false;
    forget();
    // The maps from dependence alone (approximate) where it can be followed, else UNDEFINED.
    if (!m_dependence) m_dependence = std::make_unique<OutputDependence>(m_module);
    if (auto fallback = dependence_maps(m_module, *m_dependence, computation, instruction, o2i, i2o, e.what()))
      return *std::move(fallback);
    const hlo::Instruction& instr = m_module.computations[computation].instructions[instruction];
    const hlo::Shape& shape = m_module.shape_of(instr);
    const std::size_t outputs = leaf_count(shape);
    const std::vector<MapSet> sets(instr.operand_count, undefined_set(e.what()));
    InstructionIndexing out;
    if (o2i) out.output_to_input.assign(outputs, MapRow(sets));
    if (i2o) out.input_to_output.assign(outputs, MapRow(sets));
    return out;
  } catch (...) {
    m_deadline.reset();
    m_counting = false;
    throw;
  }
}

InstructionIndexing IndexingAnalysis::analyze_maps(std::uint32_t computation, std::uint32_t instruction, bool o2i,
                                                   bool i2o) {
  const hlo::Computation& c = m_module.computations[computation];
  const hlo::Instruction& instr = c.instructions[instruction];
  const std::size_t outputs = leaf_count(m_module.shape_of(instr));  // tuple_leaves.hpp
  const std::size_t operands = instr.operand_count;
  InstructionIndexing out;
  auto operand_names = c.operands_of(instr);
  auto name_sources = [&](MapSet& set) {
    for (IndexingMap& m : set) {
      for (RuntimeSource& s : m.runtime_sources()) {
        if (m_options.style == MapStyle::kExact && s.operand >= 0 &&
            static_cast<std::size_t>(s.operand) < operand_names.size()) {
          s.source = "operand " + std::to_string(s.operand) + " (" +
                     std::string(c.instructions[operand_names[static_cast<std::size_t>(s.operand)]].name) + ")";
        }
      }
    }
  };
  if (o2i) {
    for (std::size_t k = 0; k < outputs; ++k) {
      auto sets = output_to_input(computation, instruction, k);
      sets.resize(operands);
      MapRow row(std::move(sets));
      row.for_each_stored([&](std::size_t, MapSet& s) { name_sources(s); });
      out.output_to_input.push_back(std::move(row));
    }
  }
  if (i2o) {
    // Filled lazily: a wide tuple reads each operand into one output only.
    out.input_to_output.assign(outputs, MapRow{});
    for (std::size_t j = 0; j < operands; ++j) {
      auto sets = input_to_output(computation, instruction, j);
      // Operand -> output maps that could not be composed: the dependence fallback (approximate)
      // instead, except where XLA's own maps are asked for.
      if (m_options.style == MapStyle::kExact) {
        if (!m_dependence) m_dependence = std::make_unique<OutputDependence>(m_module);
        replace_undefined_by_dependence(m_module, *m_dependence, computation, instruction, j, sets);
      }
      for (std::size_t k = 0; k < outputs && k < sets.size(); ++k) {
        if (sets[k].empty()) continue;
        name_sources(sets[k]);
        if (out.input_to_output[k].empty()) out.input_to_output[k].resize(operands);
        out.input_to_output[k].set(j, std::move(sets[k]));
      }
    }
  }
  return out;
}

}  // namespace hlo_index::indexing

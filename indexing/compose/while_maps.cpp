// while, output -> operand, when the loop's trip count is known
// (loop_counter.hpp): each output leaf the body changes is the state after
// exactly `trips` iterations of the body, so its maps are the trips-th power
// of one iteration's relation, computed exactly by isl.
//
// One iteration relates element x of state leaf k after iteration t to the
// elements y of leaf j before it: the body's composed maps from its root's
// leaf k to its parameter's leaf j, with the iteration number t in [1, trips]
// as an extra dimension, so that the counter's value in that iteration,
// start + step * (t - 1), can stand in for every runtime variable the body
// derives from the counter (an offset `i`, `select(i < 0, i + n, i)`, ...),
// clamped as the op clamps it. The power from t = trips down to t = 0 then
// relates the loop's output to its init, iteration by iteration: a scan's
// row t reads xs row t and, through the carry, the rows before it, and the
// rows it overwrites read nothing of the init. A leaf the body passes on is
// the init's in every iteration: its elements have no iteration and lead to
// themselves. Every output leaf the body changes also reads what the
// condition reads (it decides the trip count), which is the init's element
// where the condition reads the counter or a leaf the body passes on.
// Operand -> output maps are the inverse relation.
//
// The answer is exact when every body and condition map is, and the body
// derives every runtime value from the counter; a runtime value the body
// computes otherwise is any value in its range (approximate). Outputs that
// reach the same leaves share one power. Where the trip count is not known,
// an output reaches more than k_max_while_reads_per_walk leaves, the
// condition reads a leaf the body changes, a body map is UNDEFINED or reads
// through an all-gather, the step has more than k_max_loop_step_relations
// relations or isl's budget runs out, the answer is o2i_while's: every
// element the output may depend on, read whole (approximate).
#include <algorithm>
#include <unordered_map>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/maps/inverse.hpp"
#include "indexing/maps/isl_bridge.hpp"
#include "indexing/maps/map_builders.hpp"
#include "indexing/ops/loop_counter.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

namespace {

using simplify::saturating_add;

constexpr std::size_t k_max_loop_step_relations = 512;

constexpr std::string_view k_body_runtime_value = "a runtime value the loop body computes, any value in its range";

// The body's instructions by name: runtime sources name the instruction of a
// called computation that holds the value ("body/name", or "name" in XLA's style).
class BodyNames {
public:
  explicit BodyNames(const hlo::Computation& body) : m_body(body) {
    for (std::uint32_t i = 0; i < body.instructions.size(); ++i) m_index.emplace(body.instructions[i].name, i);
  }
  std::optional<std::uint32_t> find(std::string_view source) const {
    if (source.size() > m_body.name.size() && source.substr(0, m_body.name.size()) == m_body.name &&
        source[m_body.name.size()] == '/')
      source.remove_prefix(m_body.name.size() + 1);
    const auto it = m_index.find(source);
    if (it == m_index.end()) return std::nullopt;
    return it->second;
  }

private:
  const hlo::Computation& m_body;
  std::unordered_map<std::string_view, std::uint32_t> m_index;
};

// What one iteration knows about the counter.
struct Iterations {
  std::int64_t trips = 0;
  std::optional<LoopCounter> counter;
  simplify::Interval counter_values;
};

// The domain of `map` with the iteration number t appended to its dimensions.
Domain with_iteration(const Domain& domain, std::int64_t trips) {
  Domain out = domain;
  out.variables(VarKind::kDim).push_back(Variable{Interval{1, trips}, {}});
  return out;
}

// The relation of one body map into leaf `to` (its results without the leaf
// index) as pieces over [x, t, y, t - 1], or [x, t, y] into a leaf the body
// passes on (`to_passed_on`): that leaf is the same in every iteration, so its
// elements need no iteration of their own and only lead to themselves.
// Runtime variables the body derives from the counter are pinned to its value
// in iteration t (clamped into the values the op allows); the others, and
// range variables, are projected out.
std::vector<LeafRelation> iteration_relations(const IndexingMap& map, std::vector<Expr> results, std::size_t from,
                                              std::size_t to, bool to_passed_on, const Iterations& loop,
                                              const hlo::Module& module, const hlo::Computation& body,
                                              const BodyNames& names, bool& runtime_value_unknown) {
  const auto n_in = static_cast<std::uint32_t>(map.dim_count());
  const Expr t = Expr::dim(n_in);
  if (!to_passed_on) results.push_back(t - 1);
  std::vector<Domain> pieces{with_iteration(map.domain(), loop.trips)};
  for (std::size_t r = 0; r < map.runtime_count(); ++r) {
    std::optional<std::vector<CounterPiece>> value;
    const RuntimeSource* source = r < map.runtime_sources().size() ? &map.runtime_sources()[r] : nullptr;
    if (loop.counter && source != nullptr && source->map && source->map->is_defined() &&
        source->map->results().empty()) {
      if (auto at = names.find(source->source))
        value = counter_pieces(module, body, *at, *loop.counter, loop.counter_values);
    }
    if (!value) {
      runtime_value_unknown = true;
      continue;
    }
    const Expr rt = Expr::runtime(static_cast<std::uint32_t>(r));
    std::vector<Domain> next;
    for (const CounterPiece& p : *value) {
      // The iterations whose counter value v = start + step * (t - 1) lies in the piece.
      const std::int64_t step = loop.counter->step, start = loop.counter->start;
      const std::int64_t t_lo = step > 0 ? simplify::ceil_div(p.values.lo - start, step) + 1
                                         : simplify::ceil_div(p.values.hi - start, step) + 1;
      const std::int64_t t_hi = step > 0 ? simplify::floor_div(p.values.hi - start, step) + 1
                                         : simplify::floor_div(p.values.lo - start, step) + 1;
      const Interval iterations = Interval{t_lo, t_hi}.intersect({1, loop.trips});
      if (iterations.empty()) continue;
      // The value in iteration t: scale * (start + step * (t - 1)) + offset = a * t + b.
      const std::int64_t a = simplify::checked_mul(p.value.scale, step);
      const std::int64_t b = simplify::checked_add(
          simplify::checked_mul(p.value.scale, simplify::checked_add(start, -step)), p.value.offset);
      const Interval feasible = source->feasible;
      const Interval at_t = scale(iterations, a) + Interval::point(b);
      for (const Domain& base : pieces) {
        Domain piece = base;
        if (!piece.add_constraint(t, iterations)) continue;
        // Inside the op's range: the value itself; below or above it: the clamp's bound.
        Domain inside = piece;
        if (inside.add_constraint(rt - t * a, Interval::point(b)) &&
            (feasible.contains(at_t) ||
             inside.add_constraint(t * a, {saturating_add(feasible.lo, -b), saturating_add(feasible.hi, -b)})))
          next.push_back(std::move(inside));
        if (at_t.lo < feasible.lo) {
          Domain below = piece;
          if (below.add_constraint(rt, Interval::point(feasible.lo)) &&
              below.add_constraint(t * a, {saturating_add(at_t.lo, -b), saturating_add(feasible.lo - 1, -b)}))
            next.push_back(std::move(below));
        }
        if (at_t.hi > feasible.hi) {
          Domain above = piece;
          if (above.add_constraint(rt, Interval::point(feasible.hi)) &&
              above.add_constraint(t * a, {saturating_add(feasible.hi + 1, -b), saturating_add(at_t.hi, -b)}))
            next.push_back(std::move(above));
        }
      }
    }
    pieces = std::move(next);
  }
  std::vector<LeafRelation> out;
  for (const Domain& piece : pieces) {
    if (piece.has_empty_bounds()) continue;
    const isl::set graph = graph_set(piece, results);
    // [x, t, s, rt, y, t - 1] -> [x, t, y, t - 1]
    const auto hidden = static_cast<unsigned>(piece.count(VarKind::kRange) + piece.count(VarKind::kRuntime));
    out.push_back({from, to, project_out(graph, n_in + 1, hidden), n_in + 1});
  }
  return out;
}

// Leaf `leaf` passed on unchanged: an element leads to itself, in every
// iteration (the power's paths that reach it early stay there).
LeafRelation identity_relation(std::size_t leaf, const std::vector<std::int64_t>& dims) {
  const IndexingMap identity = IndexingMap::identity(dims);
  return {leaf, leaf, graph_set(identity.domain(), identity.results()), static_cast<unsigned>(dims.size())};
}

// The maps of a relation from the loop's output leaf over [x, t, y, t']
// (t = trips, t' = 0), or [x, t, y] into a leaf passed on: (x)[y] -> (leaf,
// y) per disjoint piece.
std::vector<IndexingMap> relation_maps(const LeafRelation& r, const hlo::Shape& state, bool to_passed_on) {
  const unsigned n_out = r.n_in - 1;
  const auto n_y = static_cast<std::uint32_t>(leaf_shape(state, r.to).dims.size());
  isl::set graph = to_passed_on ? r.graph : project_out(r.graph, n_out + 1 + n_y, 1);  // t'
  graph = project_out(graph, n_out, 1);                                                // t
  std::vector<Var> vars;
  for (std::uint32_t i = 0; i < n_out; ++i) vars.push_back({VarKind::kDim, i});
  for (std::uint32_t i = 0; i < n_y; ++i) vars.push_back({VarKind::kRange, i});
  std::vector<Expr> results;
  if (state.is_tuple) results.push_back(Expr::constant(static_cast<std::int64_t>(r.to)));
  for (std::uint32_t i = 0; i < n_y; ++i) results.push_back(Expr::range(i));
  std::vector<IndexingMap> out;
  for (Domain& piece : symbolic_pieces(graph, vars)) out.emplace_back(std::move(piece), results);
  return out;
}

// Output element x of a leaf reads, in every iteration, what the condition
// reads: `read` (a map from the condition's scalar result) with x's dimensions.
IndexingMap for_every_element(const IndexingMap& read, const std::vector<std::int64_t>& out_dims) {
  Domain domain(build::variables(out_dims), read.domain().variables(VarKind::kRange), {});
  for (const Constraint& c : read.domain().constraints()) {
    if (!domain.add_constraint(c.expr, c.interval)) return IndexingMap::known_empty(read);
  }
  IndexingMap out(std::move(domain), read.results());
  out.inherit_approximation(read);
  return out;
}

}  // namespace

const IndexingAnalysis::WhileAnswer& IndexingAnalysis::while_answer(std::uint32_t computation,
                                                                    std::uint32_t instruction, std::size_t output) {
  const auto key = std::make_tuple(computation, instruction, output);
  if (auto it = m_while_memo.find(key); it != m_while_memo.end()) return it->second;
  // Memoised for every instruction that reaches the loop: counted for none (instruction_indexing.hpp).
  const UncountedWork uncounted(*this);
  const OpContext op{m_module, m_module.computations[computation], instruction};
  LoopDataflow& flow = loop_dataflow(computation, op);
  if (m_while_counted.insert({computation, instruction}).second) {
    // Every output the loop's count answers, at once: they share one iteration's relation.
    if (m_depth > 64) throw Unsupported("loops nested too deeply");
    ++m_depth;
    try {
      count_while(computation, op, flow);
    } catch (const simplify::ArithmeticOverflow&) {
      // a counter value past 64 bits: the dataflow answer
    } catch (...) {
      --m_depth;
      throw;
    }
    --m_depth;
    if (auto it = m_while_memo.find(key); it != m_while_memo.end()) return it->second;
  }
  WhileAnswer answer;
  answer.invertible = flow.passes_on(output);
  // Simplified as op_maps simplifies a single op's maps.
  for (MapSet& set : detail::o2i_while(op, output, flow)) {
    MapSet simplified;
    for (IndexingMap& m : set) {
      simplify(m, single_op_policy(hlo::Opcode::kWhile));
      insert_unique(simplified, std::move(m), m_options.style == MapStyle::kExact);
    }
    answer.sets.push_back(std::move(simplified));
  }
  return m_while_memo.emplace(key, std::move(answer)).first->second;
}

std::vector<MapSet> IndexingAnalysis::while_maps(std::uint32_t computation, std::uint32_t instruction,
                                                 std::size_t index, bool forward) {
  if (!forward) return while_answer(computation, instruction, index).sets;
  // Operand -> each output: the inverse of each output's relation, where it is one.
  const std::size_t outputs =
      leaf_count(m_module.shape_of(m_module.computations[computation].instructions[instruction]));
  std::vector<MapSet> sets(outputs);
  for (std::size_t k = 0; k < outputs; ++k) {
    const WhileAnswer& answer = while_answer(computation, instruction, k);
    if (!answer.invertible || answer.sets.empty()) {
      sets[k] = MapSet{IndexingMap::undefined("operand -> output maps are not composed through a while")};
      continue;
    }
    for (const IndexingMap& m : answer.sets[0]) {
      if (!m.is_defined()) continue;
      for (IndexingMap& piece : inverse(m)) {
        piece.inherit_approximation(m);
        sets[k].push_back(std::move(piece));
      }
    }
    insert_all_final(sets[k]);
  }
  return sets;
}

LoopDataflow& IndexingAnalysis::loop_dataflow(std::uint32_t computation, const OpContext& op) {
  const auto key = std::make_pair(computation, op.index);
  if (auto it = m_loop_dataflow.find(key); it != m_loop_dataflow.end()) return it->second;
  return m_loop_dataflow.emplace(key, LoopDataflow(op)).first->second;
}

void IndexingAnalysis::count_while(std::uint32_t computation, const OpContext& op, LoopDataflow& flow) {
  if (op.operand_count() != 1) return;
  const auto trip = loop_trip_count(m_module, op.computation, op.index);
  const auto called = loop_computations(m_module, op.computation, op.instruction());
  if (!trip || !called) return;
  // The outputs the body changes, each with the leaves its dataflow reaches, in groups whose
  // leaves together fit the bound (first fit, in output order): the outputs of a loop that reach
  // the same leaves share one power.
  struct Group {
    std::map<std::size_t, std::set<std::size_t>> outputs;
    std::set<std::size_t> leaves;
  };
  std::vector<Group> groups;
  for (std::size_t k = 0; k < flow.leaves(); ++k) {
    if (flow.passes_on(k)) continue;
    const std::set<std::size_t> leaves = flow.leaves_read(k);
    if (leaves.size() > k_max_while_reads_per_walk) continue;
    auto fits = [&](const Group& g) {
      std::set<std::size_t> both = g.leaves;
      both.insert(leaves.begin(), leaves.end());
      return both.size() <= k_max_while_reads_per_walk;
    };
    auto it = std::find_if(groups.begin(), groups.end(), fits);
    if (it == groups.end()) it = groups.insert(groups.end(), Group{});
    it->outputs.emplace(k, leaves);
    it->leaves.insert(leaves.begin(), leaves.end());
  }
  for (const Group& g : groups) count_outputs(computation, op, flow, *trip, *called, g.outputs, g.leaves);
}

void IndexingAnalysis::count_outputs(std::uint32_t computation, const OpContext& op, LoopDataflow& flow,
                                     const TripCount& trip, const LoopComputations& called,
                                     const std::map<std::size_t, std::set<std::size_t>>& outputs,
                                     const std::set<std::size_t>& leaves) {
  const Iterations loop{trip.trips, trip.counter, trip.counter_values()};
  const hlo::Computation& body = m_module.computations[called.body];
  const hlo::Shape& state = op.operand_shape(0);
  const bool tuple_state = state.is_tuple;

  // Why a leaf's (or the condition's) maps are approximate; the first reason is kept.
  std::map<std::size_t, std::string> leaf_approximation;
  std::string condition_approximation;
  auto note = [](std::string& reason, std::string_view why) {
    if (reason.empty()) reason = why;
  };
  // The leaf a map into the state names (its first result for a tuple state), and the rest.
  auto split = [&](const IndexingMap& m) -> std::optional<std::pair<std::size_t, std::vector<Expr>>> {
    std::vector<Expr> rest = m.results();
    if (!tuple_state) return std::make_pair(std::size_t{0}, std::move(rest));
    if (rest.empty() || rest.front().kind() != Expr::Kind::kConstant) return std::nullopt;
    const auto leaf = static_cast<std::size_t>(rest.front().constant_value());
    rest.erase(rest.begin());
    return std::make_pair(leaf, std::move(rest));
  };
  // A map through an all-gather in the body reads elements of other devices' buffers, which
  // the relation cannot name: such loops (SPMD layer loops) keep the dataflow answer.
  auto usable = [&](const IndexingMap& m, std::string& reason) {
    if (m.approximate()) note(reason, m.approximation_reason());
    return m.is_defined() && !m.has_replica_id();
  };

  // What the condition reads, in each iteration: the init's element where the
  // leaf is the counter or passed on.
  std::vector<IndexingMap> condition;
  const std::vector<MapSet> condition_reads = fused_output_to_input(called.condition, 0);
  if (condition_reads.size() != 1) return;
  for (const IndexingMap& m : condition_reads[0]) {
    if (m.is_known_empty()) continue;
    if (!usable(m, condition_approximation) || m.runtime_count() != 0) return;
    const auto into = split(m);
    if (!into) return;
    const bool counter = loop.counter && loop.counter->leaf == into->first;
    if (!counter && !flow.passes_on(into->first)) return;
    condition.push_back(m);
  }

  std::map<std::size_t, MapSet> maps;
  for (const auto& [k, reach] : outputs) {
    for (const IndexingMap& m : condition) maps[k].push_back(for_every_element(m, op.output_dims(k)));
  }
  if (loop.trips == 0) {
    for (const auto& [k, reach] : outputs) {
      IndexingMap init = IndexingMap::identity(op.output_dims(k));
      if (tuple_state) init.results().insert(init.results().begin(), Expr::constant(static_cast<std::int64_t>(k)));
      maps[k].push_back(std::move(init));
    }
  } else {
    const BodyNames names(body);
    const bool found = within_isl_budget(
        [&] {
          std::vector<LeafRelation> step;
          for (std::size_t leaf : leaves) {
            const auto dims = dimension_sizes(leaf_shape(state, leaf));
            if (build::product(dims) == 0) continue;
            if (flow.passes_on(leaf)) {
              step.push_back(identity_relation(leaf, dims));
              continue;
            }
            const std::vector<MapSet> reads = fused_output_to_input(called.body, leaf);
            if (reads.size() != 1) return false;
            std::string& reason = leaf_approximation[leaf];
            for (const IndexingMap& m : reads[0]) {
              if (m.is_known_empty()) continue;
              const auto into = split(m);
              if (!usable(m, reason) || !into || !leaves.contains(into->first)) return false;
              bool runtime_value_unknown = false;
              const bool to_passed_on = flow.passes_on(into->first);
              for (LeafRelation& r : iteration_relations(m, into->second, leaf, into->first, to_passed_on, loop,
                                                         m_module, body, names, runtime_value_unknown))
                step.push_back(std::move(r));
              if (runtime_value_unknown) note(reason, k_body_runtime_value);
            }
          }
          // A deterministic bound on the power's work (isl composes every pair of relations
          // while squaring); the corpus's counted loops have at most 353.
          if (step.size() > k_max_loop_step_relations) return false;
          std::vector<LeafElements> start;
          for (const auto& [k, reach] : outputs) {
            Domain after_last(build::variables(op.output_dims(k)), {}, {});
            after_last.variables(VarKind::kDim).push_back(Variable{Interval::point(loop.trips), {}});
            start.push_back({k, box_set(after_last)});
          }
          for (const LeafRelation& r : leaf_relation_power(step, loop.trips, start)) {
            check_deadline();
            for (IndexingMap& m : relation_maps(r, state, flow.passes_on(r.to))) maps[r.from].push_back(std::move(m));
          }
          return true;
        },
        [] { return false; });
    if (!found) return;
  }
  for (const auto& [k, reach] : outputs) {
    // Approximate when the condition's or a reached leaf's maps are.
    std::string approximation = condition_approximation;
    for (std::size_t leaf : reach) {
      if (auto it = leaf_approximation.find(leaf); it != leaf_approximation.end()) note(approximation, it->second);
    }
    MapSet out;
    for (IndexingMap& m : maps[k]) {
      if (!approximation.empty()) m.mark_approximate(approximation);
      m_final_memo.simplify(m, final_policy());
      out.push_back(std::move(m));
    }
    insert_all_final(out);
    if (out.empty()) out.push_back(IndexingMap::known_empty(IndexingMap::identity(op.output_dims(k))));
    WhileAnswer answer;
    answer.sets = {std::move(out)};
    answer.invertible = true;
    m_while_memo.emplace(std::make_tuple(computation, op.index, k), std::move(answer));
  }
}

}  // namespace hlo_index::indexing

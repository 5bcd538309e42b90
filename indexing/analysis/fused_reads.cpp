#include "indexing/analysis/fused_reads.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "indexing/analysis/utilisation.hpp"
#include "indexing/maps/map_complexity.hpp"
#include "indexing/maps/map_ops.hpp"
#include "indexing/maps/map_set_bound.hpp"
#include "indexing/maps/simplify_map.hpp"
#include "indexing/ops/op_context.hpp"
#include "indexing/ops/op_maps.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::analysis {

using indexing::IndexingMap;
using indexing::MapSet;

namespace {

// Users before their operands: the order in which maps flow from the root.
std::vector<std::uint32_t> users_first(const hlo::Computation& body) {
  std::vector<std::uint32_t> post;
  std::vector<char> seen(body.instructions.size(), 0);
  std::vector<std::pair<std::uint32_t, std::size_t>> stack;
  for (std::uint32_t start = 0; start < body.instructions.size(); ++start) {
    if (seen[start] != 0) continue;
    seen[start] = 1;
    stack.emplace_back(start, 0);
    while (!stack.empty()) {
      auto& [i, next] = stack.back();
      const auto operands = body.operands_of(body.instructions[i]);
      if (next < operands.size()) {
        const std::uint32_t o = operands[next++];
        if (seen[o] == 0) {
          seen[o] = 1;
          stack.emplace_back(o, 0);
        }
        continue;
      }
      post.push_back(i);
      stack.pop_back();
    }
  }
  std::reverse(post.begin(), post.end());
  return post;
}

// The per-instruction time limit of the analysis applies to the walk too.
struct Deadline {
  std::optional<std::chrono::steady_clock::time_point> at;
  void check() const {
    if (at && std::chrono::steady_clock::now() > *at) throw std::runtime_error("analysis took longer than the limit");
  }
};

void compose_into(indexing::IndexingAnalysis& analysis, const MapSet& first, const MapSet& second, MapSet& into,
                  const Deadline& deadline) {
  for (const IndexingMap& a : first) {
    for (const IndexingMap& b : second) {
      deadline.check();
      if (a.is_undefined() || b.is_undefined()) throw std::runtime_error("a fused instruction has no maps");
      // The same step as the analysis' walk of this body (just done, most pairs memoised there).
      if (std::optional<IndexingMap> step = analysis.exact_step(a, b)) {
        indexing::insert_unique(into, std::move(*step), false);
        continue;
      }
      IndexingMap m = indexing::compose(a, b);
      // The same deterministic caps as the walks of IndexingAnalysis: past them the body is not composed.
      if (indexing::exceeds_composition_caps(m)) throw std::runtime_error(indexing::composition_caps_reason());
      indexing::simplify(m, indexing::SimplifyPolicy::kExactRulesOnly);
      if (indexing::exceeds_composition_caps(m)) throw std::runtime_error(indexing::composition_caps_reason());
      indexing::insert_unique(into, std::move(m), false);
    }
  }
}

}  // namespace

FusedBody fused_body(const hlo::Module& module, indexing::IndexingAnalysis& analysis, std::uint32_t computation,
                     std::uint32_t instruction) {
  FusedBody result;
  const hlo::Computation& c = module.computations[computation];
  const auto callees = c.callees_of(c.instructions[instruction]);
  if (callees.size() != 1) {
    result.undefined_reason = "not one called computation";
    return result;
  }
  if (callees[0] == hlo::k_none) {
    result.undefined_reason = "the called computation is missing from the truncated input";
    return result;
  }
  result.callee = callees[0];
  const hlo::Computation& body = module.computations[result.callee];
  if (body.root == hlo::k_none) {
    result.undefined_reason = "the called computation has no root";
    return result;
  }
  const hlo::Shape& root_shape = module.shape_of(body.instructions[body.root]);
  result.outputs = indexing::leaf_count(root_shape);
  // One loop domain: the outputs (the tuple's operands) have one shape and none is a reduce.
  if (root_shape.is_tuple && body.instructions[body.root].opcode == hlo::Opcode::kTuple) {
    result.one_loop_domain = true;
    std::optional<std::vector<std::int64_t>> dims;
    for (std::uint32_t o : body.operands_of(body.instructions[body.root])) {
      const hlo::Instruction& out = body.instructions[o];
      const hlo::Shape& shape = module.shape_of(out);
      if (out.opcode == hlo::Opcode::kReduce || shape.is_tuple) {
        result.one_loop_domain = false;
        break;
      }
      const std::vector<std::int64_t> d = indexing::dimension_sizes(shape);
      if (dims && *dims != d) result.one_loop_domain = false;
      dims = d;
    }
  }
  std::size_t parameters = 0;
  for (const hlo::Instruction& i : body.instructions) {
    if (i.opcode == hlo::Opcode::kParameter)
      parameters = std::max(parameters, static_cast<std::size_t>(i.parameter_number) + 1);
  }
  result.parameter_uses.resize(parameters);
  result.to_instruction.resize(result.outputs);
  const std::vector<std::uint32_t> order = users_first(body);
  Deadline deadline;
  if (const double limit = indexing::default_time_limit_per_instruction(); limit > 0) {
    deadline.at = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(limit));
  }
  try {
    const std::vector<const hlo::Shape*> leaves = indexing::leaf_shapes(root_shape);
    for (std::size_t k = 0; k < result.outputs; ++k) {
      auto& state = result.to_instruction[k];
      const hlo::Shape& out = *leaves.at(k);
      state[{body.root, k}].push_back(IndexingMap::identity(indexing::dimension_sizes(out)));
      for (std::uint32_t i : order) {
        const hlo::Instruction& instr = body.instructions[i];
        if (instr.opcode == hlo::Opcode::kParameter) continue;
        const auto operands = body.operands_of(instr);
        for (auto s = state.lower_bound({i, 0}); s != state.end() && s->first.first == i; ++s) {
          // Bounded as the walks of IndexingAnalysis bound theirs: a chain of dynamic-update-slices
          // otherwise multiplies the pieces around each update (dus_chain_200 in ../shared/regressions).
          const hlo::Shape& shape = module.shape_of(instr);
          const hlo::Shape* array =
              shape.is_tuple && s->first.second < shape.elements.size() ? &shape.elements[s->first.second] : &shape;
          if (!array->is_tuple) indexing::bound_maps(s->second, indexing::dimension_sizes(*array));
          const std::vector<MapSet> producer = analysis.output_to_input(result.callee, i, s->first.second);
          for (std::size_t j = 0; j < operands.size() && j < producer.size(); ++j) {
            const hlo::Instruction& operand = body.instructions[operands[j]];
            // The leaf of a tuple operand the output leaf reads (get-tuple-element's index=, ...).
            std::size_t element = 0;
            if (module.shape_of(operand).is_tuple)
              element = indexing::operand_tuple_element({module, body, i}, s->first.second).value_or(0);
            MapSet composed;
            compose_into(analysis, s->second, producer[j], composed, deadline);
            MapSet& reached = state[{operands[j], element}];
            if (operand.opcode == hlo::Opcode::kParameter) {
              auto& uses = result.parameter_uses.at(static_cast<std::size_t>(operand.parameter_number));
              auto use = std::find_if(uses.begin(), uses.end(),
                                      [&](const FusedUse& u) { return u.user == i && u.position == j; });
              if (use == uses.end()) {
                uses.push_back({i, j, std::vector<MapSet>(result.outputs)});
                use = uses.end() - 1;
              }
              for (const IndexingMap& m : composed) indexing::insert_unique(use->maps[k], m, false);
            }
            for (IndexingMap& m : composed) indexing::insert_unique(reached, std::move(m), false);
          }
        }
      }
    }
  } catch (const std::exception& e) {
    result.undefined_reason = e.what();
    return result;
  }
  // Equal relations written differently are one way of reading.
  for (auto& uses : result.parameter_uses) {
    std::sort(uses.begin(), uses.end(), [](const FusedUse& a, const FusedUse& b) {
      return std::tie(a.user, a.position) < std::tie(b.user, b.position);
    });
    for (FusedUse& u : uses) {
      for (MapSet& set : u.maps) {
        MapSet unique;
        for (IndexingMap& m : set) {
          if (deadline.at && std::chrono::steady_clock::now() > *deadline.at) {
            result.undefined_reason = "analysis took longer than the limit";
            return result;
          }
          indexing::simplify(m, indexing::SimplifyPolicy::kExact);
          indexing::insert_unique(unique, std::move(m), true);
        }
        set = std::move(unique);
      }
    }
  }
  return result;
}

std::optional<std::size_t> loop_output(const FusedUse& use) {
  std::optional<std::size_t> best;
  std::int64_t most = -1;
  for (std::size_t k = 0; k < use.maps.size(); ++k) {
    bool exact = true;
    const std::int64_t reads = reads_of_one_execution(use.maps[k], exact);
    if (reads > most) {
      most = reads;
      best = k;
    }
  }
  return best;
}

MapSet shared_loop_reads(const FusedBody& body, std::size_t parameter) {
  MapSet out;
  if (parameter >= body.parameter_uses.size()) return out;
  for (const FusedUse& use : body.parameter_uses[parameter]) {
    if (body.one_loop_domain || use.maps.size() == 1) {
      for (const MapSet& set : use.maps) {
        for (const IndexingMap& m : set) indexing::insert_unique(out, m, true);
      }
      continue;
    }
    const std::optional<std::size_t> best = loop_output(use);
    if (!best) continue;
    for (const IndexingMap& m : use.maps[*best]) indexing::insert_unique(out, m, true);
  }
  return out;
}

Evaluations fused_evaluations(const FusedBody& body, std::uint32_t instruction, std::size_t element) {
  Evaluations out;
  MapSet counted;  // every map, those with runtime offsets too
  for (const auto& per_output : body.to_instruction) {
    const auto it = per_output.find({instruction, element});
    if (it == per_output.end()) continue;
    if (!body.one_loop_domain) out.count = std::max(out.count, reads_of_one_execution(it->second, out.exact));
    for (const indexing::IndexingMap& m : it->second) {
      // A runtime offset: the evaluations at one value of it, not known here.
      if (m.runtime_count() > 0) out.exact = false;
      if (body.one_loop_domain) indexing::insert_unique(counted, m, true);
      if (m.is_defined() && m.runtime_count() == 0) indexing::insert_unique(out.maps, m, true);
    }
  }
  // Over one loop domain, the evaluations at distinct (loop point, element) pairs.
  if (body.one_loop_domain) out.count = reads_of_one_execution(counted, out.exact);
  return out;
}

}  // namespace hlo_index::analysis

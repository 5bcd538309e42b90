#include "indexing/compose/dependence_fallback.hpp"

#include <algorithm>
#include <exception>

#include "indexing/maps/map_builders.hpp"
#include "indexing/ops/op_context.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::indexing {

namespace {

constexpr std::int64_t k_all = -1;  // OperandReads: the whole operand

// One map per array of `operand` that `reads` names (the operand itself, or each leaf of a tuple
// operand it names: all for k_all), built by `map_of(array, leaf)` (none: an empty map), then the
// UNDEFINED maps of the reasons `reads` holds.
template <typename MapOf>
MapSet maps_per_leaf(const hlo::Shape& operand, const OutputDependence::OperandReads& reads, MapOf map_of) {
  MapSet set;
  auto add = [&](std::optional<IndexingMap> map) {
    if (map) set.push_back(*std::move(map));
  };
  if (!reads.elements.empty() && !operand.is_tuple) add(map_of(operand, std::nullopt));
  if (!reads.elements.empty() && operand.is_tuple) {
    const std::vector<const hlo::Shape*> leaves = leaf_shapes(operand);
    for (std::size_t k = 0; k < leaves.size(); ++k) {
      const auto leaf = static_cast<std::int64_t>(k);
      if (reads.elements.contains(k_all) || reads.elements.contains(leaf)) add(map_of(*leaves[k], leaf));
    }
  }
  for (const std::string& why : reads.undefined) set.push_back(IndexingMap::undefined(why));
  return set;
}

// Every element of an operand that output `out_dims` may depend on, from every element of the output
// (a map into a tuple operand names the leaf in its first result).
MapSet output_to_operand(const std::vector<std::int64_t>& out_dims, const hlo::Shape& operand,
                         const OutputDependence::OperandReads& reads, std::string_view why) {
  return maps_per_leaf(operand, reads, [&](const hlo::Shape& array, std::optional<std::int64_t> leaf) {
    const std::vector<std::int64_t> in = dimension_sizes(array);
    if (build::product(in) == 0) return std::optional<IndexingMap>();
    IndexingMap map = build::map(out_dims, build::ranges(in.size()), in);
    if (leaf) map.results().insert(map.results().begin(), Expr::constant(*leaf));
    map.mark_approximate(why);
    return std::optional<IndexingMap>(std::move(map));
  });
}

// Every element of output `out_dims` from every element of the operand that may feed it (a map from a
// tuple operand names the leaf in its first dimension).
MapSet operand_to_output(const std::vector<std::int64_t>& out_dims, const hlo::Shape& operand,
                         const OutputDependence::OperandReads& reads, std::string_view why) {
  if (build::product(out_dims) == 0) return {};
  return maps_per_leaf(operand, reads, [&](const hlo::Shape& array, std::optional<std::int64_t> leaf) {
    std::vector<std::int64_t> in = dimension_sizes(array);
    if (leaf) in.insert(in.begin(), *leaf + 1);
    IndexingMap map = build::map(in, build::ranges(out_dims.size()), out_dims);
    if (leaf) map.add_constraint(Expr::dim(0), Interval::point(*leaf));  // d0: the leaf
    map.mark_approximate(why);
    return std::optional<IndexingMap>(std::move(map));
  });
}

}  // namespace

std::string dataflow_only(std::string_view reason) {
  std::string why = "whole arrays";
  if (!reason.empty()) why.append(", ").append(reason);
  return why;
}

bool replace_undefined_by_dependence(const hlo::Module& module, OutputDependence& dependence, std::uint32_t computation,
                                     std::uint32_t instruction, std::size_t operand, std::vector<MapSet>& sets) {
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  const auto operands = c.operands_of(instr);
  if (operand >= operands.size()) return false;
  const hlo::Shape& shape = module.shape_of(instr);
  const hlo::Shape& operand_shape = module.shape_of(c.instructions[operands[operand]]);
  bool changed = false;
  for (std::size_t k = 0; k < sets.size(); ++k) {
    const auto undefined =
        std::find_if(sets[k].begin(), sets[k].end(), [](const IndexingMap& m) { return m.is_undefined(); });
    if (undefined == sets[k].end()) continue;
    const hlo::Shape* out = find_leaf_shape(shape, k);
    if (out == nullptr) continue;
    try {
      const std::vector<OutputDependence::OperandReads> reads = dependence.operand_reads(computation, instruction, k);
      const std::string why = dataflow_only(undefined->undefined_reason());
      MapSet fallback = operand_to_output(dimension_sizes(*out), operand_shape, reads.at(operand), why);
      sets[k] = std::move(fallback);
      changed = true;
    } catch (const std::exception&) {
      // The dataflow cannot be followed here (Unsupported, a malformed call): the UNDEFINED maps stand.
    }
  }
  return changed;
}

std::optional<InstructionIndexing> dependence_maps(const hlo::Module& module, OutputDependence& dependence,
                                                   std::uint32_t computation, std::uint32_t instruction, bool o2i,
                                                   bool i2o, std::string_view reason) {
  const std::string why = dataflow_only(reason);
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  const hlo::Shape& shape = module.shape_of(instr);
  const std::size_t outputs = leaf_count(shape);
  const auto operands = c.operands_of(instr);
  InstructionIndexing out;
  if (i2o) out.input_to_output.assign(outputs, MapRow{});
  try {
    for (std::size_t k = 0; k < outputs; ++k) {
      const hlo::Shape& out_shape = leaf_shape(shape, k);
      const std::vector<std::int64_t> out_dims = dimension_sizes(out_shape);
      const std::vector<OutputDependence::OperandReads> reads = dependence.operand_reads(computation, instruction, k);
      if (o2i) {
        std::vector<MapSet> sets(operands.size());
        for (std::size_t j = 0; j < operands.size() && j < reads.size(); ++j)
          sets[j] = output_to_operand(out_dims, module.shape_of(c.instructions[operands[j]]), reads[j], why);
        out.output_to_input.emplace_back(std::move(sets));
      }
      if (i2o) {
        for (std::size_t j = 0; j < operands.size() && j < reads.size(); ++j) {
          MapSet set = operand_to_output(out_dims, module.shape_of(c.instructions[operands[j]]), reads[j], why);
          if (set.empty()) continue;
          if (out.input_to_output[k].empty()) out.input_to_output[k].resize(operands.size());
          out.input_to_output[k].set(j, std::move(set));
        }
      }
    }
  } catch (const std::exception&) {
    return std::nullopt;  // the dataflow cannot be followed: the caller's UNDEFINED answer stands
  }
  return out;
}

std::vector<MapSet> whole_operand_maps(const hlo::Module& module, std::uint32_t computation, std::uint32_t instruction,
                                       std::size_t index, bool forward, std::string_view reason) {
  const hlo::Computation& c = module.computations.at(computation);
  const hlo::Instruction& instr = c.instructions.at(instruction);
  const hlo::Shape& shape = module.shape_of(instr);
  const auto operands = c.operands_of(instr);
  const OutputDependence::OperandReads everything{{k_all}, {}};
  auto operand_shape = [&](std::size_t j) -> const hlo::Shape& { return module.shape_of(c.instructions[operands[j]]); };
  std::vector<MapSet> sets;
  if (!forward) {
    const hlo::Shape* out = find_leaf_shape(shape, index);
    sets.resize(operands.size());
    if (out == nullptr) return sets;
    for (std::size_t j = 0; j < operands.size(); ++j)
      sets[j] = output_to_operand(dimension_sizes(*out), operand_shape(j), everything, reason);
    return sets;
  }
  const std::size_t outputs = leaf_count(shape);
  sets.resize(outputs);
  if (index >= operands.size()) return sets;
  for (std::size_t k = 0; k < outputs; ++k)
    sets[k] = operand_to_output(dimension_sizes(leaf_shape(shape, k)), operand_shape(index), everything, reason);
  return sets;
}

}  // namespace hlo_index::indexing

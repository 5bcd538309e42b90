// Sound answers from dataflow alone (OutputDependence), where composing the
// maps of an instruction exactly failed or is past a bound: every element of
// what may be involved, marked approximate.
//
// - operand -> output, the mirror of the output -> operand fallback: the
//   outputs whose values may depend on an operand, every element of them,
//   from every element of the operand (of each tuple element that may feed
//   them). Output k depends on operand j exactly when the dataflow from
//   output k reaches operand j (OutputDependence::operand_reads), so this is
//   that relation turned around; the dataflow through called computations is
//   memoised per computation and output element by OutputDependence.
// - a whole instruction past the per-instruction time limit: both
//   directions from the dependence, instead of UNDEFINED.
//
// An operand -> output map from a tuple operand names the leaf it starts
// from in its first dimension (an interval of one value), as a map into a
// tuple names the leaf in its first result (tuple_leaves.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/compose/instruction_indexing.hpp"
#include "indexing/ops/output_dependence.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

/// The approximation reason of a fallback map: `whole arrays, <reason>`,
/// where `reason` says why the maps could not be composed.
std::string dataflow_only(std::string_view reason);

/// `sets` are operand `operand`'s maps to each output of `instruction` of
/// `computation` (IndexingAnalysis::input_to_output). Each set holding an
/// UNDEFINED map is replaced by the dependence fallback for that output leaf
/// (an empty set when the output cannot depend on the operand). Returns
/// whether any set changed.
bool replace_undefined_by_dependence(const hlo::Module& module, OutputDependence& dependence, std::uint32_t computation,
                                     std::uint32_t instruction, std::size_t operand, std::vector<MapSet>& sets);

/// Every map of `instruction` of `computation` from dependence alone, in the
/// directions asked (the layout of IndexingAnalysis::analyze), or nothing
/// when the dependence cannot be followed (an unnamed called computation).
std::optional<InstructionIndexing> dependence_maps(const hlo::Module& module, OutputDependence& dependence,
                                                   std::uint32_t computation, std::uint32_t instruction, bool o2i,
                                                   bool i2o, std::string_view reason);

/// The maps of an instruction whose semantics the module does not give (a
/// call, conditional, while or async-start of a computation a truncated dump
/// lacks): every element of each output leaf reads every element of every
/// operand (each leaf of a tuple operand, named in the first result), and the
/// reverse when `forward`; approximate with `reason`. The layout of
/// IndexingAnalysis::op_maps: output `index` -> one set per operand, or
/// operand `index` -> one set per output leaf.
std::vector<MapSet> whole_operand_maps(const hlo::Module& module, std::uint32_t computation, std::uint32_t instruction,
                                       std::size_t index, bool forward, std::string_view reason);

}  // namespace hlo_index::indexing

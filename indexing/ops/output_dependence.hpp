// Which parameter elements one output of a called computation may depend
// on, by dataflow alone: the fallback when composing its maps exactly is past
// a bound (k_max_compositions_per_walk, k_max_while_reads_per_walk). Every
// element of each array (or tuple element) the output may depend on, read
// for every index of the output: a sound superset, marked approximate.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/ops/op_maps.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

/// The computation of each branch of conditional `instr` of `c`, in
/// branch-index order (true_computation first for a pred selector). Throws
/// Unsupported when they are not named. (conditional_maps.cpp)
std::vector<std::uint32_t> conditional_branches(const hlo::Module& module, const hlo::Computation& c,
                                                const hlo::Instruction& instr);

/// What outputs of called computations may depend on, memoised per
/// (computation, output element) for one module.
class OutputDependence {
public:
  explicit OutputDependence(const hlo::Module& module);
  ~OutputDependence();
  OutputDependence(const OutputDependence&) = delete;
  OutputDependence& operator=(const OutputDependence&) = delete;

  /// Output `output` of called computation `callee` (its root, or leaf
  /// `output` of a tuple root; tuple_leaves.hpp) to each parameter: for each
  /// array or tuple leaf it may depend on, one approximate map reading all of
  /// it at every output index (maps into a tuple parameter name the leaf in
  /// their first result, as composed ones do); a parameter reached through an
  /// op whose maps are UNDEFINED also gets that UNDEFINED map. Dependence
  /// follows get-tuple-element and tuple by leaf, a while by the state leaves
  /// its output may read (that leaf and those the condition reads, through
  /// the body, to a fixed point; only the leaf itself when the body passes it
  /// on), a call or conditional through its computations, and any other op to
  /// every leaf of every operand.
  std::vector<MapSet> maps(std::uint32_t callee, std::size_t output, std::string_view why);

  /// What one operand of an instruction may feed into one of its outputs.
  struct OperandReads {
    std::set<std::int64_t> elements;  // tuple elements (-1: the whole operand; an array's is -1)
    std::set<std::string> undefined;  // reasons, when reached through an op whose maps are UNDEFINED
  };
  /// Output `output` of instruction `instruction` of computation
  /// `computation` (element `output` of a tuple result) to each of its
  /// operands, by the same dataflow as maps() (one step: a call, conditional
  /// or while through its computations, any other op to all its operands).
  std::vector<OperandReads> operand_reads(std::uint32_t computation, std::uint32_t instruction, std::size_t output);

private:
  class Walker;
  std::unique_ptr<Walker> m_walker;
};

}  // namespace hlo_index::indexing

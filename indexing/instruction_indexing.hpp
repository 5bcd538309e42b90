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

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "indexing/op_maps.hpp"
#include "indexing/simplify_map.hpp"
#include "parser/hlo_module.hpp"

namespace hlo_index::indexing {

struct AnalysisOptions {
  /// kXla: XLA's maps and its simplification policy (single ops are only
  /// simplified where XLA does; no isl), for string-for-string comparison.
  MapStyle style = MapStyle::kExact;
  /// Simplify maps (and fusion compositions after every step).
  bool simplify = true;
};

/// The maps of one instruction: [output][operand] -> set of maps. An
/// input_to_output row may be empty: no operand feeds that output.
struct InstructionIndexing {
  std::vector<std::vector<MapSet>> output_to_input;
  std::vector<std::vector<MapSet>> input_to_output;
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
  InstructionIndexing analyze(std::uint32_t computation, std::uint32_t instruction, bool o2i, bool i2o);

  /// Number of per-op map computations answered from the memo (for bench/).
  std::size_t memo_hits() const { return m_memo_hits; }

private:
  std::vector<MapSet> op_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index, bool forward);
  std::vector<MapSet> fused_output_to_input(std::uint32_t callee, std::size_t output);
  std::vector<MapSet> fused_input_to_output(std::uint32_t callee, std::size_t operand);
  std::vector<MapSet> called_maps(std::uint32_t computation, std::uint32_t instruction, std::size_t index,
                                  bool forward);
  // How single-op maps, each composition step and composed maps are simplified.
  SimplifyPolicy single_op_policy(hlo::Opcode opcode) const;
  SimplifyPolicy step_policy() const;
  SimplifyPolicy final_policy() const;
  std::string signature(std::uint32_t computation, std::uint32_t instruction, std::size_t index, bool forward);
  /// The same number for equal shapes (the parser interns shapes by their
  /// text, so `f32[2]` and `f32[2]{0}` have different ids but equal maps).
  std::uint32_t shape_class(hlo::ShapeId shape);

  const hlo::Module& m_module;
  AnalysisOptions m_options;
  std::unordered_map<std::string, std::vector<MapSet>> m_op_memo;
  std::vector<std::uint32_t> m_shape_class;                        // by ShapeId; k_unclassified until asked
  std::unordered_map<std::string, std::uint32_t> m_shape_classes;  // by canonical text, computed once per ShapeId
  std::map<std::pair<std::uint32_t, std::size_t>, std::vector<MapSet>> m_fused_o2i, m_fused_i2o;
  int m_depth = 0;
  std::size_t m_memo_hits = 0;
};

/// Adds `map` to `set` unless the set already holds the same map, or with
/// `semantic` an equal relation (isl decides). KNOWN EMPTY maps only stand
/// in for an otherwise empty set.
void insert_unique(MapSet& set, IndexingMap map, bool semantic = true);

}  // namespace hlo_index::indexing

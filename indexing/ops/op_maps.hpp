// Per-op indexing maps: for one instruction, output -> operand maps (which
// operand elements an output element reads) and operand -> output maps
// (which output elements an operand element feeds), following the op
// semantics of XLA's operation-semantics document.
//
// Every operand gets a *set* of maps whose union is the relation: most ops
// need one map, a few need pieces (the padding value of a pad, the parts of
// a dynamic-update-slice operand the update does not overwrite, a clamped
// iota offset). An empty set means "not read". Ops outside the covered set
// give UNDEFINED maps with a reason. Fusions and calls are composed by
// IndexingAnalysis (instruction_indexing.hpp).
#pragma once

#include <optional>
#include <vector>

#include "indexing/maps/indexing_map.hpp"
#include "indexing/ops/op_context.hpp"

namespace hlo_index::indexing {

/// kExact: the exact relation, as pieces where needed. kXla: XLA's own
/// maps, including its over-approximations (a dynamic-update-slice operand
/// read everywhere, a pad value read by every output element, batch groups
/// as a range variable, kept out-of-range constant offsets); maps that are
/// over-approximations are marked approximate.
enum class MapStyle { kExact, kXla };

/// Output `output` of `op` to each operand: one set per operand.
std::vector<MapSet> output_to_input(const OpContext& op, std::size_t output, MapStyle style);

/// Operand `operand` of `op` to each output: one set per output.
std::vector<MapSet> input_to_output(const OpContext& op, std::size_t operand, MapStyle style);

/// The maps of `op` as a custom-call (by its custom_call_target): output
/// `index` -> each operand, or (forward) operand `index` -> each output.
std::vector<MapSet> custom_call_maps(const OpContext& op, std::size_t index, bool forward, MapStyle style);

/// What a custom-call computes, as far as the cost of its arithmetic goes
/// (from the same table of targets as its maps).
enum class CustomCallWork {
  kNone,         // moves or annotates data: no arithmetic
  kElementwise,  // one operation per output element
  kMatmul,       // a GEMM: one multiply-accumulate per (output element, operand 0 element) pair
  kConvolution,  // a convolution (cuDNN): likewise
  kTriangularSolve,
  kUnknown,  // a kernel or target without published semantics
};
CustomCallWork custom_call_work(const OpContext& op);

/// Calls, conditionals, whiles and async-starts may read several leaves of a
/// tuple operand: each of their maps into one has the leaf (tuple_leaves.hpp)
/// as its first result (a constant). Other ops read the leaf that
/// operand_tuple_element names.
bool reads_tuple_leaves_by_result(hlo::Opcode op);

/// Which leaf (tuple_leaves.hpp) of its tuple-shaped operand output leaf
/// `output` of `op` passes on: the same shape index under get-tuple-element's
/// index=, copy-done's first element, ..., the same leaf for opt-barrier,
/// recv-done, ... (op_traits' TupleElement column), and for tuple the rest of
/// the shape index in the operand its first index names;
/// none for ops that read no tuple operand, or when the shape index names no
/// array of the operand.
std::optional<std::size_t> operand_tuple_element(const OpContext& op, std::size_t output);

}  // namespace hlo_index::indexing

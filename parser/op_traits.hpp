// What hlo-index knows about each op, in one table (op_traits.cpp): how its
// indexing maps are built, how its result shape is inferred, what is checked
// about its attributes, which attributes key the per-op map memo, and XLA's
// simplification policy for its maps. Each column names a rule; the rules
// live in one file per concern, each dispatching on the column through a
// function table indexed by it:
//   MapFamily   indexing/ops/op_maps.cpp (the maps of each family, both directions)
//   ShapeRule   parser/result_shapes.cpp
//   CheckRule   parser/checks.cpp
//   CalleeRule  parser/call_checks.cpp
// The Arity column (how many operands) is read by checks.cpp. An op without a
// row has no maps (UNDEFINED), no checks, no result-shape rule and any number
// of operands.
//
// To add an op: add its spelling to HLO_INDEX_OPCODES (opcode.hpp) and its
// row to k_op_table (op_traits.cpp). If it needs a rule no other op has, add
// the rule's name to the enum here and its function to the one file that
// owns that column (the function tables static_assert that they cover every
// enum value).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "parser/opcode.hpp"

namespace hlo_index::hlo {

/// How indexing/ builds an op's maps: one entry of op_maps.cpp's table.
enum class MapFamily : std::uint8_t {
  kNone,         // no maps yet: UNDEFINED with a reason
  kNoOperands,   // constant, iota, parameter: nothing read
  kElementwise,  // the identity (a scalar operand read by every element)
  kBroadcast,
  kTranspose,
  kReverse,
  kSlice,
  kConcatenate,
  kReshape,
  kBitcast,
  kBitcastConvert,
  kReduce,
  kDot,
  kPad,
  kReduceWindow,
  kConvolution,
  kDynamicSlice,
  kDynamicUpdateSlice,
  kGather,
  kGetTupleElement,
  kTuple,
  kAllGather,
  kCall,           // fusion, call: the composed maps of the called computation
  kTupleElements,  // opt-barrier, domain, the -done halves: output k is an element of operand 0, unchanged
  kCollective,     // all-reduce, collective-permute/-broadcast: output k reads operand k at the same index
  kNothingRead,    // after-all, infeed, recv, get-dimension-size, ...: no operand element is read
  kWholeOperands,  // rng, rng-bit-generator: every output element reads every operand element
  kSort,           // sort, topk: an output element reads the whole sort dimension of every operand
  kBatchNorm,      // batch-norm-inference/-training/-grad: per feature
  kCustomCall,     // by custom_call_target (op_maps_custom_call.cpp); other targets UNDEFINED
  kScatter,
  kAllToAll,          // chunks exchanged along a dimension (or tuple elements) between the devices of a group
  kReduceScatter,     // this device's shard of the reduction: the same shard of every device's operand
  kWhile,             // elements the body passes on: identity; the others read whole (approximate)
  kConditional,       // each branch composed as a call, when the branch index (a runtime variable) selects it
  kScaledDot,         // dot of block-scaled operands: dot's maps, and the scale of each block read
  kSelectAndScatter,  // the windows covering an element: their operand elements and sources (approximate)
  kScan,              // inputs up to the position along the scan dimension, through the carries
  kFft,               // the transformed trailing dimensions of the same batch index
  kTriangularSolve,   // forward/backward substitution: a band of b, a triangle of op(a)
  kCholesky,          // the leading triangle and the start of the element's row
  kAsyncStart,        // ((operands...), result, context): the result composed through the wrapped computation
  kDynamicReshape,    // a reshape to sizes given as operands (bounded dynamic dimensions)
  kRaggedDot,         // a dot over groups of a ragged dimension (sizes an operand)
  kRaggedAllToAll,    // chunks of runtime offsets and sizes into the output buffer (approximate)
  kCount,
};

/// Maps into a tuple-shaped operand address one of its elements, in that
/// element's index space; which one, for output k of the op.
enum class TupleElement : std::uint8_t {
  kNone,            // the op reads no tuple-shaped operand
  kIndexAttribute,  // get-tuple-element: index=
  kSameAsOutput,    // opt-barrier, domain, recv-done: output k is element k
  kFirst,           // copy-done: the destination of copy-start's (destination, source, context)
  kSecond,          // all-gather-done, collective-permute-done: the result of the -start's (operand, result)
};

/// How result_shapes.cpp infers an op's result shape.
enum class ShapeRule : std::uint8_t {
  kNone,         // not checked (iota: any shape; ops hlo-index does not model)
  kElementwise,  // by OpTraits::elementwise
  kBitcastConvert,
  kBroadcast,
  kTranspose,
  kReverse,
  kSlice,
  kReshape,
  kBitcast,
  kConcatenate,
  kDot,
  kReduce,
  kPad,
  kReduceWindow,
  kConvolution,
  kDynamicSlice,
  kDynamicUpdateSlice,
  kGather,
  kGetTupleElement,
  kTuple,
  kAllGather,
  kAllGatherStart,      // (the operands, their all-gather)
  kBatchNorm,           // per-feature operands of the feature dimension's size
  kOperandShape,        // operand 0's shape (select-and-scatter, cholesky)
  kOutputOperandShape,  // operand 1's shape (ragged-all-to-all's output buffer)
  kTriangularSolve,
  kFft,
  kDynamicReshape,  // operand 0's element type, one dimension per size operand
  kCount,
};

/// How the dimensions of an elementwise op's result follow from its operands.
enum class ElementwiseForm : std::uint8_t {
  kUnary,   // the operand's
  kBinary,  // XLA's broadcasting without broadcast_dimensions
  kEqual,   // two operands of equal dimensions (stochastic-convert)
  kSelect,  // on_true's; the predicate may be a scalar
  kClamp,   // the operand's, or min's / max's for a scalar operand
};

/// How the element type of an elementwise op's result follows from its operands.
enum class ElementwiseType : std::uint8_t { kSame, kPred, kAny, kComplexPart, kMakeComplex, kAbs };

struct ElementwiseShape {
  ElementwiseForm form = ElementwiseForm::kUnary;
  ElementwiseType type = ElementwiseType::kSame;
};

/// What checks.cpp checks about an op's attributes (beyond their syntax,
/// which every op gets).
enum class CheckRule : std::uint8_t {
  kNone,
  kLiteral,            // constant: the literal fits the shape
  kCompareDirection,   // compare: direction= is known
  kFusionKind,         // fusion: kind= is known
  kBroadcast,          // dimensions= has the operand's rank, in the result's
  kTranspose,          // dimensions= is a permutation of the result's
  kOperandDimensions,  // dimensions= names dimensions of the operand
  kConcatenate,        // one dimension of the result
  kSlice,              // slice= fits the operand
  kPad,                // padding= has the operand's rank
  kDynamicSlice,       // dynamic_slice_sizes= has the operand's rank
  kIota,               // iota_dimension= is a dimension of the result
  kReduceWindow,       // window= has the operand's rank
  kGetTupleElement,    // index= is an element of the operand
  kConvolution,        // dim_labels= and window= fit the operands
  kDot,                // the batch and contracting dimensions exist
  kCount,
};

/// How many operands an op takes: XLA's HloOpcodeArity for the ops of fixed
/// arity, and what its verifier and parser require of the variadic ones.
enum class OperandCount : std::uint8_t {
  kAny,      // not checked (tuple, custom-call, after-all, ...; fusion and call against their computation)
  kExactly,  // Arity::n
  kAtLeast,  // Arity::n or more
  kPairs,    // k inputs and k initial values, k >= 1 (reduce, reduce-window)
  kScatter,  // k inputs, the indices and k updates, k >= 1
};

struct Arity {
  OperandCount count = OperandCount::kAny;
  std::uint8_t n = 0;
};

constexpr Arity exactly(std::uint8_t n) { return {OperandCount::kExactly, n}; }
constexpr Arity at_least(std::uint8_t n) { return {OperandCount::kAtLeast, n}; }

/// Whether an op of `arity` may have `count` operands.
constexpr bool fits(Arity arity, std::size_t count) {
  switch (arity.count) {
    case OperandCount::kAny: return true;
    case OperandCount::kExactly: return count == arity.n;
    case OperandCount::kAtLeast: return count >= arity.n;
    case OperandCount::kPairs: return count >= 2 && count % 2 == 0;
    case OperandCount::kScatter: return count >= 3 && count % 2 == 1;
  }
  return true;
}

/// What call_checks.cpp checks about the computations an op calls, against its
/// operands and result (XLA's ShapeVerifier handlers of the callers).
enum class CalleeRule : std::uint8_t {
  kNone,
  kBound,             // fusion, call: operand k is parameter(k), the result is the root
  kAsyncStart,        // the same through the result's ((operands...), result, ...) tuple
  kWhile,             // condition: state -> pred[]; body: state -> state
  kConditional,       // branch k: operand k+1 -> the result
  kMap,               // a scalar function of one element of each operand
  kReduce,            // reduce, reduce-window: a reducer of the k inputs into the k initial values
  kScatter,           // a reducer of the k updates into the k inputs
  kSelectAndScatter,  // select: two elements -> pred[]; scatter: a reducer of source into the initial value
  kSort,              // a comparator of two elements of each operand -> pred[]
  kCollective,        // all-reduce, reduce-scatter: a reducer of two scalars into a scalar
  kCount,
};

/// XLA's simplification of the maps of a single op (--xla-compat).
enum class XlaSimplify : std::uint8_t {
  kNone,               // left as built
  kKeepPoints,         // rules that keep point dimensions and unused symbols
  kFull,               // XLA's SimplifyIndexingMap
  kUnusedSymbolsOnly,  // only unused symbols (runtime ones too) dropped
};

struct OpTraits {
  MapFamily maps = MapFamily::kNone;
  ShapeRule result = ShapeRule::kNone;
  ElementwiseShape elementwise;  // for ShapeRule::kElementwise
  CheckRule check = CheckRule::kNone;
  /// The attributes an op's maps depend on: with the opcode and the shapes,
  /// they key the per-op map memo. Everything else (metadata,
  /// backend_config, sharding, ...) does not change the maps.
  std::span<const std::string_view> memo_attributes;
  /// Operands hold offsets read at run time: the maps depend on values, so
  /// they are not memoised.
  bool runtime_offsets = false;
  XlaSimplify xla_simplify = XlaSimplify::kNone;
  TupleElement tuple_element = TupleElement::kNone;
  Arity operands;
  CalleeRule callees = CalleeRule::kNone;
};

/// The row of `opcode` (default traits for an op without one).
const OpTraits& op_traits(Opcode opcode);

/// Whether the op's maps are the identity (MapFamily::kElementwise).
inline bool is_elementwise(Opcode opcode) { return op_traits(opcode).maps == MapFamily::kElementwise; }

}  // namespace hlo_index::hlo

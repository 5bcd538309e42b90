#include "parser/op_traits.hpp"

#include <array>

namespace hlo_index::hlo {
namespace {

// Rows name only the columns that differ from OpTraits' defaults. GCC 12
// warns about the omitted ones although they have default initializers
// (GCC bug 96868); the warning says nothing here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

using M = MapFamily;
using S = ShapeRule;
using C = CheckRule;
using F = ElementwiseForm;
using T = ElementwiseType;

// The attribute lists of the memo column.
constexpr std::string_view k_dimensions[] = {"dimensions"};
constexpr std::string_view k_slice[] = {"slice"};
constexpr std::string_view k_dot[] = {"lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims",
                                      "rhs_contracting_dims"};
constexpr std::string_view k_padding[] = {"padding"};
constexpr std::string_view k_window[] = {"window"};
constexpr std::string_view k_convolution[] = {"window", "dim_labels", "feature_group_count", "batch_group_count"};
constexpr std::string_view k_dynamic_slice[] = {"dynamic_slice_sizes"};
constexpr std::string_view k_gather[] = {"offset_dims",           "collapsed_slice_dims",        "start_index_map",
                                         "operand_batching_dims", "start_indices_batching_dims", "slice_sizes",
                                         "index_vector_dim"};
constexpr std::string_view k_index[] = {"index"};
// custom-call: cuDNN convolutions also read the convolution's attributes.
constexpr std::string_view k_custom_call[] = {"custom_call_target", "backend_config",      "window",
                                              "dim_labels",         "feature_group_count", "batch_group_count"};
constexpr std::string_view k_feature_index[] = {"feature_index"};
constexpr std::string_view k_collective_groups[] = {"dimensions", "replica_groups"};
constexpr std::string_view k_loop[] = {"body", "condition"};
// scan: to_apply too, whose parameters (scalars or slices) decide the maps.
constexpr std::string_view k_scan[] = {"dimensions", "num_carries", "is_reverse", "to_apply"};
constexpr std::string_view k_fft[] = {"fft_type", "fft_length"};
constexpr std::string_view k_triangular_solve[] = {"left_side", "lower", "unit_diagonal", "transpose_a"};
constexpr std::string_view k_cholesky[] = {"lower"};

constexpr OpTraits unary(T type = T::kSame) {
  return {.maps = M::kElementwise, .result = S::kElementwise, .elementwise = {F::kUnary, type}};
}
constexpr OpTraits binary(T type = T::kSame) {
  return {.maps = M::kElementwise, .result = S::kElementwise, .elementwise = {F::kBinary, type}};
}

struct OpRow {
  Opcode opcode;
  OpTraits traits;
};

// clang-format off
// One row per op hlo-index models; see op_traits.hpp for the columns.
constexpr OpRow k_op_table[] = {
    // Elementwise: identity maps; the result shape by form and element type.
    {Opcode::kAbs, unary(T::kAbs)},
    {Opcode::kCbrt, unary()}, {Opcode::kCeil, unary()}, {Opcode::kClz, unary()}, {Opcode::kCopy, unary()},
    {Opcode::kCos, unary()}, {Opcode::kErf, unary()}, {Opcode::kExp, unary()}, {Opcode::kExpm1, unary()},
    {Opcode::kFloor, unary()}, {Opcode::kLog, unary()}, {Opcode::kLog1p, unary()}, {Opcode::kLogistic, unary()},
    {Opcode::kNegate, unary()}, {Opcode::kNot, unary()}, {Opcode::kPopcnt, unary()},
    {Opcode::kReducePrecision, unary()}, {Opcode::kRoundNearestAfz, unary()}, {Opcode::kRoundNearestEven, unary()},
    {Opcode::kRsqrt, unary()}, {Opcode::kSign, unary()}, {Opcode::kSin, unary()}, {Opcode::kSqrt, unary()},
    {Opcode::kTan, unary()}, {Opcode::kTanh, unary()},
    {Opcode::kReal, unary(T::kComplexPart)}, {Opcode::kImag, unary(T::kComplexPart)},
    {Opcode::kIsFinite, unary(T::kPred)},
    {Opcode::kConvert, unary(T::kAny)},
    {Opcode::kAdd, binary()}, {Opcode::kAnd, binary()}, {Opcode::kAtan2, binary()}, {Opcode::kDivide, binary()},
    {Opcode::kMaximum, binary()}, {Opcode::kMinimum, binary()}, {Opcode::kMultiply, binary()},
    {Opcode::kOr, binary()}, {Opcode::kPower, binary()}, {Opcode::kRemainder, binary()},
    {Opcode::kShiftLeft, binary()}, {Opcode::kShiftRightArithmetic, binary()},
    {Opcode::kShiftRightLogical, binary()}, {Opcode::kSubtract, binary()}, {Opcode::kXor, binary()},
    {Opcode::kCompare, {.maps = M::kElementwise, .result = S::kElementwise, .elementwise = {F::kBinary, T::kPred},
                        .check = C::kCompareDirection}},
    {Opcode::kComplex, binary(T::kMakeComplex)},
    {Opcode::kStochasticConvert, {.maps = M::kElementwise, .result = S::kElementwise,
                                  .elementwise = {F::kEqual, T::kAny}}},
    {Opcode::kSelect, {.maps = M::kElementwise, .result = S::kElementwise, .elementwise = {F::kSelect, T::kSame}}},
    {Opcode::kClamp, {.maps = M::kElementwise, .result = S::kElementwise, .elementwise = {F::kClamp, T::kSame}}},
    {Opcode::kAcos, unary()}, {Opcode::kAcosh, unary()}, {Opcode::kAsin, unary()}, {Opcode::kAsinh, unary()},
    {Opcode::kAtan, unary()}, {Opcode::kAtanh, unary()}, {Opcode::kCosh, unary()}, {Opcode::kSinh, unary()},
    // Elementwise maps whose result shape is not checked: map takes its
    // element type from to_apply; all-reduce is variadic.
    {Opcode::kMap, {.maps = M::kElementwise}},
    // Collectives that combine or move the same index across replicas (variadic: output k from operand k).
    {Opcode::kAllReduce, {.maps = M::kCollective}}, {Opcode::kAllReduceStart, {.maps = M::kCollective}},
    {Opcode::kCollectivePermute, {.maps = M::kCollective}},
    {Opcode::kCollectivePermuteStart, {.maps = M::kCollective}},
    {Opcode::kCollectiveBroadcast, {.maps = M::kCollective}},
    // Elements of a tuple operand passed on unchanged (an array operand: the identity).
    {Opcode::kOptBarrier, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kDomain, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kAddDependency, {.maps = M::kTupleElements}},
    {Opcode::kAllReduceDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kAllGatherDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSecond}},
    {Opcode::kCollectivePermuteDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSecond}},
    {Opcode::kCopyStart, {.maps = M::kTupleElements}},
    {Opcode::kCopyDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kFirst}},
    {Opcode::kSend, {.maps = M::kTupleElements}},
    {Opcode::kRecvDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kSetDimensionSize, {.maps = M::kElementwise}},
    // Nothing read on the device: tokens, host transfers, sizes, ids.
    {Opcode::kAfterAll, {.maps = M::kNothingRead}}, {Opcode::kInfeed, {.maps = M::kNothingRead}},
    {Opcode::kRecv, {.maps = M::kNothingRead}}, {Opcode::kSendDone, {.maps = M::kNothingRead}},
    {Opcode::kGetDimensionSize, {.maps = M::kNothingRead}}, {Opcode::kPartitionId, {.maps = M::kNothingRead}},
    {Opcode::kReplicaId, {.maps = M::kNothingRead}}, {Opcode::kRngGetAndUpdateState, {.maps = M::kNothingRead}},
    // Every output element reads every operand element: distribution parameters, a generator's state.
    {Opcode::kRng, {.maps = M::kWholeOperands}}, {Opcode::kRngBitGenerator, {.maps = M::kWholeOperands}},
    {Opcode::kOutfeed, {.maps = M::kWholeOperands}},
    // Sorting along one dimension.
    {Opcode::kSort, {.maps = M::kSort, .memo_attributes = k_dimensions}},
    {Opcode::kTopK, {.maps = M::kSort}},
    {Opcode::kBatchNormInference, {.maps = M::kBatchNorm, .memo_attributes = k_feature_index}},
    {Opcode::kBatchNormTraining, {.maps = M::kBatchNorm, .memo_attributes = k_feature_index}},
    {Opcode::kBatchNormGrad, {.maps = M::kBatchNorm, .memo_attributes = k_feature_index}},
    {Opcode::kCustomCall, {.maps = M::kCustomCall, .memo_attributes = k_custom_call}},

    // Nothing read.
    {Opcode::kConstant, {.maps = M::kNoOperands, .check = C::kLiteral}},
    {Opcode::kIota, {.maps = M::kNoOperands, .check = C::kIota}},
    {Opcode::kParameter, {.maps = M::kNoOperands}},

    // Permutations, shifts and selections of dimensions.
    {Opcode::kBroadcast, {.maps = M::kBroadcast, .result = S::kBroadcast, .check = C::kBroadcast,
                          .memo_attributes = k_dimensions}},
    {Opcode::kTranspose, {.maps = M::kTranspose, .result = S::kTranspose, .check = C::kTranspose,
                          .memo_attributes = k_dimensions}},
    {Opcode::kReverse, {.maps = M::kReverse, .result = S::kReverse, .check = C::kOperandDimensions,
                        .memo_attributes = k_dimensions}},
    {Opcode::kSlice, {.maps = M::kSlice, .result = S::kSlice, .check = C::kSlice, .memo_attributes = k_slice}},
    {Opcode::kConcatenate, {.maps = M::kConcatenate, .result = S::kConcatenate, .check = C::kConcatenate,
                            .memo_attributes = k_dimensions}},
    {Opcode::kPad, {.maps = M::kPad, .result = S::kPad, .check = C::kPad, .memo_attributes = k_padding}},

    // Reshapes: the maps depend on the shapes (and layouts) only.
    {Opcode::kReshape, {.maps = M::kReshape, .result = S::kReshape, .xla_simplify = XlaSimplify::kKeepPoints}},
    {Opcode::kDynamicReshape, {.maps = M::kDynamicReshape, .result = S::kDynamicReshape}},
    {Opcode::kBitcast, {.maps = M::kBitcast, .result = S::kBitcast, .xla_simplify = XlaSimplify::kKeepPoints}},
    {Opcode::kBitcastConvert, {.maps = M::kBitcastConvert, .result = S::kBitcastConvert}},

    // Reductions and windows.
    {Opcode::kReduce, {.maps = M::kReduce, .result = S::kReduce, .check = C::kOperandDimensions,
                       .memo_attributes = k_dimensions}},
    {Opcode::kDot, {.maps = M::kDot, .result = S::kDot, .check = C::kDot, .memo_attributes = k_dot}},
    {Opcode::kReduceWindow, {.maps = M::kReduceWindow, .result = S::kReduceWindow, .check = C::kReduceWindow,
                             .memo_attributes = k_window, .xla_simplify = XlaSimplify::kFull}},
    {Opcode::kConvolution, {.maps = M::kConvolution, .result = S::kConvolution, .check = C::kConvolution,
                            .memo_attributes = k_convolution, .xla_simplify = XlaSimplify::kFull}},

    // Offsets read at run time.
    {Opcode::kDynamicSlice, {.maps = M::kDynamicSlice, .result = S::kDynamicSlice, .check = C::kDynamicSlice,
                             .memo_attributes = k_dynamic_slice, .runtime_offsets = true,
                             .xla_simplify = XlaSimplify::kUnusedSymbolsOnly}},
    {Opcode::kDynamicUpdateSlice, {.maps = M::kDynamicUpdateSlice, .result = S::kDynamicUpdateSlice,
                                   .runtime_offsets = true, .xla_simplify = XlaSimplify::kUnusedSymbolsOnly}},
    {Opcode::kScatter, {.maps = M::kScatter, .runtime_offsets = true}},
    {Opcode::kGather, {.maps = M::kGather, .result = S::kGather, .memo_attributes = k_gather,
                       .runtime_offsets = true, .xla_simplify = XlaSimplify::kUnusedSymbolsOnly}},

    // Tuples, collectives and calls.
    {Opcode::kGetTupleElement, {.maps = M::kGetTupleElement, .result = S::kGetTupleElement,
                                .check = C::kGetTupleElement, .memo_attributes = k_index,
                                .tuple_element = TupleElement::kIndexAttribute}},
    {Opcode::kTuple, {.maps = M::kTuple, .result = S::kTuple}},
    {Opcode::kAllGather, {.maps = M::kAllGather, .result = S::kAllGather, .memo_attributes = k_dimensions}},
    {Opcode::kAllGatherStart, {.maps = M::kAllGather, .memo_attributes = k_dimensions}},
    {Opcode::kAllToAll, {.maps = M::kAllToAll, .memo_attributes = k_collective_groups}},
    {Opcode::kRaggedAllToAll, {.maps = M::kRaggedAllToAll, .result = S::kOutputOperandShape}},
    {Opcode::kReduceScatter, {.maps = M::kReduceScatter, .memo_attributes = k_dimensions}},
    {Opcode::kFusion, {.maps = M::kCall, .check = C::kFusionKind}},
    {Opcode::kCall, {.maps = M::kCall}},
    {Opcode::kConditional, {.maps = M::kConditional, .runtime_offsets = true}},
    {Opcode::kWhile, {.maps = M::kWhile, .memo_attributes = k_loop}},

    // Block-scaled dot, windows with data-dependent selection, scans and linear algebra.
    {Opcode::kScaledDot, {.maps = M::kScaledDot, .result = S::kDot, .memo_attributes = k_dot}},
    // Memoised per instruction: constant group sizes make its maps.
    {Opcode::kRaggedDot, {.maps = M::kRaggedDot, .result = S::kDot, .runtime_offsets = true}},
    {Opcode::kSelectAndScatter, {.maps = M::kSelectAndScatter, .result = S::kOperandShape, .memo_attributes = k_window}},
    {Opcode::kScan, {.maps = M::kScan, .memo_attributes = k_scan}},
    {Opcode::kFft, {.maps = M::kFft, .result = S::kFft, .memo_attributes = k_fft}},
    {Opcode::kTriangularSolve, {.maps = M::kTriangularSolve, .result = S::kTriangularSolve, .memo_attributes = k_triangular_solve}},
    {Opcode::kCholesky, {.maps = M::kCholesky, .result = S::kOperandShape, .memo_attributes = k_cholesky}},
    // Asynchronous pairs: the start composes the wrapped computation (async_maps.cpp); update passes the
    // tuple on; done is the result element {1} of ((operands...), result, context).
    {Opcode::kAsyncStart, {.maps = M::kAsyncStart}},
    {Opcode::kAsyncUpdate, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kAsyncDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSecond}},
    // XLA's shorthand for an async-start/-update/-done wrapping a custom-call.
    {Opcode::kCustomCallStart, {.maps = M::kAsyncStart}},
    {Opcode::kCustomCallUpdate, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSameAsOutput}},
    {Opcode::kCustomCallDone, {.maps = M::kTupleElements, .tuple_element = TupleElement::kSecond}},
};
// clang-format on

#pragma GCC diagnostic pop

constexpr std::size_t k_opcode_count = static_cast<std::size_t>(Opcode::kUnknown) + 1;

constexpr auto k_traits_by_opcode = [] {
  std::array<OpTraits, k_opcode_count> traits{};
  std::array<bool, k_opcode_count> seen{};
  for (const OpRow& row : k_op_table) {
    const auto k = static_cast<std::size_t>(row.opcode);
    if (seen[k]) throw "an opcode has two rows in k_op_table";  // not a constant expression: a compile error
    seen[k] = true;
    traits[k] = row.traits;
  }
  return traits;
}();

}  // namespace

const OpTraits& op_traits(Opcode opcode) { return k_traits_by_opcode[static_cast<std::size_t>(opcode)]; }

}  // namespace hlo_index::hlo

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
using R = CalleeRule;
using E = TupleElement;

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

constexpr OpTraits elementwise(F form, T type, std::uint8_t operands) {
  return {
      .maps = M::kElementwise, .result = S::kElementwise, .elementwise = {form, type}, .operands = exactly(operands)};
}
constexpr OpTraits unary(T type = T::kSame) { return elementwise(F::kUnary, type, 1); }
constexpr OpTraits binary(T type = T::kSame) { return elementwise(F::kBinary, type, 2); }
// Rows that set only the map family, the operand count and the tuple element.
constexpr OpTraits with(M maps, Arity operands, TupleElement element = TupleElement::kNone) {
  return {.maps = maps, .tuple_element = element, .operands = operands};
}

struct OpRow {
  Opcode opcode;
  OpTraits traits;
};

// clang-format off
// One row per op hlo-index models; see op_traits.hpp for the columns. The operand counts are XLA's
// (HloOpcodeArity, and for its variadic ops what ShapeVerifier and the HLO parser require).
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
                        .check = C::kCompareDirection, .operands = exactly(2)}},
    {Opcode::kComplex, binary(T::kMakeComplex)},
    {Opcode::kStochasticConvert, elementwise(F::kEqual, T::kAny, 2)},
    {Opcode::kSelect, elementwise(F::kSelect, T::kSame, 3)}, {Opcode::kClamp, elementwise(F::kClamp, T::kSame, 3)},
    {Opcode::kAcos, unary()}, {Opcode::kAcosh, unary()}, {Opcode::kAsin, unary()}, {Opcode::kAsinh, unary()},
    {Opcode::kAtan, unary()}, {Opcode::kAtanh, unary()}, {Opcode::kCosh, unary()}, {Opcode::kSinh, unary()},
    // Elementwise maps whose result shape is not checked: map takes its
    // element type from to_apply; all-reduce is variadic.
    {Opcode::kMap, {.maps = M::kElementwise, .operands = at_least(1), .callees = R::kMap}},
    // Collectives that combine or move the same index across replicas (variadic: output k from operand k).
    {Opcode::kAllReduce, {.maps = M::kCollective, .callees = R::kCollective}},
    {Opcode::kAllReduceStart, {.maps = M::kCollective, .callees = R::kCollective}},
    {Opcode::kCollectivePermute, {.maps = M::kCollective}},
    {Opcode::kCollectivePermuteStart, {.maps = M::kCollective}},
    {Opcode::kCollectiveBroadcast, {.maps = M::kCollective}},
    // Elements of a tuple operand passed on unchanged (an array operand: the identity).
    {Opcode::kOptBarrier, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kDomain, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kAddDependency, with(M::kTupleElements, exactly(2))},
    {Opcode::kAllReduceDone, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kAllGatherDone, with(M::kTupleElements, exactly(1), E::kSecond)},
    {Opcode::kCollectivePermuteDone, with(M::kTupleElements, exactly(1), E::kSecond)},
    {Opcode::kCopyStart, with(M::kTupleElements, exactly(1))},
    {Opcode::kCopyDone, with(M::kTupleElements, exactly(1), E::kFirst)},
    {Opcode::kSend, with(M::kTupleElements, exactly(2))},
    {Opcode::kRecvDone, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kSetDimensionSize, with(M::kElementwise, exactly(2))},
    // Nothing read on the device: tokens, host transfers, sizes, ids.
    {Opcode::kAfterAll, {.maps = M::kNothingRead}}, {Opcode::kInfeed, with(M::kNothingRead, exactly(1))},
    {Opcode::kRecv, with(M::kNothingRead, exactly(1))}, {Opcode::kSendDone, with(M::kNothingRead, exactly(1))},
    {Opcode::kGetDimensionSize, with(M::kNothingRead, exactly(1))},
    {Opcode::kPartitionId, with(M::kNothingRead, exactly(0))}, {Opcode::kReplicaId, with(M::kNothingRead, exactly(0))},
    {Opcode::kRngGetAndUpdateState, with(M::kNothingRead, exactly(0))},
    // Every output element reads every operand element: distribution parameters, a generator's state.
    // rng: XLA's verifier wants 2 (the distribution's parameters); the corpus holds rng(a, b, shape) (RngExpander's
    // tests), which its parser accepts: at least 2.
    {Opcode::kRng, with(M::kWholeOperands, at_least(2))}, {Opcode::kRngBitGenerator, with(M::kWholeOperands, exactly(1))},
    {Opcode::kOutfeed, with(M::kWholeOperands, exactly(2))},
    // Sorting along one dimension.
    {Opcode::kSort, {.maps = M::kSort, .memo_attributes = k_dimensions, .operands = at_least(1), .callees = R::kSort}},
    {Opcode::kTopK, with(M::kSort, exactly(1))},
    {Opcode::kBatchNormInference,
     {.maps = M::kBatchNorm, .result = S::kBatchNorm, .memo_attributes = k_feature_index, .operands = exactly(5)}},
    {Opcode::kBatchNormTraining,
     {.maps = M::kBatchNorm, .result = S::kBatchNorm, .memo_attributes = k_feature_index, .operands = exactly(3)}},
    {Opcode::kBatchNormGrad,
     {.maps = M::kBatchNorm, .result = S::kBatchNorm, .memo_attributes = k_feature_index, .operands = exactly(5)}},
    {Opcode::kCustomCall, {.maps = M::kCustomCall, .memo_attributes = k_custom_call}},

    // Nothing read.
    {Opcode::kConstant, {.maps = M::kNoOperands, .check = C::kLiteral, .operands = exactly(0)}},
    {Opcode::kIota, {.maps = M::kNoOperands, .check = C::kIota, .operands = exactly(0)}},
    {Opcode::kParameter, with(M::kNoOperands, exactly(0))},

    // Permutations, shifts and selections of dimensions.
    {Opcode::kBroadcast, {.maps = M::kBroadcast, .result = S::kBroadcast, .check = C::kBroadcast,
                          .memo_attributes = k_dimensions, .operands = exactly(1)}},
    {Opcode::kTranspose, {.maps = M::kTranspose, .result = S::kTranspose, .check = C::kTranspose,
                          .memo_attributes = k_dimensions, .operands = exactly(1)}},
    {Opcode::kReverse, {.maps = M::kReverse, .result = S::kReverse, .check = C::kOperandDimensions,
                        .memo_attributes = k_dimensions, .operands = exactly(1)}},
    {Opcode::kSlice, {.maps = M::kSlice, .result = S::kSlice, .check = C::kSlice, .memo_attributes = k_slice,
                      .operands = exactly(1)}},
    {Opcode::kConcatenate, {.maps = M::kConcatenate, .result = S::kConcatenate, .check = C::kConcatenate,
                            .memo_attributes = k_dimensions, .operands = at_least(1)}},
    {Opcode::kPad, {.maps = M::kPad, .result = S::kPad, .check = C::kPad, .memo_attributes = k_padding,
                    .operands = exactly(2)}},

    // Reshapes: the maps depend on the shapes (and layouts) only.
    {Opcode::kReshape, {.maps = M::kReshape, .result = S::kReshape, .xla_simplify = XlaSimplify::kKeepPoints,
                        .operands = exactly(1)}},
    {Opcode::kDynamicReshape, {.maps = M::kDynamicReshape, .result = S::kDynamicReshape, .operands = at_least(1)}},
    {Opcode::kBitcast, {.maps = M::kBitcast, .result = S::kBitcast, .xla_simplify = XlaSimplify::kKeepPoints,
                        .operands = exactly(1)}},
    {Opcode::kBitcastConvert, {.maps = M::kBitcastConvert, .result = S::kBitcastConvert, .operands = exactly(1)}},

    // Reductions and windows.
    {Opcode::kReduce, {.maps = M::kReduce, .result = S::kReduce, .check = C::kOperandDimensions,
                       .memo_attributes = k_dimensions, .operands = {OperandCount::kPairs},
                       .callees = R::kReduce}},
    // dot: a sparse dot (sparsity=) adds its metadata operands (checks.cpp).
    {Opcode::kDot, {.maps = M::kDot, .result = S::kDot, .check = C::kDot, .memo_attributes = k_dot,
                    .operands = exactly(2)}},
    {Opcode::kReduceWindow, {.maps = M::kReduceWindow, .result = S::kReduceWindow, .check = C::kReduceWindow,
                             .memo_attributes = k_window, .xla_simplify = XlaSimplify::kFull,
                             .operands = {OperandCount::kPairs}, .callees = R::kReduce}},
    {Opcode::kConvolution, {.maps = M::kConvolution, .result = S::kConvolution, .check = C::kConvolution,
                            .memo_attributes = k_convolution, .xla_simplify = XlaSimplify::kFull,
                            .operands = exactly(2)}},

    // Offsets read at run time.
    {Opcode::kDynamicSlice, {.maps = M::kDynamicSlice, .result = S::kDynamicSlice, .check = C::kDynamicSlice,
                             .memo_attributes = k_dynamic_slice, .runtime_offsets = true,
                             .xla_simplify = XlaSimplify::kUnusedSymbolsOnly, .operands = at_least(2)}},
    {Opcode::kDynamicUpdateSlice, {.maps = M::kDynamicUpdateSlice, .result = S::kDynamicUpdateSlice,
                                   .runtime_offsets = true, .xla_simplify = XlaSimplify::kUnusedSymbolsOnly,
                                   .operands = at_least(3)}},
    {Opcode::kScatter, {.maps = M::kScatter, .runtime_offsets = true, .operands = {OperandCount::kScatter},
                        .callees = R::kScatter}},
    {Opcode::kGather, {.maps = M::kGather, .result = S::kGather, .memo_attributes = k_gather,
                       .runtime_offsets = true, .xla_simplify = XlaSimplify::kUnusedSymbolsOnly,
                       .operands = exactly(2)}},

    // Tuples, collectives and calls.
    {Opcode::kGetTupleElement, {.maps = M::kGetTupleElement, .result = S::kGetTupleElement,
                                .check = C::kGetTupleElement, .memo_attributes = k_index,
                                .tuple_element = TupleElement::kIndexAttribute, .operands = exactly(1)}},
    {Opcode::kTuple, {.maps = M::kTuple, .result = S::kTuple}},
    {Opcode::kAllGather, {.maps = M::kAllGather, .result = S::kAllGather, .memo_attributes = k_dimensions,
                          .operands = at_least(1)}},
    {Opcode::kAllGatherStart,
     {.maps = M::kAllGather, .result = S::kAllGatherStart, .memo_attributes = k_dimensions, .operands = at_least(1)}},
    {Opcode::kAllToAll, {.maps = M::kAllToAll, .memo_attributes = k_collective_groups, .operands = at_least(1)}},
    {Opcode::kRaggedAllToAll, {.maps = M::kRaggedAllToAll, .result = S::kOutputOperandShape,
                               .operands = exactly(6)}},
    {Opcode::kReduceScatter, {.maps = M::kReduceScatter, .memo_attributes = k_dimensions, .operands = at_least(1),
                              .callees = R::kCollective}},
    // Operands against the called computation's parameters (call_checks.cpp).
    {Opcode::kFusion, {.maps = M::kCall, .check = C::kFusionKind, .callees = R::kBound}},
    {Opcode::kCall, {.maps = M::kCall, .callees = R::kBound}},
    // The branch index and one operand per branch (call_checks.cpp counts the branches).
    {Opcode::kConditional, {.maps = M::kConditional, .runtime_offsets = true, .operands = at_least(2),
                            .callees = R::kConditional}},
    {Opcode::kWhile, {.maps = M::kWhile, .memo_attributes = k_loop, .operands = exactly(1),
                      .callees = R::kWhile}},

    // Block-scaled dot, windows with data-dependent selection, scans and linear algebra.
    {Opcode::kScaledDot, {.maps = M::kScaledDot, .result = S::kDot, .memo_attributes = k_dot, .operands = exactly(4)}},
    // Memoised per instruction: constant group sizes make its maps.
    {Opcode::kRaggedDot, {.maps = M::kRaggedDot, .result = S::kDot, .runtime_offsets = true, .operands = exactly(3)}},
    {Opcode::kSelectAndScatter, {.maps = M::kSelectAndScatter, .result = S::kOperandShape, .memo_attributes = k_window,
                                 .operands = exactly(3), .callees = R::kSelectAndScatter}},
    {Opcode::kScan, {.maps = M::kScan, .memo_attributes = k_scan}},
    {Opcode::kFft, {.maps = M::kFft, .result = S::kFft, .memo_attributes = k_fft, .operands = exactly(1)}},
    {Opcode::kTriangularSolve, {.maps = M::kTriangularSolve, .result = S::kTriangularSolve, .memo_attributes = k_triangular_solve,
                                .operands = exactly(2)}},
    {Opcode::kCholesky, {.maps = M::kCholesky, .result = S::kOperandShape, .memo_attributes = k_cholesky,
                         .operands = exactly(1)}},
    // Asynchronous pairs: the start composes the wrapped computation (async_maps.cpp); update passes the
    // tuple on; done is the result element {1} of ((operands...), result, context).
    {Opcode::kAsyncStart, {.maps = M::kAsyncStart, .callees = R::kAsyncStart}},
    {Opcode::kAsyncUpdate, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kAsyncDone, with(M::kTupleElements, exactly(1), E::kSecond)},
    // XLA's shorthand for an async-start/-update/-done wrapping a custom-call.
    {Opcode::kCustomCallStart, {.maps = M::kAsyncStart}},
    {Opcode::kCustomCallUpdate, with(M::kTupleElements, exactly(1), E::kSameAsOutput)},
    {Opcode::kCustomCallDone, with(M::kTupleElements, exactly(1), E::kSecond)},
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

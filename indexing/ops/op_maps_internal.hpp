// The per-op builders behind op_maps.hpp, one family per file. o2i_* return
// one set per operand, i2o_* one set per output.
#pragma once

#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "indexing/maps/map_builders.hpp"
#include "indexing/ops/loop_dataflow.hpp"
#include "indexing/ops/op_maps.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

/// Each map as a set of its own.
std::vector<MapSet> one_each(std::vector<IndexingMap> maps);

/// Operand `operand` -> each output: the inverses (indexing/inverse.hpp) of
/// the maps `o2i` gives into the operand, approximate where those are.
using OutputReads = std::function<std::vector<MapSet>(const OpContext&, std::size_t output)>;
std::vector<MapSet> maps_by_inverse(const OpContext& op, std::size_t operand, const OutputReads& o2i);

inline std::uint32_t u32(std::size_t i) { return static_cast<std::uint32_t>(i); }
inline std::size_t sz(std::int64_t i) { return static_cast<std::size_t>(i); }
inline bool contains(const std::vector<std::int64_t>& v, std::int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}
inline bool contains(const std::vector<std::int64_t>& v, std::size_t x) {
  return contains(v, static_cast<std::int64_t>(x));
}
/// (d..)[s..] -> (s..): every element of a tensor of shape `to` from each point of `from`.
inline IndexingMap whole(const std::vector<std::int64_t>& from, const std::vector<std::int64_t>& to) {
  return build::map(from, build::ranges(to.size()), to);
}

/// The input count of a variadic op with n inputs followed by n init values
/// (reduce, reduce-window); throws Unsupported for another operand count or
/// an init value that is not a scalar.
std::size_t input_count(const OpContext& op);

// op_maps_dimensions.cpp: elementwise, broadcast, transpose, reverse, slice, concatenate.
std::vector<MapSet> o2i_elementwise(const OpContext& op);
std::vector<MapSet> i2o_elementwise(const OpContext& op, std::size_t operand, MapStyle style);
std::vector<MapSet> o2i_broadcast(const OpContext& op);
std::vector<MapSet> i2o_broadcast(const OpContext& op);
std::vector<MapSet> o2i_transpose(const OpContext& op);
std::vector<MapSet> i2o_transpose(const OpContext& op);
/// Its own inverse: the same map both ways.
std::vector<MapSet> reverse_maps(const OpContext& op);
std::vector<MapSet> o2i_slice(const OpContext& op);
std::vector<MapSet> i2o_slice(const OpContext& op);
std::vector<MapSet> o2i_concatenate(const OpContext& op);
std::vector<MapSet> i2o_concatenate(const OpContext& op, std::size_t operand);

// op_maps_tuple.cpp: tuple, get-tuple-element, all-gather.
std::vector<MapSet> o2i_tuple(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_tuple(const OpContext& op, std::size_t operand);
/// forward: operand -> outputs; else output `output` -> operand.
std::vector<MapSet> gte_maps(const OpContext& op, std::size_t output, bool forward);
std::vector<MapSet> o2i_all_gather(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_all_gather(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_all_to_all(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_all_to_all(const OpContext& op, std::size_t operand);
/// ragged-all-to-all(input, output, input_offsets, send_sizes, output_offsets, recv_sizes).
std::vector<MapSet> o2i_ragged_all_to_all(const OpContext& op);
std::vector<MapSet> i2o_ragged_all_to_all(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_reduce_scatter(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_reduce_scatter(const OpContext& op, std::size_t operand);

// op_maps_reshape.cpp: reshape, dynamic-reshape, bitcast, bitcast-convert.
std::vector<MapSet> o2i_reshape(const OpContext& op);
std::vector<MapSet> i2o_reshape(const OpContext& op);
std::vector<MapSet> o2i_bitcast(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_bitcast(const OpContext& op, MapStyle style);
std::vector<MapSet> o2i_dynamic_reshape(const OpContext& op);
std::vector<MapSet> i2o_dynamic_reshape(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_bitcast_convert(const OpContext& op);
std::vector<MapSet> i2o_bitcast_convert(const OpContext& op);

// op_maps_reduce.cpp: reduce, dot.
std::vector<MapSet> o2i_reduce(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_reduce(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_dot(const OpContext& op);
std::vector<MapSet> i2o_dot(const OpContext& op, std::size_t operand);

/// The shapes a dot's maps are built from: the dot op's operands and result,
/// or a GEMM custom-call's matrices and result.
struct DotShapes {
  std::vector<std::int64_t> lhs, rhs, out;
};
/// A dot's output -> {lhs, rhs} maps for dimension numbers `d` (the dot op's
/// attributes, or a GEMM custom-call's backend_config); throws Unsupported
/// when they do not fit the shapes.
std::vector<IndexingMap> dot_operand_maps(const parser::DotDimensions& d, const DotShapes& shapes);
/// Operand `operand` (0: lhs, 1: rhs) -> the dot's output.
IndexingMap dot_output_map(const parser::DotDimensions& d, const DotShapes& shapes, std::size_t operand);

// op_maps_ragged_dot.cpp
std::vector<MapSet> o2i_ragged_dot(const OpContext& op);
std::vector<MapSet> i2o_ragged_dot(const OpContext& op, std::size_t operand);

/// scaled-dot: dot's maps, and into each scale the block of its operand it scales.
std::vector<MapSet> o2i_scaled_dot(const OpContext& op);
std::vector<MapSet> i2o_scaled_dot(const OpContext& op, std::size_t operand);

// op_maps_pad.cpp
std::vector<MapSet> o2i_pad(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_pad(const OpContext& op, std::size_t operand, MapStyle style);

// op_maps_window.cpp
std::vector<MapSet> o2i_reduce_window(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_reduce_window(const OpContext& op, std::size_t operand);

std::vector<MapSet> o2i_select_and_scatter(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_select_and_scatter(const OpContext& op, std::size_t operand);

// op_maps_convolution.cpp
std::vector<MapSet> o2i_convolution(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_convolution(const OpContext& op, std::size_t operand, MapStyle style);

/// The three arrays of a convolution: input (lhs), kernel (rhs) and output.
enum class ConvolutionArray { kInput, kKernel, kOutput };
/// Their shapes: the convolution op's operands and result, or a cuDNN
/// custom-call's operands and result in the roles its kind gives them.
struct ConvolutionShapes {
  std::vector<std::int64_t> input, kernel, output;
};
/// One term of the convolution sum seen from an element of array `from`:
/// the maps from it to the elements of the other two arrays that meet in
/// one product, over one domain (the map into `from` itself stays empty).
/// Window, dim_labels and group counts are op's attributes; throws
/// Unsupported when they do not fit the shapes.
struct ConvolutionTerm {
  IndexingMap input, kernel, output;
};
ConvolutionTerm convolution_term(const OpContext& op, const ConvolutionShapes& shapes, ConvolutionArray from,
                                 MapStyle style);

// op_maps_dynamic.cpp: dynamic-slice, dynamic-update-slice, gather.
std::vector<MapSet> o2i_dynamic_slice(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_dynamic_slice(const OpContext& op, std::size_t operand, MapStyle style);
std::vector<MapSet> o2i_dynamic_update_slice(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_dynamic_update_slice(const OpContext& op, std::size_t operand, MapStyle style);
std::vector<MapSet> o2i_gather(const OpContext& op, MapStyle style);
std::vector<MapSet> i2o_gather(const OpContext& op, std::size_t operand, MapStyle style);

// op_maps_passthrough.cpp: tuple elements, collectives at the same index, nothing read, whole operands.
std::vector<MapSet> o2i_tuple_elements(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_tuple_elements(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_collective(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_collective(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_nothing_read(const OpContext& op);
std::vector<MapSet> i2o_nothing_read(const OpContext& op);
std::vector<MapSet> o2i_whole_operands(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_whole_operands(const OpContext& op, std::size_t operand);

// op_maps_sort.cpp: sort, top-k, batch norms.
std::vector<MapSet> o2i_sort(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_sort(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_batch_norm(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_batch_norm(const OpContext& op, std::size_t operand);

// op_maps_scatter.cpp
std::vector<MapSet> o2i_scatter(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_scatter(const OpContext& op, std::size_t operand);

// op_maps_fused_attention.cpp: Transformer Engine's fused attention custom-calls.
std::vector<MapSet> o2i_fused_attention(const OpContext& op, std::size_t output, bool is_backward);
std::vector<MapSet> i2o_fused_attention(const OpContext& op, std::size_t operand, bool is_backward);

// op_maps_while.cpp: what a while's outputs may depend on through its body's and condition's
// dataflow (operand -> output maps: not given). IndexingAnalysis::while_maps answers exactly
// where it can count the iterations and falls back to o2i_while.
/// Each output leaf the body changes reads whole every leaf its dataflow reaches
/// (LoopDataflow::leaves_read), approximate; a leaf it passes on is the identity.
std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output);
std::vector<MapSet> o2i_while(const OpContext& op, std::size_t output, LoopDataflow& flow);

// op_maps_linalg.cpp: fft, triangular-solve, cholesky.
std::vector<MapSet> o2i_fft(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_fft(const OpContext& op, std::size_t operand);
std::vector<MapSet> o2i_triangular_solve(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_triangular_solve(const OpContext& op, std::size_t operand);
/// TriangularSolveOptions: the op's attributes, or a cuBLAS custom-call's backend_config.
struct TriangularSolveOptions {
  bool left_side = false, lower = false, unit_diagonal = false;
  std::string transpose_a = "NO_TRANSPOSE";  // NO_TRANSPOSE, TRANSPOSE or ADJOINT
};
/// The result -> {a, b} maps of a triangular solve with these options and shapes.
std::vector<IndexingMap> triangular_solve_maps(const TriangularSolveOptions& options,
                                               const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b,
                                               const std::vector<std::int64_t>& out);
std::vector<MapSet> o2i_cholesky(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_cholesky(const OpContext& op, std::size_t operand);

// op_maps_scan.cpp
std::vector<MapSet> o2i_scan(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_scan(const OpContext& op, std::size_t operand);

// op_maps_cublas.cpp: cuBLAS GEMM custom-calls.
enum class GemmKind { kLegacy, kLt, kLtF8 };  // __cublas$gemm, __cublas$lt$matmul, __cublas$lt$matmul$f8
std::vector<MapSet> o2i_cublas_gemm(const OpContext& op, std::size_t output, GemmKind kind);
std::vector<MapSet> i2o_cublas_gemm(const OpContext& op, std::size_t operand, GemmKind kind);
/// __cublas$triangularSolve: triangular-solve with its options in backend_config; (x, scratch).
std::vector<MapSet> o2i_cublas_triangular_solve(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_cublas_triangular_solve(const OpContext& op, std::size_t operand);

// op_maps_cudnn.cpp: cuDNN convolution custom-calls (XLA's CudnnConvKind).
enum class CudnnConvKind { kForward, kBackwardInput, kBackwardFilter, kForwardActivation, kForwardGraph };
std::vector<MapSet> o2i_cudnn_convolution(const OpContext& op, std::size_t output, CudnnConvKind kind);
std::vector<MapSet> i2o_cudnn_convolution(const OpContext& op, std::size_t operand, CudnnConvKind kind);

// op_maps_sharding_rule.cpp: a Shardy xla.sdy.sharding_rule in frontend_attributes.
bool has_sharding_rule(const OpContext& op);
std::vector<MapSet> o2i_sharding_rule(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_sharding_rule(const OpContext& op, std::size_t operand);

// op_maps_mhlo_dynamic.cpp: MHLO's dynamic-shape ops as custom-calls, and PadToStatic.
enum class MhloDynamicOp { kBroadcastInDim, kReshape, kRealDynamicSlice, kPadToStatic };
std::vector<MapSet> o2i_mhlo_dynamic(const OpContext& op, std::size_t output, MhloDynamicOp kind);
std::vector<MapSet> i2o_mhlo_dynamic(const OpContext& op, std::size_t operand, MhloDynamicOp kind);

// op_maps_spmd_shard.cpp: SPMDFullToShardShape (`to_shard`) and SPMDShardToFullShape.
std::vector<MapSet> o2i_spmd_shard(const OpContext& op, bool to_shard);
std::vector<MapSet> i2o_spmd_shard(const OpContext& op, bool to_shard);

// op_maps_partial_reduce.cpp: the TPU approximate top-k.
std::vector<MapSet> o2i_partial_reduce(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_partial_reduce(const OpContext& op, std::size_t operand);

// op_maps_tridiagonal.cpp: xla_builder.tridiagonal.TridiagonalSolver.
std::vector<MapSet> o2i_tridiagonal_solver(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_tridiagonal_solver(const OpContext& op, std::size_t operand);

// op_maps_custom_call.cpp
std::vector<MapSet> o2i_custom_call(const OpContext& op, std::size_t output);
std::vector<MapSet> i2o_custom_call(const OpContext& op, std::size_t operand);

/// The padding map of a pad (or of a reduce-window/convolution window): an
/// index of the padded array to the operand index it holds, per dimension
/// low/high/interior padding; positions holding padding are outside the
/// domain. `padded` are the padded sizes.
IndexingMap padding_map(const std::vector<std::int64_t>& operand, const std::vector<std::int64_t>& padded,
                        const std::vector<std::int64_t>& low, const std::vector<std::int64_t>& interior);

}  // namespace hlo_index::indexing::detail

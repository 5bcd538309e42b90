// custom-call: maps for the targets whose semantics are published, by
// custom_call_target; else, or where the call does not fit them, those of a
// Shardy sharding rule on the call (op_maps_sharding_rule.cpp). A custom-call reads nothing but its operands,
// so any other target, and a known one whose operands or backend_config do not
// fit its semantics, reads every operand element from every output element:
// sound, approximate, with the reason.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/ops/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

// How a known target reads its operands.
enum class TargetMaps {
  kIdentity,                // the result is operand 0, unchanged (annotations, memory-space moves)
  kNothingRead,             // no operand element is read
  kTopK,                    // (values, indices) of the k largest along the last dimension
  kElementwise,             // an elementwise function (scalar operands read by every element)
  kSoftmax,                 // softmax along the last dimension: the whole last dimension of operand 0
  kLayerNorm,               // normalised along the last dimension, scale/shift per element of it
  kEinsum,                  // the einsum equation in backend_config ("ij,jk->ik")
  kWholeOperands,           // every output element is a function of every operand element
  kFusedAttentionForward,   // Transformer Engine (op_maps_fused_attention.cpp)
  kFusedAttentionBackward,  // likewise
  // A kernel with no published per-element semantics that can only read its
  // operands' buffers: every output element may read every operand element.
  // Sound (nothing outside the operands is read) but not exact: approximate.
  kKernelReadsWholeOperands,
  kCublasGemm,  // dot_dimension_numbers, beta, epilogue in backend_config (op_maps_cublas.cpp)
  kCublasLtMatmul,
  kCublasLtMatmulF8,
  kCublasTriangularSolve,  // TriangularSolveOptions in backend_config (op_maps_cublas.cpp)
  kCudnnConvForward,       // window and dim_labels of the forward convolution (op_maps_cudnn.cpp)
  kCudnnConvBackwardInput,
  kCudnnConvBackwardFilter,
  kCudnnConvBiasActivationForward,
  kCudnnConvForwardGraph,
  kMhloDynamicBroadcastInDim,  // op_maps_mhlo_dynamic.cpp
  kMhloDynamicReshape,
  kMhloRealDynamicSlice,
  kPadToStatic,
  kPartialReduce,      // op_maps_partial_reduce.cpp
  kTridiagonalSolver,  // op_maps_tridiagonal.cpp
  kSpmdFullToShard,    // op_maps_spmd_shard.cpp
  kSpmdShardToFull,
};

struct KnownTarget {
  std::string_view name;
  TargetMaps maps;
  std::string_view source;  // where the semantics are published
};

// Sorted by name.
constexpr KnownTarget k_targets[] = {
    {"AllocateBuffer", TargetMaps::kNothingRead, "XLA: an uninitialised buffer, no operands"},
    {"AssumeGatherIndicesInBound", TargetMaps::kIdentity, "XLA: marks gather indices in bounds, returns them"},
    {"CuteDSLRT_NvJaxCutlassCall", TargetMaps::kKernelReadsWholeOperands,
     "NVIDIA CUTLASS CuTe DSL from JAX (cutlass_call; XLA backends/gpu/libraries/cutedsl): a compiled CuTe kernel "
     "over its operand buffers, no per-element semantics"},
    {"GetRngSeed", TargetMaps::kNothingRead, "XLA CPU/GPU: a seed, no operands"},
    {"LayoutConstraint", TargetMaps::kIdentity, "XLA: fixes operand 0's layout"},
    {"MoveToDevice", TargetMaps::kIdentity, "XLA host offloading: operand 0 moved to device memory"},
    {"MoveToHost", TargetMaps::kIdentity, "XLA host offloading: operand 0 moved to host memory"},
    {"PadToStatic", TargetMaps::kPadToStatic,
     "XLA dynamic padder (dynamic_padder.cc): (operand padded to its bounds, its runtime size per dimension)"},
    {"PartialReduce", TargetMaps::kPartialReduce,
     "XLA approx_topk.cc: the TPU approximate top-k along backend_config's reduction_dim"},
    {"Pin", TargetMaps::kIdentity, "XLA TPU memory annotations: operand 0 pinned to device memory"},
    {"PinToDevice", TargetMaps::kIdentity,
     "XLA host offloading (memory_annotations.h): operand 0 pinned to device memory"},
    {"PinToDeviceSram", TargetMaps::kIdentity,
     "XLA host offloading (memory_annotations.h): operand 0 pinned to device SRAM"},
    {"RandomGammaGrad", TargetMaps::kElementwise,
     "TensorFlow/XLA RandomGammaGrad: the derivative of a gamma sample by its alpha, elementwise"},
    {"SPMDFullToShardShape", TargetMaps::kSpmdFullToShard,
     "XLA SPMD partitioner (spmd_partitioner.cc, JAX shard_map): the shard of the full operand that the "
     "device holds, one per device along each dimension the shapes cut"},
    {"SPMDShardToFullShape", TargetMaps::kSpmdShardToFull,
     "XLA SPMD partitioner (spmd_partitioner.cc, JAX shard_map): the full array made of every device's "
     "shard"},
    {"SetBound", TargetMaps::kIdentity, "XLA: sets the bound of a dynamic dimension of operand 0"},
    {"Sharding", TargetMaps::kIdentity, "XLA SPMD: a sharding annotation on operand 0"},
    {"SliceToDynamic", TargetMaps::kElementwise,
     "XLA dynamic padder (dynamic_padder.cc): operand 0 with the sizes of its dimensions (scalar operands) set"},
    {"TopK", TargetMaps::kTopK, "XLA: TopK custom-call (the k largest along the last dimension)"},
    {"Unpin", TargetMaps::kIdentity, "XLA TPU memory annotations: operand 0 unpinned"},
    {"__cublas$gemm", TargetMaps::kCublasGemm,
     "XLA GPU (service/gpu/cublas_cudnn.h, transforms/gemm_rewriter.cc, thunk_emitter.cc EmitGemmThunk): "
     "alpha * dot(A, B) + beta * C, GemmBackendConfig in backend_config"},
    {"__cublas$lt$matmul", TargetMaps::kCublasLtMatmul,
     "XLA GPU (gemm_rewriter.cc, thunk_emitter.cc EmitCublasLtMatmulThunk): the GEMM with a cuBLASLt epilogue "
     "(vector bias, activation, auxiliary output)"},
    {"__cublas$lt$matmul$f8", TargetMaps::kCublasLtMatmulF8,
     "XLA GPU (gemm_rewriter.cc CreateF8CustomCall, thunk_emitter.cc EmitCublasLtMatmulThunkF8): the FP8 GEMM "
     "with scalar scales and an optional damax output"},
    {"__cublas$triangularSolve", TargetMaps::kCublasTriangularSolve,
     "XLA GPU (transforms/triangular_solve_rewriter.cc): triangular-solve, its options as backend_config, "
     "(x, scratch)"},
    {"__cudnn$convBackwardFilter", TargetMaps::kCudnnConvBackwardFilter,
     "XLA GPU (cublas_cudnn.h CudnnConvKind, transforms/conv_rewriter.cc, gpu_conv_runner.cc): "
     "(input, output gradient) -> filter gradient of the forward convolution in window and dim_labels"},
    {"__cudnn$convBackwardInput", TargetMaps::kCudnnConvBackwardInput,
     "XLA GPU (cublas_cudnn.h CudnnConvKind, transforms/conv_rewriter.cc, gpu_conv_runner.cc): "
     "(output gradient, filter) -> input gradient of the forward convolution in window and dim_labels"},
    {"__cudnn$convBiasActivationForward", TargetMaps::kCudnnConvBiasActivationForward,
     "XLA GPU (transforms/cudnn_fused_conv_rewriter.cc, gpu_conv_runner.cc): activation(conv + side input + "
     "bias per output feature)"},
    {"__cudnn$convForward", TargetMaps::kCudnnConvForward,
     "XLA GPU (cublas_cudnn.h, transforms/conv_rewriter.cc): the convolution of window and dim_labels"},
    {"__cudnn$convForwardGraph", TargetMaps::kCudnnConvForwardGraph,
     "XLA GPU (transforms/cudnn_fused_conv_rewriter.cc F8GraphConv): the convolution, then a pointwise graph "
     "with scalar or output-shaped operands and amax results"},
    {"__onednn$layernorm", TargetMaps::kLayerNorm,
     "XLA CPU oneDNN rewriter (onednn_layer_norm.cc): oneDNN layer normalization over the last dimension, "
     "then scale (and shift) per element of it"},
    {"annotate_device_placement", TargetMaps::kIdentity,
     "XLA host offloading (memory_annotations.h): operand 0 placed in the memory of _xla_buffer_placement"},
    {"mhlo.dynamic_broadcast_in_dim", TargetMaps::kMhloDynamicBroadcastInDim,
     "XLA MHLO export (hlo_to_mhlo custom_call_importer.cc): broadcast_in_dim to a runtime shape, "
     "broadcast_dimensions in backend_config"},
    {"mhlo.dynamic_reshape", TargetMaps::kMhloDynamicReshape,
     "XLA MHLO export (hlo_to_mhlo custom_call_importer.cc): reshape to a runtime shape"},
    {"mhlo.real_dynamic_slice", TargetMaps::kMhloRealDynamicSlice,
     "XLA MHLO export (hlo_to_mhlo custom_call_importer.cc): a strided slice at runtime start, limit and strides"},
    {"te_fused_attn_backward_ffi", TargetMaps::kFusedAttentionBackward,
     "NVIDIA TransformerEngine, transformer_engine/jax/csrc/extensions/attention.cpp"},
    {"te_fused_attn_forward_ffi", TargetMaps::kFusedAttentionForward,
     "NVIDIA TransformerEngine, transformer_engine/jax/csrc/extensions/attention.cpp"},
    {"te_scaled_softmax_forward_ffi", TargetMaps::kSoftmax,
     "NVIDIA TransformerEngine, transformer_engine/jax/csrc/extensions/softmax.cpp: softmax(scale * x) along the "
     "last dimension"},
    {"tpu_custom_call", TargetMaps::kKernelReadsWholeOperands,
     "JAX Pallas/Mosaic TPU kernel: arbitrary code over its operand buffers, no per-element semantics"},
    {"triton_kernel_call_ffi", TargetMaps::kKernelReadsWholeOperands,
     "JAX jaxlib/gpu/triton_kernels.cc (Pallas on GPU, jax-triton): a compiled Triton kernel over its operand "
     "buffers, no per-element semantics"},
    {"xla_builder.math.Asinh", TargetMaps::kElementwise, "XLA client library (xla/hlo/builder/lib/math.h): Asinh"},
    {"xla_builder.math.NextAfter", TargetMaps::kElementwise,
     "XLA client library (xla/hlo/builder/lib/math.h): NextAfter(from, to), elementwise"},
    {"xla_builder.math.Polygamma", TargetMaps::kElementwise,
     "XLA client library (xla/hlo/builder/lib/math.h): Polygamma(n, x), elementwise"},
    {"xla_builder.matrix.Einsum", TargetMaps::kEinsum,
     "XLA client library (xla/hlo/builder/lib/matrix.h): Einsum with the equation as backend_config"},
    {"xla_builder.prng.ScramblePhiloxKey", TargetMaps::kWholeOperands,
     "XLA client library (xla/hlo/builder/lib/prng.cc): ScramblePhiloxKey, a hash of the whole key"},
    {"xla_builder.tridiagonal.TridiagonalSolver", TargetMaps::kTridiagonalSolver,
     "XLA client library (xla/hlo/builder/lib/tridiagonal.h): the Thomas algorithm per batch and right-hand side"},
};

// An attribute's value without the quotes around a string.
std::string_view unquoted_attribute(const OpContext& op, std::string_view name) {
  std::string_view value = op.attribute(name).value_or("");
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
  return value;
}

std::string_view target_of(const OpContext& op) { return unquoted_attribute(op, "custom_call_target"); }

const KnownTarget* known_target(const OpContext& op) {
  const std::string_view target = target_of(op);
  const auto* it =
      std::find_if(std::begin(k_targets), std::end(k_targets), [&](const KnownTarget& t) { return t.name == target; });
  return it == std::end(k_targets) ? nullptr : it;
}

void require_identity_shapes(const OpContext& op) {
  if (op.operand_count() != 1 || op.shape().is_tuple || op.operand_dims(0) != op.output_dims(0))
    throw Unsupported("one operand of the result's shape expected");
}

std::size_t require_one_operand(const OpContext& op, std::size_t index) {
  if (op.operand_count() != 1 || op.shape().is_tuple)
    throw Unsupported(std::string("custom-call target '").append(target_of(op)).append("' expects one operand"));
  return index;
}

// Output element (.., i) reads the whole last dimension of operand 0 (the
// mean and variance) and element i of each scale/shift operand.
std::vector<MapSet> o2i_layer_norm(const OpContext& op, std::size_t output) {
  const auto out = op.output_dims(output);
  if (op.shape().is_tuple || out.empty() || op.operand_count() == 0 || op.operand_dims(0) != out)
    throw Unsupported("__onednn$layernorm expects an input of the result's shape");
  const std::size_t last = out.size() - 1;
  std::vector<Expr> line = build::dims(out.size());
  line[last] = Expr::range(0);
  std::vector<IndexingMap> maps{build::map(out, std::move(line), {out[last]})};
  for (std::size_t k = 1; k < op.operand_count(); ++k) {
    if (op.operand_dims(k) != std::vector<std::int64_t>{out[last]})
      throw Unsupported("__onednn$layernorm expects scale and shift along the last dimension");
    maps.push_back(build::map(out, {Expr::dim(u32(last))}));
  }
  return one_each(std::move(maps));
}

// The operands' and the output's subscripts of an einsum equation
// "ab,bc->ac" (or "ab,bc", the output then numpy's implicit one): one letter
// per dimension; a letter repeated in one operand is its diagonal (in the
// output: the values go on the diagonal), a letter missing from the output is
// summed over.
struct EinsumEquation {
  std::vector<std::string_view> operands;
  std::string_view output;
};

[[noreturn]] void bad_einsum(std::string_view equation, std::string_view why) {
  throw Unsupported(std::string("einsum equation '").append(equation).append("': ").append(why));
}

// The letters of `e`'s operands that appear exactly once, sorted: the
// output of an equation without "->" (numpy's implicit mode).
std::string implicit_output(const std::vector<std::string_view>& operands) {
  std::string once;
  for (char c = 'A'; c <= 'z'; ++c) {
    std::size_t count = 0;
    for (std::string_view o : operands) count += static_cast<std::size_t>(std::count(o.begin(), o.end(), c));
    if (count == 1) once.push_back(c);
  }
  return once;
}

EinsumEquation einsum_equation(const OpContext& op, std::string& implicit) {
  const std::string_view config = unquoted_attribute(op, "backend_config");
  const std::size_t arrow = config.find("->");
  EinsumEquation e;
  std::string_view inputs = config.substr(0, arrow);
  for (std::size_t start = 0;;) {
    const std::size_t comma = inputs.find(',', start);
    e.operands.push_back(
        inputs.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  auto letters_only = [&](std::string_view subscripts) {
    for (char c : subscripts)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) bad_einsum(config, "only letters are supported");
  };
  for (std::string_view o : e.operands) letters_only(o);
  if (arrow == std::string_view::npos) {
    implicit = implicit_output(e.operands);
    e.output = implicit;
  } else {
    e.output = config.substr(arrow + 2);
  }
  letters_only(e.output);
  if (e.operands.size() != op.operand_count()) bad_einsum(config, "not one subscript list per operand");
  for (std::size_t k = 0; k < op.operand_count(); ++k)
    if (e.operands[k].size() != op.operand_dims(k).size()) bad_einsum(config, "a subscript list of the wrong length");
  for (char letter : e.output) {
    bool read = false;
    for (std::string_view o : e.operands) read = read || o.find(letter) != std::string_view::npos;
    if (!read) bad_einsum(config, "an output letter no operand has");
  }
  return e;
}

// Output letters are the output's dimensions; every other letter is a range
// variable over its extent, shared by all operands (so that contracted
// dimensions meet), in order of first appearance.
std::vector<MapSet> o2i_einsum(const OpContext& op, std::size_t output) {
  if (op.shape().is_tuple) throw Unsupported("an einsum has one array result");
  std::string implicit;
  const EinsumEquation e = einsum_equation(op, implicit);
  const std::vector<std::int64_t> out = op.output_dims(output);
  if (e.output.size() != out.size()) bad_einsum(unquoted_attribute(op, "backend_config"), "wrong output rank");
  std::vector<char> summed;
  std::vector<std::int64_t> summed_sizes;
  auto variable_of = [&](char letter, std::int64_t size) {
    const std::size_t in_output = e.output.find(letter);
    if (in_output != std::string_view::npos) {
      for (std::size_t p = in_output; p < e.output.size(); ++p)
        if (e.output[p] == letter && out[p] != size) throw Unsupported("einsum: a letter with two sizes");
      return Expr::dim(u32(in_output));
    }
    const auto it = std::find(summed.begin(), summed.end(), letter);
    if (it != summed.end()) {
      if (summed_sizes[static_cast<std::size_t>(it - summed.begin())] != size)
        throw Unsupported("einsum: a letter with two sizes");
      return Expr::range(u32(static_cast<std::size_t>(it - summed.begin())));
    }
    summed.push_back(letter);
    summed_sizes.push_back(size);
    return Expr::range(u32(summed.size() - 1));
  };
  std::vector<std::vector<Expr>> results(op.operand_count());
  for (std::size_t k = 0; k < op.operand_count(); ++k) {
    const std::vector<std::int64_t> dims = op.operand_dims(k);
    for (std::size_t i = 0; i < dims.size(); ++i) results[k].push_back(variable_of(e.operands[k][i], dims[i]));
  }
  std::vector<IndexingMap> maps;
  maps.reserve(results.size());
  for (std::vector<Expr>& r : results) {
    IndexingMap m = build::map(out, std::move(r), summed_sizes);
    // A letter repeated in the output puts the values on that diagonal;
    // elements off it are zero and read nothing.
    for (std::size_t p = 0; p < e.output.size(); ++p) {
      const std::size_t first = e.output.find(e.output[p]);
      if (first < p && !m.domain().add_constraint(Expr::dim(u32(p)) - Expr::dim(u32(first)), {0, 0}))
        m.set_known_empty();
    }
    maps.push_back(std::move(m));
  }
  return one_each(std::move(maps));
}

std::vector<MapSet> o2i_known(const OpContext& op, std::size_t output, TargetMaps maps) {
  switch (maps) {
    case TargetMaps::kIdentity: {
      require_identity_shapes(op);
      std::vector<MapSet> sets(op.operand_count());
      sets[0].push_back(IndexingMap::identity(op.output_dims(0)));
      return sets;
    }
    case TargetMaps::kNothingRead: return std::vector<MapSet>(op.operand_count());
    case TargetMaps::kTopK: return o2i_sort(op, output);
    case TargetMaps::kElementwise: return o2i_elementwise(op);
    case TargetMaps::kSoftmax: return o2i_sort(op, require_one_operand(op, output));
    case TargetMaps::kLayerNorm: return o2i_layer_norm(op, output);
    case TargetMaps::kEinsum: return o2i_einsum(op, output);
    case TargetMaps::kWholeOperands: return o2i_whole_operands(op, output);
    case TargetMaps::kFusedAttentionForward: return o2i_fused_attention(op, output, false);
    case TargetMaps::kFusedAttentionBackward: return o2i_fused_attention(op, output, true);
    case TargetMaps::kKernelReadsWholeOperands: {
      std::vector<MapSet> sets = o2i_whole_operands(op, output);
      for (MapSet& set : sets)
        for (IndexingMap& m : set) m.mark_approximate("a kernel with no per-element semantics: whole operands");
      return sets;
    }
    case TargetMaps::kCublasGemm: return o2i_cublas_gemm(op, output, GemmKind::kLegacy);
    case TargetMaps::kCublasLtMatmul: return o2i_cublas_gemm(op, output, GemmKind::kLt);
    case TargetMaps::kCublasLtMatmulF8: return o2i_cublas_gemm(op, output, GemmKind::kLtF8);
    case TargetMaps::kCublasTriangularSolve: return o2i_cublas_triangular_solve(op, output);
    case TargetMaps::kCudnnConvForward: return o2i_cudnn_convolution(op, output, CudnnConvKind::kForward);
    case TargetMaps::kCudnnConvBackwardInput: return o2i_cudnn_convolution(op, output, CudnnConvKind::kBackwardInput);
    case TargetMaps::kCudnnConvBackwardFilter: return o2i_cudnn_convolution(op, output, CudnnConvKind::kBackwardFilter);
    case TargetMaps::kCudnnConvBiasActivationForward:
      return o2i_cudnn_convolution(op, output, CudnnConvKind::kForwardActivation);
    case TargetMaps::kCudnnConvForwardGraph: return o2i_cudnn_convolution(op, output, CudnnConvKind::kForwardGraph);
    case TargetMaps::kMhloDynamicBroadcastInDim: return o2i_mhlo_dynamic(op, output, MhloDynamicOp::kBroadcastInDim);
    case TargetMaps::kMhloDynamicReshape: return o2i_mhlo_dynamic(op, output, MhloDynamicOp::kReshape);
    case TargetMaps::kMhloRealDynamicSlice: return o2i_mhlo_dynamic(op, output, MhloDynamicOp::kRealDynamicSlice);
    case TargetMaps::kPadToStatic: return o2i_mhlo_dynamic(op, output, MhloDynamicOp::kPadToStatic);
    case TargetMaps::kPartialReduce: return o2i_partial_reduce(op, output);
    case TargetMaps::kTridiagonalSolver: return o2i_tridiagonal_solver(op, output);
    case TargetMaps::kSpmdFullToShard: return o2i_spmd_shard(op, true);
    case TargetMaps::kSpmdShardToFull: return o2i_spmd_shard(op, false);
  }
  return {};
}

std::vector<MapSet> i2o_known(const OpContext& op, std::size_t operand, TargetMaps maps) {
  switch (maps) {
    case TargetMaps::kIdentity: {
      require_identity_shapes(op);
      std::vector<MapSet> sets(1);
      if (operand == 0) sets[0].push_back(IndexingMap::identity(op.output_dims(0)));
      return sets;
    }
    case TargetMaps::kNothingRead: return std::vector<MapSet>(op.output_count());
    case TargetMaps::kTopK: return i2o_sort(op, operand);
    case TargetMaps::kElementwise:
      (void)o2i_elementwise(op);  // checks the shapes
      return i2o_elementwise(op, operand, MapStyle::kExact);
    case TargetMaps::kSoftmax: return i2o_sort(op, require_one_operand(op, operand));
    case TargetMaps::kLayerNorm: return maps_by_inverse(op, operand, o2i_layer_norm);
    case TargetMaps::kEinsum: return maps_by_inverse(op, operand, o2i_einsum);
    case TargetMaps::kWholeOperands: return i2o_whole_operands(op, operand);
    case TargetMaps::kFusedAttentionForward: return i2o_fused_attention(op, operand, false);
    case TargetMaps::kFusedAttentionBackward: return i2o_fused_attention(op, operand, true);
    case TargetMaps::kKernelReadsWholeOperands: {
      std::vector<MapSet> sets = i2o_whole_operands(op, operand);
      for (MapSet& set : sets)
        for (IndexingMap& m : set) m.mark_approximate("a kernel with no per-element semantics: whole operands");
      return sets;
    }
    case TargetMaps::kCublasGemm: return i2o_cublas_gemm(op, operand, GemmKind::kLegacy);
    case TargetMaps::kCublasLtMatmul: return i2o_cublas_gemm(op, operand, GemmKind::kLt);
    case TargetMaps::kCublasLtMatmulF8: return i2o_cublas_gemm(op, operand, GemmKind::kLtF8);
    case TargetMaps::kCublasTriangularSolve: return i2o_cublas_triangular_solve(op, operand);
    case TargetMaps::kCudnnConvForward: return i2o_cudnn_convolution(op, operand, CudnnConvKind::kForward);
    case TargetMaps::kCudnnConvBackwardInput: return i2o_cudnn_convolution(op, operand, CudnnConvKind::kBackwardInput);
    case TargetMaps::kCudnnConvBackwardFilter:
      return i2o_cudnn_convolution(op, operand, CudnnConvKind::kBackwardFilter);
    case TargetMaps::kCudnnConvBiasActivationForward:
      return i2o_cudnn_convolution(op, operand, CudnnConvKind::kForwardActivation);
    case TargetMaps::kCudnnConvForwardGraph: return i2o_cudnn_convolution(op, operand, CudnnConvKind::kForwardGraph);
    case TargetMaps::kMhloDynamicBroadcastInDim: return i2o_mhlo_dynamic(op, operand, MhloDynamicOp::kBroadcastInDim);
    case TargetMaps::kMhloDynamicReshape: return i2o_mhlo_dynamic(op, operand, MhloDynamicOp::kReshape);
    case TargetMaps::kMhloRealDynamicSlice: return i2o_mhlo_dynamic(op, operand, MhloDynamicOp::kRealDynamicSlice);
    case TargetMaps::kPadToStatic: return i2o_mhlo_dynamic(op, operand, MhloDynamicOp::kPadToStatic);
    case TargetMaps::kPartialReduce: return i2o_partial_reduce(op, operand);
    case TargetMaps::kTridiagonalSolver: return i2o_tridiagonal_solver(op, operand);
    case TargetMaps::kSpmdFullToShard: return i2o_spmd_shard(op, true);
    case TargetMaps::kSpmdShardToFull: return i2o_spmd_shard(op, false);
  }
  return {};
}

// Why the maps of a call are the whole-operand fallback.
std::string unknown_reason(const OpContext& op) {
  return std::string("custom-call target ")
      .append(target_of(op))
      .append(" has no known semantics: every element may be read");
}
std::string unfit_reason(const OpContext& op, const Unsupported& e) {
  std::string_view what = e.what();
  const std::string prefix = std::string(target_of(op)) + ": ";
  if (what.starts_with(prefix)) what.remove_prefix(prefix.size());
  return std::string("custom-call target ")
      .append(target_of(op))
      .append(", ")
      .append(what)
      .append(": every element may be read");
}

void mark_all(std::vector<MapSet>& sets, const std::string& why) {
  for (MapSet& set : sets)
    for (IndexingMap& m : set)
      if (m.is_defined()) m.mark_approximate(why);
}

}  // namespace

std::vector<MapSet> o2i_custom_call(const OpContext& op, std::size_t output) {
  std::string why;
  if (const KnownTarget* t = known_target(op)) {
    try {
      return o2i_known(op, output, t->maps);
    } catch (const Unsupported& e) {
      why = unfit_reason(op, e);
    }
  }
  try {
    if (has_sharding_rule(op)) return o2i_sharding_rule(op, output);
  } catch (const Unsupported& e) {
    if (why.empty()) why = unfit_reason(op, e);
  }
  if (why.empty()) why = unknown_reason(op);
  std::vector<MapSet> sets = o2i_whole_operands(op, output);
  mark_all(sets, why);
  return sets;
}

// The inverse of o2i_custom_call output by output: where the maps of one
// output do not apply, only that output falls back to every element.
std::vector<MapSet> i2o_custom_call(const OpContext& op, std::size_t operand) {
  try {
    if (const KnownTarget* t = known_target(op)) return i2o_known(op, operand, t->maps);
    if (has_sharding_rule(op)) return i2o_sharding_rule(op, operand);
  } catch (const Unsupported&) {
    return maps_by_inverse(op, operand, o2i_custom_call);
  }
  std::vector<MapSet> sets = i2o_whole_operands(op, operand);
  mark_all(sets, unknown_reason(op));
  return sets;
}

}  // namespace hlo_index::indexing::detail

namespace hlo_index::indexing {

CustomCallWork custom_call_work(const OpContext& op) {
  const std::string_view target = detail::target_of(op);
  const auto* it = std::find_if(std::begin(detail::k_targets), std::end(detail::k_targets),
                                [&](const detail::KnownTarget& t) { return t.name == target; });
  if (it == std::end(detail::k_targets)) return CustomCallWork::kUnknown;
  using M = detail::TargetMaps;
  switch (it->maps) {
    case M::kCublasGemm:
    case M::kCublasLtMatmul:
    case M::kCublasLtMatmulF8:
    case M::kEinsum: return CustomCallWork::kMatmul;
    case M::kCudnnConvForward:
    case M::kCudnnConvBackwardInput:
    case M::kCudnnConvBackwardFilter:
    case M::kCudnnConvBiasActivationForward:
    case M::kCudnnConvForwardGraph: return CustomCallWork::kConvolution;
    case M::kCublasTriangularSolve: return CustomCallWork::kTriangularSolve;
    case M::kElementwise:
    case M::kSoftmax:
    case M::kLayerNorm: return CustomCallWork::kElementwise;
    case M::kKernelReadsWholeOperands:
    case M::kPartialReduce:
    case M::kTridiagonalSolver:
    case M::kFusedAttentionForward:
    case M::kFusedAttentionBackward:
    case M::kWholeOperands:
    case M::kTopK: return CustomCallWork::kUnknown;
    default: return CustomCallWork::kNone;
  }
}

}  // namespace hlo_index::indexing

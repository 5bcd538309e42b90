// The fields of XLA's backend_config JSON that decide maps: those of
// xla/service/gpu/backend_configs.proto for cuBLAS and cuDNN custom-calls,
// and a while loop's WhileLoopBackendConfig (xla/xla_data.proto). The JSON is read tolerantly (the attribute written
// bare or as a quoted string, the config nested in GpuBackendConfig or, as older XLA printed it, at the top level;
// proto3 defaults for absent scalar fields, field names in lowerCamelCase as older XLA printed them), and anything
// malformed throws Unsupported with the reason.
#pragma once

#include <optional>
#include <string_view>

#include "indexing/ops/op_context.hpp"
#include "indexing/ops/op_maps_internal.hpp"
#include "parser/attributes.hpp"

namespace hlo_index::indexing::detail {

/// GemmBackendConfig.Epilogue, numbered as in the proto.
enum class GemmEpilogue {
  kDefault,
  kBias,
  kRelu,
  kBiasRelu,
  kGelu,
  kGeluAux,
  kBiasGelu,
  kBiasGeluAux,
  kSilu,
  kBiasSilu
};

/// The epilogue adds a vector bias (an operand).
bool adds_vector_bias(GemmEpilogue e);
/// The epilogue also returns its input (the pre-activation result) as an output.
bool has_aux_output(GemmEpilogue e);
std::string_view epilogue_name(GemmEpilogue e);

/// GemmBackendConfig: what the maps of a cuBLAS GEMM custom-call need.
struct GemmConfig {
  parser::DotDimensions dot;
  double beta = 0;  // != 0: a C operand is added (C is read at the output index)
  GemmEpilogue epilogue = GemmEpilogue::kDefault;
  bool damax_output = false;  // FP8: an extra scalar output, max |D|
};

/// `gemm_backend_config` of op's backend_config (dot_dimension_numbers is required).
GemmConfig gemm_config(const OpContext& op);

/// TriangularSolveOptions (xla_data.proto) of op's backend_config;
/// transpose_a is required (its proto default is TRANSPOSE_INVALID).
TriangularSolveOptions triangular_solve_options(const OpContext& op);

/// CudnnConvBackendConfig.side_input_scale of op's backend_config (0 when
/// the field is absent, as proto3 prints it).
double cudnn_side_input_scale(const OpContext& op);

/// WhileLoopBackendConfig: what XLA's while-loop analysis found.
struct WhileLoopConfig {
  std::optional<std::int64_t> trip_count;         // known_trip_count.n
  std::optional<std::int64_t> init, step;         // known_init_step
  std::optional<std::int64_t> induction_element;  // known_induction_variable.tuple_index
};

/// The while's WhileLoopBackendConfig; none without a backend_config, and
/// Unsupported when it is malformed.
std::optional<WhileLoopConfig> while_loop_config(const OpContext& op);

}  // namespace hlo_index::indexing::detail

// custom-call: maps for the targets whose semantics are published, by
// custom_call_target. Every other target is UNDEFINED with its name.
#include <algorithm>
#include <string_view>

#include "indexing/op_maps_internal.hpp"

namespace hlo_index::indexing::detail {

namespace {

// How a known target reads its operands.
enum class TargetMaps {
  kIdentity,                // the result is operand 0, unchanged (annotations, memory-space moves)
  kNothingRead,             // no operand element is read
  kTopK,                    // (values, indices) of the k largest along the last dimension
  kFusedAttentionForward,   // Transformer Engine (op_maps_fused_attention.cpp)
  kFusedAttentionBackward,  // likewise
  // A kernel with no published per-element semantics that can only read its
  // operands' buffers: every output element may read every operand element.
  // Sound (nothing outside the operands is read) but not exact: approximate.
  kKernelReadsWholeOperands,
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
    {"GetRngSeed", TargetMaps::kNothingRead, "XLA CPU/GPU: a seed, no operands"},
    {"LayoutConstraint", TargetMaps::kIdentity, "XLA: fixes operand 0's layout"},
    {"MoveToDevice", TargetMaps::kIdentity, "XLA host offloading: operand 0 moved to device memory"},
    {"MoveToHost", TargetMaps::kIdentity, "XLA host offloading: operand 0 moved to host memory"},
    {"SetBound", TargetMaps::kIdentity, "XLA: sets the bound of a dynamic dimension of operand 0"},
    {"Sharding", TargetMaps::kIdentity, "XLA SPMD: a sharding annotation on operand 0"},
    {"TopK", TargetMaps::kTopK, "XLA: TopK custom-call (the k largest along the last dimension)"},
    {"te_fused_attn_backward_ffi", TargetMaps::kFusedAttentionBackward,
     "NVIDIA TransformerEngine, transformer_engine/jax/csrc/extensions/attention.cpp"},
    {"te_fused_attn_forward_ffi", TargetMaps::kFusedAttentionForward,
     "NVIDIA TransformerEngine, transformer_engine/jax/csrc/extensions/attention.cpp"},
    {"tpu_custom_call", TargetMaps::kKernelReadsWholeOperands,
     "JAX Pallas/Mosaic TPU kernel: arbitrary code over its operand buffers, no per-element semantics"},
};

std::string_view target_of(const OpContext& op) {
  std::string_view target = op.attribute("custom_call_target").value_or("");
  if (target.size() >= 2 && target.front() == '"' && target.back() == '"') target = target.substr(1, target.size() - 2);
  return target;
}

const KnownTarget& known_target(const OpContext& op) {
  const std::string_view target = target_of(op);
  const auto* it =
      std::find_if(std::begin(k_targets), std::end(k_targets), [&](const KnownTarget& t) { return t.name == target; });
  if (it == std::end(k_targets)) {
    throw Unsupported(std::string("no indexing maps for custom-call target '").append(target).append("'"));
  }
  return *it;
}

void require_identity_shapes(const OpContext& op) {
  if (op.operand_count() == 0 || op.shape().is_tuple || op.operand_dims(0) != op.output_dims(0))
    throw Unsupported(std::string("custom-call target '")
                          .append(target_of(op))
                          .append("' expects one operand of the result's shape"));
}

}  // namespace

std::vector<MapSet> o2i_custom_call(const OpContext& op, std::size_t output) {
  switch (known_target(op).maps) {
    case TargetMaps::kIdentity: {
      require_identity_shapes(op);
      std::vector<MapSet> sets(op.operand_count());
      sets[0].push_back(IndexingMap::identity(op.output_dims(0)));
      return sets;
    }
    case TargetMaps::kNothingRead: return std::vector<MapSet>(op.operand_count());
    case TargetMaps::kTopK: return o2i_sort(op, output);
    case TargetMaps::kFusedAttentionForward: return o2i_fused_attention(op, output, false);
    case TargetMaps::kFusedAttentionBackward: return o2i_fused_attention(op, output, true);
    case TargetMaps::kKernelReadsWholeOperands: {
      std::vector<MapSet> sets = o2i_whole_operands(op, output);
      for (MapSet& set : sets)
        for (IndexingMap& m : set) m.mark_approximate();
      return sets;
    }
  }
  return {};
}

std::vector<MapSet> i2o_custom_call(const OpContext& op, std::size_t operand) {
  switch (known_target(op).maps) {
    case TargetMaps::kIdentity: {
      require_identity_shapes(op);
      std::vector<MapSet> sets(1);
      if (operand == 0) sets[0].push_back(IndexingMap::identity(op.output_dims(0)));
      return sets;
    }
    case TargetMaps::kNothingRead: return std::vector<MapSet>(op.output_count());
    case TargetMaps::kTopK: return i2o_sort(op, operand);
    case TargetMaps::kFusedAttentionForward: return i2o_fused_attention(op, operand, false);
    case TargetMaps::kFusedAttentionBackward: return i2o_fused_attention(op, operand, true);
    case TargetMaps::kKernelReadsWholeOperands: {
      std::vector<MapSet> sets = i2o_whole_operands(op, operand);
      for (MapSet& set : sets)
        for (IndexingMap& m : set) m.mark_approximate();
      return sets;
    }
  }
  return {};
}

}  // namespace hlo_index::indexing::detail

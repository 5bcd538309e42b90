#include "indexing/analysis/access_target.hpp"

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

namespace hlo_index::analysis {

std::string_view target_name(Target target) {
  switch (target) {
    case Target::kGpu: return "gpu";
    case Target::kTpu: return "tpu";
    case Target::kCpu: return "cpu";
  }
  return "gpu";
}

std::optional<Target> parse_target(std::string_view name) {
  for (Target t : {Target::kGpu, Target::kTpu, Target::kCpu})
    if (target_name(t) == name) return t;
  return std::nullopt;
}

namespace {

bool tpu_layout(const hlo::Shape& shape) {
  if (shape.is_tuple) return std::any_of(shape.elements.begin(), shape.elements.end(), tpu_layout);
  return shape.layout && (!shape.layout->tiles.empty() || shape.layout->memory_space != 0);
}

// `{1,0}` -> 1, 0.
std::vector<std::int64_t> int_list(std::string_view text) {
  std::vector<std::int64_t> out;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end) {
    if (*p < '0' || *p > '9') {
      ++p;
      continue;
    }
    std::int64_t v = 0;
    p = std::from_chars(p, end, v).ptr;
    out.push_back(v);
  }
  return out;
}

// The logical dimension that is minor-most in memory.
std::int64_t minor_dimension(const hlo::Shape& shape) {
  if (shape.layout && !shape.layout->minor_to_major.empty()) return shape.layout->minor_to_major[0];
  return static_cast<std::int64_t>(shape.rank()) - 1;
}

// XLA's reduction emitter is a row reduction when the reduced dimensions
// include the operand's minor-most one (the row is contiguous in memory).
AccessModel reduction_kind(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& reduce) {
  const hlo::Shape& operand = module.shape_of(c.instructions[c.operands_of(reduce)[0]]);
  const auto reduced = int_list(c.attribute(reduce, "dimensions").value_or(""));
  const bool row = std::find(reduced.begin(), reduced.end(), minor_dimension(operand)) != reduced.end();
  return row ? AccessModel::kGpuRowReduction : AccessModel::kGpuColumnReduction;
}

// XLA emits a transpose (or a copy that changes the layout) through
// shared-memory tiles when it moves the minor dimension and both minor
// dimensions are long enough for a tile (kMinDimensionToTransposeTiled = 16,
// and at least 64 x 128 elements in all).
bool tiled_transpose(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& instr) {
  if (instr.opcode != hlo::Opcode::kTranspose && instr.opcode != hlo::Opcode::kCopy) return false;
  const hlo::Shape& out = module.shape_of(instr);
  const hlo::Shape& in = module.shape_of(c.instructions[c.operands_of(instr)[0]]);
  if (out.is_tuple || in.is_tuple || out.rank() < 2 || out.rank() != in.rank()) return false;
  std::vector<std::int64_t> perm = int_list(c.attribute(instr, "dimensions").value_or(""));
  if (instr.opcode == hlo::Opcode::kCopy || perm.size() != out.rank()) {
    perm.resize(out.rank());
    for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<std::int64_t>(k);
  }
  const std::int64_t out_minor = minor_dimension(out), in_minor = minor_dimension(in);
  if (out_minor < 0 || in_minor < 0 || perm[static_cast<std::size_t>(out_minor)] == in_minor) return false;
  const auto elements = out.element_count();
  return out.dims[static_cast<std::size_t>(out_minor)] >= 16 && in.dims[static_cast<std::size_t>(in_minor)] >= 16 &&
         elements && *elements >= 64 * 128;
}

}  // namespace

namespace {

bool starts_with_any(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return text.starts_with(p); });
}

bool contains_any(std::string_view text, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view p) { return text.find(p) != text.npos; });
}

// What a backend's compiler leaves in a dump: its library calls (custom-call targets) and the keys
// of its backend configs. Unquoted: a target is written `custom_call_target="__onednn$matmul"`.
std::optional<Target> backend_marker(const hlo::Module& module) {
  bool gpu = false, cpu = false;
  for (const hlo::Computation& c : module.computations) {
    for (const hlo::Instruction& i : c.instructions) {
      if (auto target = c.attribute(i, "custom_call_target")) {
        std::string_view t = *target;
        if (!t.empty() && t.front() == '"') t.remove_prefix(1);
        if (starts_with_any(t, {"__onednn$", "__xla_cpu_runtime", "xla.cpu.", "__mkl", "__xnnpack"})) cpu = true;
        if (starts_with_any(t, {"__cublas", "__cudnn", "__gpu$", "__triton", "__nvshmem", "__hipblas", "__miopen",
                                "__rocm", "__nccl"}))
          gpu = true;
      }
      if (auto config = c.attribute(i, "backend_config")) {
        if (contains_any(*config, {"outer_dimension_partitions", "llvm_kernel_options", "onednn_"})) cpu = true;
        if (contains_any(*config, {"operation_queue_id", "fusion_backend_config", "gemm_backend_config",
                                   "cudnn_conv_backend_config", "collective_backend_config"}))
          gpu = true;
      }
    }
  }
  if (cpu && !gpu) return Target::kCpu;
  if (gpu) return Target::kGpu;
  return std::nullopt;
}

}  // namespace

Target detect_target(const hlo::Module& module) {
  if (std::any_of(module.shapes.begin(), module.shapes.end(), tpu_layout)) return Target::kTpu;
  return backend_marker(module).value_or(Target::kGpu);
}

std::string_view model_name(AccessModel model) {
  switch (model) {
    case AccessModel::kGpuLoop: return "gpu loop emitter";
    case AccessModel::kGpuRowReduction: return "gpu row reduction";
    case AccessModel::kGpuColumnReduction: return "gpu column reduction";
    case AccessModel::kGpuTiledTranspose: return "gpu tiled transpose";
    case AccessModel::kTpuTiles: return "tpu tile transfers";
    case AccessModel::kCpuLines: return "cpu cache lines";
  }
  return "gpu loop emitter";
}

bool matmul_emitted(const hlo::Module& module, const hlo::Computation& computation,
                    const hlo::Instruction& instruction) {
  auto matmul = [](const hlo::Instruction& i) {
    return i.opcode == hlo::Opcode::kDot || i.opcode == hlo::Opcode::kConvolution;
  };
  if (matmul(instruction)) return true;
  const hlo::Computation* body =
      instruction.opcode == hlo::Opcode::kFusion ? module.callee(computation, instruction) : nullptr;
  return body != nullptr && std::any_of(body->instructions.begin(), body->instructions.end(), matmul);
}

AccessModel gpu_emitter(const hlo::Module& module, const hlo::Computation& computation,
                        const hlo::Instruction& instruction) {
  const hlo::Computation* body = &computation;
  std::vector<const hlo::Instruction*> roots{&instruction};
  if (instruction.opcode == hlo::Opcode::kFusion && !computation.callees_of(instruction).empty()) {
    body = module.callee(computation, instruction);
    if (body == nullptr || body->root == hlo::k_none) return AccessModel::kGpuLoop;
    const hlo::Instruction& root = body->instructions[body->root];
    roots = {&root};
    if (root.opcode == hlo::Opcode::kTuple) {
      roots.clear();
      for (std::uint32_t k : body->operands_of(root)) roots.push_back(&body->instructions[k]);
    }
  }
  // A reduction hero decides the emitter of the whole fusion, as in XLA.
  for (const hlo::Instruction* r : roots)
    if (r->opcode == hlo::Opcode::kReduce && r->operand_count > 0) return reduction_kind(module, *body, *r);
  for (const hlo::Instruction* r : roots) {
    // The transpose hero may sit under elementwise conversions.
    const hlo::Instruction* hero = r;
    while ((hero->opcode == hlo::Opcode::kConvert || hero->opcode == hlo::Opcode::kBitcast) && hero->operand_count == 1)
      hero = &body->instructions[body->operands_of(*hero)[0]];
    if (tiled_transpose(module, *body, *hero)) return AccessModel::kGpuTiledTranspose;
  }
  return AccessModel::kGpuLoop;
}

}  // namespace hlo_index::analysis

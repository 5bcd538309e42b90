// The machine whose memory system judges a read pattern (`--target`), and
// the access model that produced each verdict: GPU emitters (XLA's loop,
// reduction and tiled-transpose emitters), TPU tile transfers, CPU cache
// lines.
#pragma once

#include <optional>
#include <string_view>

#include "parser/hlo_module.hpp"

namespace hlo_index::analysis {

enum class Target { kGpu, kTpu, kCpu };
std::string_view target_name(Target target);
std::optional<Target> parse_target(std::string_view name);

/// TPU when some layout of the module has tiles (`:T(`) or a memory space
/// (`S(n)`), as XLA's TPU compiler writes them; else CPU when the module calls
/// XLA:CPU's libraries (`__onednn$...`, `__xla_cpu_runtime...`) or carries its
/// backend configs (`outer_dimension_partitions`) and nothing of a GPU's
/// (`__cublas$...`, `__cudnn$...`, `operation_queue_id`, `fusion_backend_config`);
/// else GPU (also when nothing says: --target chooses).
Target detect_target(const hlo::Module& module);

/// The thread or transfer model a verdict comes from.
enum class AccessModel {
  kGpuLoop,             // consecutive output elements to consecutive threads, warps of 32
  kGpuRowReduction,     // a warp reads consecutive elements of one reduced row
  kGpuColumnReduction,  // a warp reads consecutive kept elements, one reduced row at a time
  kGpuTiledTranspose,   // a warp reads a tile row of the operand into shared memory
  kTpuTiles,            // transfers whole tiles of the operand's tiled layout
  kCpuLines,            // fetches 64-byte cache lines
};
std::string_view model_name(AccessModel model);

/// The emitter XLA's GPU backend would use for `instruction` (a fusion by
/// its body's roots, a plain reduce or transpose by itself).
AccessModel gpu_emitter(const hlo::Module& module, const hlo::Computation& computation,
                        const hlo::Instruction& instruction);

/// A dot or convolution, or a fusion with one: XLA emits it with its matmul
/// emitters (cuBLAS or Triton tiles on GPU, the MXU on TPU, Eigen on CPU),
/// which tile both operands; none of the access models describes its reads.
bool matmul_emitted(const hlo::Module& module, const hlo::Computation& computation,
                    const hlo::Instruction& instruction);

}  // namespace hlo_index::analysis

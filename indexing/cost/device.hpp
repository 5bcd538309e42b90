// The machines estimated times are for: peak FLOP/s by data type on the
// vector and matrix units, memory bandwidth and sizes, core counts, the
// fixed cost of a kernel or step, the interconnect, and the unit memory is
// moved in. The named devices are one table (devices.cpp), each row citing
// where its figures are published; `--device-file` reads a device from JSON
// in the same fields (docs/cost-model.md).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indexing/analysis/access_target.hpp"
#include "parser/hlo_module.hpp"
#include "parser/shape.hpp"

namespace hlo_index::cost {

/// Which unit executes an operation: matrix units (tensor cores, the MXU,
/// AMX) for dots and convolutions, vector units (CUDA cores, the VPU, SIMD)
/// for everything else.
enum class ComputeUnit { kVector, kMatrix };

/// The data types peaks are published for. Narrower integer and float
/// types use the nearest wider class (s4 as int8, f6/f4 as fp8).
enum class PeakClass { kF64, kF32, kTF32, kBF16, kFP8, kInt8 };
std::string_view peak_class_name(PeakClass c);

/// The class an operation on `type` runs at; `tf32` says whether an f32 dot
/// may use TF32 (XLA's default precision on GPUs that have it).
PeakClass peak_class(hlo::ElementType type, bool tf32 = false);

struct Peak {
  PeakClass type;
  ComputeUnit unit;
  double flops_per_second;  // dense (no structured sparsity)
};

struct Device {
  std::string name;         // as --device takes it: "h100-sxm"
  std::string description;  // "NVIDIA H100 SXM5 80 GB"
  analysis::Target target = analysis::Target::kGpu;
  std::vector<Peak> peaks;
  double memory_bandwidth = 0;        // HBM (DRAM on a CPU), bytes per second
  double memory_bytes = 0;            // HBM capacity
  double on_chip_bytes = 0;           // the largest on-chip store: L2 / Infinity Cache / CMEM; 0: not known
  std::int64_t cores = 1;             // SMs, CUs, TensorCores per chip, CPU cores
  double launch_overhead = 0;         // seconds per kernel (GPU) or per op (TPU, CPU)
  double interconnect_bandwidth = 0;  // bytes per second per chip and direction, for collectives
  double collective_latency = 0;      // seconds per collective step
  /// Bytes one memory transfer moves: 32 (a GPU sector), 64 (a CPU cache
  /// line); 0 on TPU, where the unit is a tile of the array's tiled layout
  /// (untiled_transfer_bytes when it has none).
  std::int64_t transfer_bytes = 32;
  std::int64_t untiled_transfer_bytes = 512;
  bool tf32 = false;   // f32 dots run on the matrix unit as TF32 (XLA's default precision)
  std::string source;  // where the figures come from
  /// For the tile search: the blocks (tiles) and threads one core holds at once, and
  /// the latency of a load from memory. Each round of resident blocks waits at least
  /// one memory round trip, so a tiling of many small tiles cannot move bytes at the
  /// full bandwidth (Little's law). 0: not modelled (the TPU and CPU entries).
  std::int64_t resident_blocks_per_core = 0;
  std::int64_t resident_threads_per_core = 0;
  double memory_latency = 0;  // seconds

  /// The peak for an operation of `type` on `unit`, falling back to wider
  /// classes (and from the matrix to the vector unit) when a class is not
  /// published; 0 when none is.
  double peak(PeakClass type, ComputeUnit unit) const;
};

/// The tile search's figures for a GPU (devices.cpp says where they come from): every named GPU
/// has them, and a --device-file GPU without the fields gets them.
inline constexpr std::int64_t k_gpu_resident_blocks_per_core = 32;
inline constexpr std::int64_t k_gpu_resident_threads_per_core = 2048;
inline constexpr double k_gpu_memory_latency = 500e-9;

/// The named devices, in table order.
const std::vector<Device>& known_devices();
/// A named device (case-insensitive), or none.
const Device* find_device(std::string_view name);
/// The device a target gets when none is named: H100 SXM, TPU v5e, a generic x86 server.
const Device& default_device(analysis::Target target);

/// The device the figures of `module` are for: `chosen` when one is given
/// (--device, --device-file), else the default device of the target its
/// layouts show (analysis::detect_target).
const Device& device_for(const hlo::Module& module, const Device* chosen);

/// A device read from JSON (docs/cost-model.md lists the fields); throws
/// std::runtime_error with the reason when a field is missing or malformed.
Device device_from_json(std::string_view text);
/// The JSON form device_from_json reads.
std::string device_to_json(const Device& device);

}  // namespace hlo_index::cost

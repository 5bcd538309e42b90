// The named devices. Every figure is the vendor's published peak for one
// chip (dense: a figure quoted "with sparsity" is halved), or says how it is
// derived where the vendor publishes none. Overheads are model constants, not
// measurements: XLA's GPU performance model charges 1 us per kernel launch
// and 5 us per NCCL collective (xla/service/gpu/model/gpu_performance_model_base.h);
// the TPU and CPU ones are estimates to override with --device-file.
#include <algorithm>
#include <cctype>

#include "indexing/cost/device.hpp"

namespace hlo_index::cost {

namespace {

constexpr double T = 1e12;  // tera
constexpr double G = 1e9;
constexpr double us = 1e-6;

using enum PeakClass;
using enum ComputeUnit;

// TPU vector units (VPU) have no published peak. Estimated from the core's
// shape: the VPU is 8 sublanes x 128 lanes, one FMA each per cycle, against
// the MXUs' 128 x 128 (v6e: 256 x 256) multiply-accumulates each; so the
// f32 vector peak is the bf16 matrix peak over (MXUs x MXU size / 1024).
double tpu_vector(double matrix_bf16, double mxus, double mxu_side) {
  return matrix_bf16 / (mxus * mxu_side * mxu_side / 1024.0);
}

std::vector<Device> make_devices() {
  std::vector<Device> d;
  // NVIDIA H100 SXM5: datasheet (nvidia.com/en-us/data-center/h100, 2023): FP64 34 TF, FP64 tensor
  // 67 TF, FP32 67 TF, TF32 989 TF / BF16, FP16 1,979 TF / FP8, INT8 3,958 (all "with sparsity":
  // dense is half), 80 GB HBM3 at 3.35 TB/s, NVLink 900 GB/s (both directions), 132 SMs, 50 MB L2.
  d.push_back({"h100-sxm",
               "NVIDIA H100 SXM5 80 GB",
               analysis::Target::kGpu,
               {{kF64, kVector, 34 * T},
                {kF32, kVector, 67 * T},
                {kF64, kMatrix, 67 * T},
                {kTF32, kMatrix, 494.5 * T},
                {kBF16, kMatrix, 989.5 * T},
                {kFP8, kMatrix, 1979 * T},
                {kInt8, kMatrix, 1979 * T}},
               3.35e12,
               80e9,
               50e6,
               132,
               1 * us,
               450 * G,
               5 * us,
               32,
               512,
               true,
               "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100), SXM5 column"});
  // NVIDIA H200 SXM: the H100's compute (same GH100 chip, nvidia.com/en-us/data-center/h200, 2024),
  // 141 GB HBM3e at 4.8 TB/s, NVLink 900 GB/s.
  d.push_back({"h200", "NVIDIA H200 SXM 141 GB", analysis::Target::kGpu, d.back().peaks, 4.8e12, 141e9, 50e6, 132,
               1 * us, 450 * G, 5 * us, 32, 512, true,
               "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200), SXM column"});
  // NVIDIA B200 (HGX B200 table, nvidia.com/en-us/data-center/hgx, per GPU, marked preliminary by
  // NVIDIA): FP64/FP64 tensor 37 TF, FP32 75 TF, TF32 2.2 PF, FP16/BF16 4.5 PF, FP8 9 PF, INT8 9 POPS
  // (sparse: dense is half), 180 GB HBM3e at 7.7 TB/s, NVLink 5 1.8 TB/s; 148 SMs and a 126.5 MiB L2
  // as XLA's gpu_specs/b200.txtpb gives them.
  d.push_back({"b200",
               "NVIDIA B200 (HGX) 180 GB",
               analysis::Target::kGpu,
               {{kF64, kVector, 37 * T},
                {kF32, kVector, 75 * T},
                {kF64, kMatrix, 37 * T},
                {kTF32, kMatrix, 1100 * T},
                {kBF16, kMatrix, 2250 * T},
                {kFP8, kMatrix, 4500 * T},
                {kInt8, kMatrix, 4500 * T}},
               7.7e12,
               180e9,
               132.6e6,
               148,
               1 * us,
               900 * G,
               5 * us,
               32,
               512,
               true,
               "NVIDIA HGX B200 specifications (nvidia.com/en-us/data-center/hgx), per GPU; SMs and L2 from XLA's "
               "xla/tools/hlo_opt/gpu_specs/b200.txtpb"});
  // NVIDIA A100 80 GB SXM: datasheet (NVIDIA A100 Tensor Core GPU, 2021): FP64 9.7 TF, FP64 tensor
  // 19.5 TF, FP32 19.5 TF, TF32 156 TF, BF16/FP16 312 TF, INT8 624 TOPS (dense), HBM2e 2,039 GB/s,
  // NVLink 600 GB/s, 108 SMs, 40 MB L2. No FP8: FP8 runs at the FP16 rate.
  d.push_back({"a100-80gb",
               "NVIDIA A100 SXM 80 GB",
               analysis::Target::kGpu,
               {{kF64, kVector, 9.7 * T},
                {kF32, kVector, 19.5 * T},
                {kF64, kMatrix, 19.5 * T},
                {kTF32, kMatrix, 156 * T},
                {kBF16, kMatrix, 312 * T},
                {kInt8, kMatrix, 624 * T}},
               2.039e12,
               80e9,
               40e6,
               108,
               1 * us,
               300 * G,
               5 * us,
               32,
               512,
               true,
               "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100), 80GB SXM column"});
  // AMD Instinct MI300X: ROCm's "MI300 microarchitecture" and GPU specifications pages (2025):
  // FP64 vector 81.7 / matrix 163.4 TF, FP32 163.4 TF, TF32 653.7 TF, FP16/BF16 1,307.4 TF, FP8 and
  // INT8 2,614.9 (dense), 192 GB HBM3 at 5.3 TB/s, 256 MB Infinity Cache, 304 CUs; 7 Infinity Fabric
  // links of 64 GB/s per direction each.
  d.push_back({"mi300x",
               "AMD Instinct MI300X 192 GB",
               analysis::Target::kGpu,
               {{kF64, kVector, 81.7 * T},
                {kF32, kVector, 163.4 * T},
                {kF64, kMatrix, 163.4 * T},
                {kF32, kMatrix, 163.4 * T},
                {kTF32, kMatrix, 653.7 * T},
                {kBF16, kMatrix, 1307.4 * T},
                {kFP8, kMatrix, 2614.9 * T},
                {kInt8, kMatrix, 2614.9 * T}},
               5.3e12,
               192e9,
               256e6,
               304,
               1 * us,
               448 * G,
               5 * us,
               32,
               512,
               false,
               "AMD ROCm documentation, MI300 microarchitecture and GPU specifications "
               "(rocm.docs.amd.com/en/latest/reference/gpu-arch-specs.html)"});
  // Google Cloud TPU v4 (cloud.google.com/tpu/docs/v4; Jouppi et al., ISCA 2023): 275 TF BF16 and
  // INT8, 32 GiB HBM2 at 1,200 GB/s, 128 MiB CMEM, 2 TensorCores of 4 MXUs (128 x 128); ICI 6 links.
  d.push_back({"tpu-v4",
               "Google TPU v4",
               analysis::Target::kTpu,
               {{kBF16, kMatrix, 275 * T}, {kInt8, kMatrix, 275 * T}, {kF32, kVector, tpu_vector(275 * T, 8, 128)}},
               1.2e12,
               32 * 1073741824.0,
               128 * 1048576.0,
               2,
               0.5 * us,
               150 * G,
               2 * us,
               0,
               512,
               false,
               "Cloud TPU v4 documentation (cloud.google.com/tpu/docs/v4); Jouppi et al., TPU v4, ISCA 2023 "
               "(arXiv 2304.01433); vector peak and overheads estimated (see devices.cpp)"});
  // TPU v5e (cloud.google.com/tpu/docs/v5e): 197 TF BF16, 393 TOPS INT8, 16 GB HBM2 at 819 GB/s,
  // 1 TensorCore of 4 MXUs, ICI 1,600 Gbps per chip.
  d.push_back({"tpu-v5e",
               "Google TPU v5e",
               analysis::Target::kTpu,
               {{kBF16, kMatrix, 197 * T}, {kInt8, kMatrix, 393 * T}, {kF32, kVector, tpu_vector(197 * T, 4, 128)}},
               819 * G,
               16e9,
               0,
               1,
               0.5 * us,
               100 * G,
               2 * us,
               0,
               512,
               false,
               "Cloud TPU v5e documentation (cloud.google.com/tpu/docs/v5e); vector peak and overheads estimated"});
  // TPU v5p (cloud.google.com/tpu/docs/v5p): 459 TF BF16, 918 TOPS INT8, 95 GB HBM2e at 2,765 GB/s,
  // 2 TensorCores of 4 MXUs, ICI 4,800 Gbps per chip.
  d.push_back({"tpu-v5p",
               "Google TPU v5p",
               analysis::Target::kTpu,
               {{kBF16, kMatrix, 459 * T}, {kInt8, kMatrix, 918 * T}, {kF32, kVector, tpu_vector(459 * T, 8, 128)}},
               2.765e12,
               95e9,
               0,
               2,
               0.5 * us,
               300 * G,
               2 * us,
               0,
               512,
               false,
               "Cloud TPU v5p documentation (cloud.google.com/tpu/docs/v5p); vector peak and overheads estimated"});
  // TPU v6e Trillium (cloud.google.com/tpu/docs/v6e): 918 TF BF16, 1,836 TOPS INT8, 32 GB HBM at
  // 1,640 GB/s, 1 TensorCore with 2 MXUs of 256 x 256, ICI 3,200 Gbps per chip.
  d.push_back({"tpu-v6e",
               "Google TPU v6e (Trillium)",
               analysis::Target::kTpu,
               {{kBF16, kMatrix, 918 * T}, {kInt8, kMatrix, 1836 * T}, {kF32, kVector, tpu_vector(918 * T, 2, 256)}},
               1.64e12,
               32e9,
               0,
               1,
               0.5 * us,
               200 * G,
               2 * us,
               0,
               512,
               false,
               "Cloud TPU v6e documentation (cloud.google.com/tpu/docs/v6e); vector peak and overheads estimated"});
  // A generic x86 server CPU, derived rather than measured: 32 cores at 2.5 GHz with two AVX-512 FMA
  // ports (64 f32 / 32 f64 FLOP per cycle and core; Intel 64 and IA-32 Optimization Reference
  // Manual), AMX for bf16 and int8 dots (1,024 bf16 / 2,048 int8 operations per cycle and core;
  // Intel AMX documentation), 8 channels of DDR5-4800 (8 x 4800 MT/s x 8 B = 307.2 GB/s).
  constexpr double cores = 32, clock = 2.5e9;
  d.push_back({"cpu-x86",
               "generic x86-64 server: 32 cores, 2.5 GHz, AVX-512, AMX, 8 x DDR5-4800",
               analysis::Target::kCpu,
               {{kF64, kVector, cores * clock * 32},
                {kF32, kVector, cores * clock * 64},
                {kBF16, kMatrix, cores * clock * 1024},
                {kInt8, kMatrix, cores * clock * 2048}},
               307.2 * G,
               512e9,
               64e6,
               32,
               0.1 * us,
               25 * G,
               10 * us,
               64,
               64,
               false,
               "derived: cores x clock x FLOP per cycle (Intel optimization manual, AMX documentation); "
               "DRAM channels x MT/s x 8 B"});
  // The tile search's residency limits and memory latency, the same for every GPU entry:
  // 32 blocks and 2,048 threads per SM are NVIDIA's limits from compute capability 7.0 to
  // 10.0 (CUDA programming guide, "Technical Specifications per Compute Capability"; AMD's
  // CDNA3 CU also holds 2,048 work-items), and 500 ns is a model constant for a load
  // from HBM, in the 400-600 ns range microbenchmarks report for A100 and H100.
  for (Device& device : d) {
    if (device.target != analysis::Target::kGpu) continue;
    device.resident_blocks_per_core = k_gpu_resident_blocks_per_core;
    device.resident_threads_per_core = k_gpu_resident_threads_per_core;
    device.memory_latency = k_gpu_memory_latency;
  }
  return d;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

const std::vector<Device>& known_devices() {
  static const std::vector<Device> devices = make_devices();
  return devices;
}

const Device* find_device(std::string_view name) {
  const std::string wanted = lower(name);
  for (const Device& d : known_devices())
    if (d.name == wanted) return &d;
  return nullptr;
}

const Device& default_device(analysis::Target target) {
  switch (target) {
    case analysis::Target::kGpu: return *find_device("h100-sxm");
    case analysis::Target::kTpu: return *find_device("tpu-v5e");
    case analysis::Target::kCpu: return *find_device("cpu-x86");
  }
  return known_devices().front();
}

const Device& device_for(const hlo::Module& module, const Device* chosen) {
  return chosen != nullptr ? *chosen : default_device(analysis::detect_target(module));
}

}  // namespace hlo_index::cost

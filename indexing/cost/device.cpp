#include "indexing/cost/device.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hlo_index::cost {

std::string_view peak_class_name(PeakClass c) {
  switch (c) {
    case PeakClass::kF64: return "f64";
    case PeakClass::kF32: return "f32";
    case PeakClass::kTF32: return "tf32";
    case PeakClass::kBF16: return "bf16";
    case PeakClass::kFP8: return "fp8";
    case PeakClass::kInt8: return "int8";
  }
  return "?";
}

namespace {

std::optional<PeakClass> parse_peak_class(std::string_view s) {
  for (PeakClass c :
       {PeakClass::kF64, PeakClass::kF32, PeakClass::kTF32, PeakClass::kBF16, PeakClass::kFP8, PeakClass::kInt8})
    if (peak_class_name(c) == s) return c;
  return std::nullopt;
}

// Where a class without a published figure runs: fp8 at the bf16 rate (A100, TPUs without fp8),
// int8 at the bf16 rate, bf16 at the f32 rate, tf32 at the f32 rate.
std::optional<PeakClass> wider(PeakClass c) {
  switch (c) {
    case PeakClass::kFP8:
    case PeakClass::kInt8: return PeakClass::kBF16;
    case PeakClass::kBF16:
    case PeakClass::kTF32: return PeakClass::kF32;
    case PeakClass::kF32:
    case PeakClass::kF64: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

PeakClass peak_class(hlo::ElementType type, bool tf32) {
  using hlo::ElementType;
  switch (type) {
    case ElementType::kF64:
    case ElementType::kC128: return PeakClass::kF64;
    case ElementType::kF32:
    case ElementType::kC64: return tf32 ? PeakClass::kTF32 : PeakClass::kF32;
    case ElementType::kF16:
    case ElementType::kBF16: return PeakClass::kBF16;
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
    case ElementType::kF8E5M2FNUZ:
    case ElementType::kF8E4M3FNUZ:
    case ElementType::kF8E3M4:
    case ElementType::kF8E8M0FNU:
    case ElementType::kF6E2M3FN:
    case ElementType::kF6E3M2FN:
    case ElementType::kF4E2M1FN: return PeakClass::kFP8;
    case ElementType::kS1:
    case ElementType::kS2:
    case ElementType::kS4:
    case ElementType::kS8:
    case ElementType::kU1:
    case ElementType::kU2:
    case ElementType::kU4:
    case ElementType::kU8: return PeakClass::kInt8;
    default: return PeakClass::kF32;  // pred, wider integers: the vector unit's 32-bit rate
  }
}

double Device::peak(PeakClass type, ComputeUnit unit) const {
  for (std::optional<PeakClass> c = type; c; c = wider(*c)) {
    for (const Peak& p : peaks)
      if (p.type == *c && p.unit == unit) return p.flops_per_second;
  }
  if (unit == ComputeUnit::kMatrix) return peak(type, ComputeUnit::kVector);
  if (type == PeakClass::kF64) return 0;
  for (const Peak& p : peaks)  // no vector figure at all: the slowest published one
    if (p.unit == ComputeUnit::kVector) return p.flops_per_second;
  return 0;
}

Device device_from_json(std::string_view text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("not JSON: {}", e.what()));
  }
  if (!j.is_object()) throw std::runtime_error("a device is a JSON object");
  Device d;
  auto number = [&](const char* key, bool required) -> double {
    if (!j.contains(key)) {
      if (required) throw std::runtime_error(fmt::format("missing field \"{}\"", key));
      return 0;
    }
    if (!j[key].is_number() || j[key].get<double>() < 0)
      throw std::runtime_error(fmt::format("field \"{}\" must be a number >= 0", key));
    return j[key].get<double>();
  };
  auto string = [&](const char* key, bool required) -> std::string {
    if (!j.contains(key)) {
      if (required) throw std::runtime_error(fmt::format("missing field \"{}\"", key));
      return {};
    }
    if (!j[key].is_string()) throw std::runtime_error(fmt::format("field \"{}\" must be a string", key));
    return j[key].get<std::string>();
  };
  d.name = string("name", true);
  d.description = string("description", false);
  const std::string target = string("target", true);
  const std::optional<analysis::Target> t = analysis::parse_target(target);
  if (!t) throw std::runtime_error(fmt::format("field \"target\" is \"{}\": one of gpu, tpu, cpu", target));
  d.target = *t;
  if (!j.contains("peaks") || !j["peaks"].is_array() || j["peaks"].empty())
    throw std::runtime_error("field \"peaks\" must be a non-empty array of {\"type\", \"unit\", \"flops_per_second\"}");
  for (const nlohmann::json& p : j["peaks"]) {
    if (!p.is_object() || !p.contains("type") || !p.contains("unit") || !p.contains("flops_per_second") ||
        !p["type"].is_string() || !p["unit"].is_string() || !p["flops_per_second"].is_number())
      throw std::runtime_error("each peak is {\"type\": \"bf16\", \"unit\": \"matrix\", \"flops_per_second\": N}");
    const auto type = parse_peak_class(p["type"].get<std::string>());
    if (!type) throw std::runtime_error("a peak's \"type\" is one of f64, f32, tf32, bf16, fp8, int8");
    const std::string unit = p["unit"].get<std::string>();
    if (unit != "vector" && unit != "matrix") throw std::runtime_error("a peak's \"unit\" is vector or matrix");
    const double flops = p["flops_per_second"].get<double>();
    if (!(flops > 0)) throw std::runtime_error("a peak's \"flops_per_second\" must be > 0");
    d.peaks.push_back({*type, unit == "vector" ? ComputeUnit::kVector : ComputeUnit::kMatrix, flops});
  }
  d.memory_bandwidth = number("memory_bandwidth", true);
  if (!(d.memory_bandwidth > 0)) throw std::runtime_error("field \"memory_bandwidth\" must be > 0");
  d.memory_bytes = number("memory_bytes", false);
  d.on_chip_bytes = number("on_chip_bytes", false);
  d.cores = static_cast<std::int64_t>(number("cores", false));
  if (d.cores < 1) d.cores = 1;
  d.launch_overhead = number("launch_overhead", false);
  d.interconnect_bandwidth = number("interconnect_bandwidth", false);
  d.collective_latency = number("collective_latency", false);
  const bool tpu = d.target == analysis::Target::kTpu;
  d.transfer_bytes = j.contains("transfer_bytes") ? static_cast<std::int64_t>(number("transfer_bytes", false))
                                                  : (tpu                                  ? 0
                                                     : d.target == analysis::Target::kCpu ? 64
                                                                                          : 32);
  d.untiled_transfer_bytes =
      j.contains("untiled_transfer_bytes") ? static_cast<std::int64_t>(number("untiled_transfer_bytes", false)) : 512;
  if (d.untiled_transfer_bytes < 1) throw std::runtime_error("field \"untiled_transfer_bytes\" must be >= 1");
  if (j.contains("tf32")) {
    if (!j["tf32"].is_boolean()) throw std::runtime_error("field \"tf32\" must be true or false");
    d.tf32 = j["tf32"].get<bool>();
  }
  d.source = string("source", false);
  if (d.source.empty()) d.source = "user-supplied (--device-file)";
  // A GPU without the fields gets the named GPUs' figures (devices.cpp); others none.
  const bool gpu = d.target == analysis::Target::kGpu;
  auto count_or = [&](const char* field, std::int64_t otherwise) {
    if (!j.contains(field)) return otherwise;
    const double v = number(field, false);
    if (v < 0) throw std::runtime_error(fmt::format("field \"{}\" must be >= 0", field));
    return static_cast<std::int64_t>(v);
  };
  d.resident_blocks_per_core = count_or("resident_blocks_per_core", gpu ? k_gpu_resident_blocks_per_core : 0);
  d.resident_threads_per_core = count_or("resident_threads_per_core", gpu ? k_gpu_resident_threads_per_core : 0);
  d.memory_latency = j.contains("memory_latency") ? number("memory_latency", false) : gpu ? k_gpu_memory_latency : 0;
  if (d.memory_latency < 0) throw std::runtime_error("field \"memory_latency\" must be >= 0");
  return d;
}

std::string device_to_json(const Device& d) {
  nlohmann::ordered_json j;
  j["name"] = d.name;
  j["description"] = d.description;
  j["target"] = std::string(analysis::target_name(d.target));
  nlohmann::ordered_json peaks = nlohmann::ordered_json::array();
  for (const Peak& p : d.peaks)
    peaks.push_back({{"type", std::string(peak_class_name(p.type))},
                     {"unit", p.unit == ComputeUnit::kVector ? "vector" : "matrix"},
                     {"flops_per_second", p.flops_per_second}});
  j["peaks"] = peaks;
  j["memory_bandwidth"] = d.memory_bandwidth;
  j["memory_bytes"] = d.memory_bytes;
  j["on_chip_bytes"] = d.on_chip_bytes;
  j["cores"] = d.cores;
  j["launch_overhead"] = d.launch_overhead;
  j["interconnect_bandwidth"] = d.interconnect_bandwidth;
  j["collective_latency"] = d.collective_latency;
  j["transfer_bytes"] = d.transfer_bytes;
  j["untiled_transfer_bytes"] = d.untiled_transfer_bytes;
  j["tf32"] = d.tf32;
  j["resident_blocks_per_core"] = d.resident_blocks_per_core;
  j["resident_threads_per_core"] = d.resident_threads_per_core;
  j["memory_latency"] = d.memory_latency;
  j["source"] = d.source;
  return j.dump(2);
}

}  // namespace hlo_index::cost

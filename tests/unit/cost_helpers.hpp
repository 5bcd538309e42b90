// Costing modules in unit tests: parse HLO text, run the cost model on a
// device, and look instructions up by name.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indexing/analysis/module_analysis.hpp"
#include "indexing/cost/cost_model.hpp"
#include "indexing/cost/device.hpp"
#include "indexing/cost/op_costs.hpp"
#include "parser/diagnostics.hpp"
#include "parser/parse.hpp"

namespace hlo_index::test {

/// A module with its analysis and cost model on one device (which must
/// outlive it).
struct Costed {
  std::vector<hlo::Module> modules;
  std::unique_ptr<analysis::ModuleAnalysis> analysis;
  std::unique_ptr<cost::CostModel> model;
  const cost::Device* device = nullptr;

  const hlo::Module& module() const { return modules.front(); }

  /// (computation, instruction) of the instruction named `name`: in the
  /// computation named `computation` when given, else the entry's first,
  /// else any computation's.
  std::pair<std::uint32_t, std::uint32_t> find(std::string_view name, std::string_view computation = {}) const {
    const hlo::Module& m = module();
    auto in = [&](std::uint32_t c) -> std::int64_t {
      const auto& instructions = m.computations[c].instructions;
      for (std::uint32_t i = 0; i < instructions.size(); ++i)
        if (instructions[i].name == name) return i;
      return -1;
    };
    if (!computation.empty()) {
      const std::uint32_t c = m.find_computation(computation);
      REQUIRE(c != hlo::k_none);
      const std::int64_t i = in(c);
      REQUIRE(i >= 0);
      return {c, static_cast<std::uint32_t>(i)};
    }
    if (const std::int64_t i = in(m.entry); i >= 0) return {m.entry, static_cast<std::uint32_t>(i)};
    for (std::uint32_t c = 0; c < m.computations.size(); ++c)
      if (const std::int64_t i = in(c); i >= 0) return {c, static_cast<std::uint32_t>(i)};
    FAIL("no instruction named " << name);
    return {0, 0};
  }

  /// The cost model's cost of an instruction of a computation analysed on its own.
  const cost::InstructionCost& cost(std::string_view name, std::string_view computation = {}) const {
    const auto [c, i] = find(name, computation);
    return model->cost(c, i);
  }

  /// The FLOPs of one op by its cost rule (outside any fusion).
  cost::OpFlops flops(std::string_view name, std::string_view computation = {}) const {
    const auto [c, i] = find(name, computation);
    return cost::op_flops(module(), module().computations[c], i, *device);
  }
};

inline Costed cost_module(const std::string& text, const cost::Device& device) {
  Costed out;
  parser::DiagnosticEngine diagnostics;
  out.modules = parser::parse_hlo_text(text, "cost.hlo", diagnostics);
  INFO("HLO:\n" << text << "\n" << parser::render(diagnostics));
  REQUIRE_FALSE(diagnostics.has_errors());
  REQUIRE(out.modules.size() == 1);
  out.device = &device;
  out.analysis = std::make_unique<analysis::ModuleAnalysis>(out.modules.front(), indexing::AnalysisOptions{});
  out.model = std::make_unique<cost::CostModel>(*out.analysis, device);
  return out;
}

/// Bytes written over every output leaf.
inline std::int64_t bytes_written(const cost::InstructionCost& c) {
  std::int64_t n = 0;
  for (const cost::ArrayTraffic& t : c.output_writes) n += t.bytes();
  return n;
}

/// Bytes read of operand k.
inline std::int64_t bytes_read(const cost::InstructionCost& c, std::size_t k) {
  REQUIRE(k < c.operand_reads.size());
  return c.operand_reads[k].bytes();
}

/// A device whose transfer unit is one byte: its byte counts are the bytes
/// of the distinct elements moved, comparable with XLA's sizes. Its peaks and
/// bandwidth are placeholders.
inline const cost::Device& byte_device() {
  static const cost::Device d = cost::device_from_json(R"({
    "name": "byte-granular", "target": "gpu", "transfer_bytes": 1,
    "peaks": [{"type": "f32", "unit": "vector", "flops_per_second": 1e12}],
    "memory_bandwidth": 1e12})");
  return d;
}

/// A named device of the table.
inline const cost::Device& named_device(std::string_view name) {
  const cost::Device* d = cost::find_device(name);
  REQUIRE(d != nullptr);
  return *d;
}

}  // namespace hlo_index::test

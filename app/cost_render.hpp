// Cost figures as text and JSON (indexing/cost/cost_model.hpp), in one
// wording for analyze --cost, summary, report and lint.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "indexing/cost/cost_model.hpp"
#include "indexing/cost/profile.hpp"

namespace hlo_index::app {

/// `5.8 us (memory): compute 0.02 us, memory 4.8 us, overhead 1 us`.
std::string time_text(const cost::InstructionCost& cost);
/// The lines of one instruction's cost, each starting with `indent`;
/// `operand_names` name the operands.
std::string cost_text(const cost::InstructionCost& cost, const std::vector<std::string>& operand_names,
                      const std::string& indent);
nlohmann::ordered_json cost_json(const cost::InstructionCost& cost);
/// A profile's time of one instruction, like for like with the estimate of one execution: per
/// device, per run of the module (`module_runs` in the trace) and per execution in a run (`runs`,
/// when known).
struct MeasuredExecution {
  cost::MeasuredTime time;
  std::size_t module_runs = 1;
  cost::Executions runs;
  /// Per execution when `runs` is exact, else per run of the module.
  double seconds() const;
};
/// `measured: 1.2 us per execution (40 events on 8 devices, 48 us in the trace of 5 runs of the module)`.
std::string measured_text(const MeasuredExecution& measured);
nlohmann::ordered_json measured_json(const MeasuredExecution& measured);

/// `module NAME on DEVICE: 1.23 ms estimated (...)`: a module's totals.
std::string totals_text(const std::string& module, const cost::Device& device, const cost::CostTotals& totals);
nlohmann::ordered_json totals_json(const cost::CostTotals& totals);
nlohmann::ordered_json device_json(const cost::Device& device);

}  // namespace hlo_index::app

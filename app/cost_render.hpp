// Cost figures as text and JSON (indexing/cost/cost_model.hpp), in one
// wording for analyze --cost, summary, report and lint.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "indexing/cost/cost_model.hpp"

namespace hlo_index::app {

/// `5.8 us (memory): compute 0.02 us, memory 4.8 us, overhead 1 us`.
std::string time_text(const cost::InstructionCost& cost);
/// The lines of one instruction's cost, each starting with `indent`;
/// `operand_names` name the operands.
std::string cost_text(const cost::InstructionCost& cost, const std::vector<std::string>& operand_names,
                      const std::string& indent);
nlohmann::ordered_json cost_json(const cost::InstructionCost& cost);

/// `module NAME on DEVICE: 1.23 ms estimated (...)`: a module's totals.
std::string totals_text(const std::string& module, const cost::Device& device, const cost::CostTotals& totals);
nlohmann::ordered_json totals_json(const cost::CostTotals& totals);
nlohmann::ordered_json device_json(const cost::Device& device);

}  // namespace hlo_index::app

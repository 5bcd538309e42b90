// The output forms of `hlo-index analyze`: the command walks the selected
// instructions and hands each one's report to a renderer, which prints text
// as it goes (analyze_text.cpp) or builds one JSON document (analyze_json.cpp).
#pragma once

#include <memory>
#include <ostream>

#include "app/analyze_command.hpp"
#include "app/cost_render.hpp"
#include "app/utilisation_report.hpp"
#include "indexing/analysis/instruction_report.hpp"
#include "indexing/cost/cost_model.hpp"

namespace hlo_index::app {

class AnalyzeRenderer {
public:
  virtual ~AnalyzeRenderer() = default;
  /// Before the first computation of a module; `several`: the input holds more than one module.
  virtual void begin_module(const hlo::Module& module, bool several) = 0;
  /// Before the first instruction shown of a computation.
  virtual void begin_computation(const hlo::Computation& computation) = 0;
  /// With --coalescing, before the module's first instruction: the target its
  /// reads are judged for, given with --target or detected from its layouts.
  virtual void target(const hlo::Module& module, analysis::Target target, bool detected) = 0;
  /// With --cost, before the module's first instruction: the device its costs are for.
  virtual void device(const hlo::Module& module, const cost::Device& device, bool chosen) = 0;
  /// `cost`: with --cost; `measured`: with --profile, when events of the trace joined the instruction.
  virtual void instruction(const hlo::Module& module, const analysis::InstructionReport& report,
                           const cost::InstructionCost* cost, const MeasuredExecution* measured) = 0;
  /// After the last instruction shown of a computation (only if some was).
  virtual void end_computation(const hlo::Computation& computation) = 0;
  /// `summary`: with --utilisation; `costs`: with --cost, the module's totals on `device`.
  virtual void end_module(const hlo::Module& module, const UtilisationSummary* summary, const cost::CostTotals* costs,
                          const cost::Device* device) = 0;
  virtual void finish(const analysis::MapTotals& totals) = 0;
};

std::unique_ptr<AnalyzeRenderer> make_text_renderer(const AnalyzeOptions& options, std::ostream& out);
std::unique_ptr<AnalyzeRenderer> make_json_renderer(const AnalyzeOptions& options, std::ostream& out);

}  // namespace hlo_index::app

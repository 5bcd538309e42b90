// `hlo-index analyze` as text: per instruction a header line, per output and
// operand the maps in XLA's text form, read patterns, utilisation.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "app/analyze_render.hpp"
#include "app/cost_render.hpp"
#include "indexing/maps/map_printer.hpp"
#include "indexing/ops/tuple_leaves.hpp"

namespace hlo_index::app {
namespace {

using analysis::InstructionReport;
using analysis::OperandReport;
using indexing::IndexingMap;
using indexing::MapSet;

std::string header(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i) {
  std::string out = fmt::format("%{} = {} {}(", i.name, hlo::to_string(module.shape_of(i)), module.opcode_text(i));
  if (i.opcode == hlo::Opcode::kParameter) out += std::to_string(i.parameter_number);
  if (i.opcode == hlo::Opcode::kConstant) out += i.literal.size() <= 40 ? std::string(i.literal) : std::string("...");
  auto operands = c.operands_of(i);
  for (std::size_t k = 0; k < operands.size(); ++k) {
    out.append(k ? ", %" : "%").append(c.instructions[operands[k]].name);
  }
  out += ")";
  if (auto kind = c.attribute(i, "kind")) out.append(", kind=").append(*kind);
  return out;
}

// What one group of the model is, and its transfer unit.
std::string_view group_noun(analysis::AccessModel model) {
  switch (model) {
    case analysis::AccessModel::kTpuTiles: return "output tile";
    case analysis::AccessModel::kCpuLines: return "16 outputs";
    default: return "warp";
  }
}

std::string_view unit_noun(analysis::AccessModel model) {
  switch (model) {
    case analysis::AccessModel::kTpuTiles: return "tiles";
    case analysis::AccessModel::kCpuLines: return "lines";
    default: return "transactions";
  }
}

// `coalescing: strided 128 [gpu loop emitter] 32.0 128-byte transactions per
// warp (minimum 1.0), 3.1% of the bytes fetched used`
std::string coalescing_text(const analysis::Coalescing& c) {
  std::string text = fmt::format("coalescing: {}", analysis::pattern_name(c.pattern));
  if (c.pattern == analysis::ReadPattern::kStrided) text += " " + std::to_string(c.stride);
  text += fmt::format(" [{}]", analysis::model_name(c.model));
  if (c.groups_sampled == 0) return c.reason.empty() ? text : text + " (" + c.reason + ")";
  if (!c.reason.empty()) text.append(" (").append(c.reason).append(")");
  return text + fmt::format(" {:.1f} {}-byte {} per {} (minimum {:.1f}), {:.1f}% of the bytes fetched used",
                            c.transfers, c.unit_bytes, unit_noun(c.model), group_noun(c.model), c.min_transfers,
                            100.0 * c.used_fraction);
}

class TextRenderer : public AnalyzeRenderer {
public:
  TextRenderer(const AnalyzeOptions& options, std::ostream& out) : m_options(options), m_out(out) {}

  // One module needs no header; several are told apart by name and file.
  void begin_module(const hlo::Module& module, bool several) override {
    if (!several) return;
    // Under canonical names (output for golden files) the name alone: a golden outlives the file's path.
    if (m_options.canonical_names || !module.source)
      m_out << fmt::format("module {}\n", module.name);
    else
      m_out << fmt::format("module {} ({})\n", module.name, module.source->name());
  }

  void begin_computation(const hlo::Computation& c) override {
    m_out << fmt::format("computation {}{}\n", c.name, c.is_entry ? " (entry)" : "");
  }

  void instruction(const hlo::Module& module, const InstructionReport& report, const cost::InstructionCost* cost,
                   const MeasuredExecution* measured) override {
    const hlo::Computation& c = module.computations[report.computation];
    const hlo::Instruction& i = c.instructions[report.instruction];
    const hlo::Shape& shape = module.shape_of(i);
    m_out << header(module, c, i) << "\n";
    for (std::size_t k = 0; k < report.outputs.size(); ++k) {
      std::string indent = "  ";
      if (shape.is_tuple) {
        const std::vector<std::size_t>& at = report.outputs[k].shape_index;  // a leaf of a nested tuple
        m_out << fmt::format("  output {}{}: {}\n", k, at.empty() ? "" : " " + indexing::shape_index_text(at),
                             hlo::to_string(indexing::leaf_shape(shape, k)));
        indent = "    ";
      }
      if (report.operand_names.empty()) m_out << indent << "(no operands)\n";
      for (const OperandReport& op : report.outputs[k].operands) operand(report, op, indent);
    }
    if (report.utilisation) utilisation(report);
    if (cost != nullptr) m_out << cost_text(*cost, report.operand_names, "  ");
    if (measured != nullptr) m_out << "  " << measured_text(*measured) << "\n";
  }

  void device(const hlo::Module& module, const cost::Device& device, bool chosen) override {
    m_out << fmt::format("device of module {}: {} ({}; {})\n", module.name, device.name, device.description,
                         chosen ? "chosen" : "the default for the module's target");
  }

  void target(const hlo::Module& module, analysis::Target target, bool detected) override {
    m_out << fmt::format("target of module {}: {} ({})\n", module.name, analysis::target_name(target),
                         detected ? "detected: TPU when a layout has tiles or a memory space" : "--target");
  }

  void end_computation(const hlo::Computation&) override {}

  void end_module(const hlo::Module& module, const UtilisationSummary* summary, const cost::CostTotals* costs,
                  const cost::Device* device) override {
    if (summary) m_out << summary->text(module.name);
    if (costs && device) m_out << totals_text(std::string(module.name), *device, *costs);
  }

  void finish(const analysis::MapTotals& t) override {
    m_out << fmt::format("analysed {} instruction{}: {} map{}, {} undefined, {} approximate\n", t.instructions,
                         t.instructions == 1 ? "" : "s", t.maps, t.maps == 1 ? "" : "s", t.undefined, t.approximate);
  }

private:
  void operand(const InstructionReport& report, const OperandReport& op, const std::string& indent) {
    m_out << fmt::format("{}operand {} %{}\n", indent, op.operand, report.operand_names[op.operand]);
    const bool physical = m_options.physical;
    if (report.output_to_input)
      maps(physical ? "output offset -> operand offset" : "output -> operand", op.output_to_input, indent + "  ");
    if (report.input_to_output)
      maps(physical ? "operand offset -> output offset" : "operand -> output", op.input_to_output, indent + "  ");
    for (std::size_t n = 0; n < op.read_patterns.size(); ++n) {
      std::string which = op.read_patterns.size() > 1 ? fmt::format(" (map {})", n + 1) : std::string();
      std::string line = coalescing_text(op.read_patterns[n]);
      line.insert(std::string_view("coalescing").size(), which);
      m_out << indent << "  " << line << "\n";
    }
  }

  void utilisation(const InstructionReport& report) {
    const analysis::InstructionUtilisation& u = *report.utilisation;
    m_out << fmt::format("  utilisation: writes {} element{}, {} bytes\n", u.output_elements,
                         u.output_elements == 1 ? "" : "s", simplify::to_string(u.bytes_written_wide));
    for (const auto& op : u.operands)
      m_out << fmt::format("    operand {} %{}: {}\n", op.operand, report.operand_names[op.operand],
                           utilisation_text(op));
  }

  // `(2 maps)`, and with --xla-compat, where the maps carry no marker of
  // their own, which are approximate: `(approximate)`, `(2 maps, approximate)`
  // when all are, `(3 maps, approximate: 1, 3)` (positions from 1) otherwise.
  std::string set_note(const MapSet& set) const {
    std::vector<std::size_t> approximate;
    if (m_options.xla_compat) {
      for (std::size_t n = 0; n < set.size(); ++n) {
        if (set[n].approximate()) approximate.push_back(n + 1);
      }
    }
    std::string note = set.size() > 1 ? fmt::format("{} maps", set.size()) : std::string();
    if (!approximate.empty()) {
      if (!note.empty()) note += ", ";
      note += "approximate";
      if (approximate.size() < set.size()) note += fmt::format(": {}", fmt::join(approximate, ", "));
    }
    return note.empty() ? note : " (" + note + ")";
  }

  void maps(std::string_view label, const MapSet& set, const std::string& indent) {
    if (set.empty()) {
      m_out << indent << label << ": not read\n";
      return;
    }
    m_out << indent << label << set_note(set) << ":\n";
    indexing::MapPrintOptions p;
    p.layout = m_options.one_line ? indexing::MapLayout::kOneLine : indexing::MapLayout::kMultiLine;
    p.indent = indent + "  ";
    p.approximate_marker = !m_options.xla_compat;
    for (const IndexingMap& m : set) {
      if (m.is_undefined()) {
        m_out << p.indent << "UNDEFINED: " << (m.undefined_reason().empty() ? "unknown" : m.undefined_reason()) << "\n";
        continue;
      }
      // The multi-line form indents its first line itself.
      m_out << (m_options.one_line ? p.indent : "") << indexing::print_map(m, p) << "\n";
    }
  }

  const AnalyzeOptions& m_options;
  std::ostream& m_out;
};

}  // namespace

std::unique_ptr<AnalyzeRenderer> make_text_renderer(const AnalyzeOptions& options, std::ostream& out) {
  return std::make_unique<TextRenderer>(options, out);
}

}  // namespace hlo_index::app

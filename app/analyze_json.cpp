// `hlo-index analyze --format json`: one document, modules > computations >
// instructions > outputs > operands, the maps as strings with their runtime
// variables, replica ids and approximate positions in side lists.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "app/analyze_render.hpp"
#include "app/cost_render.hpp"
#include "indexing/analysis/source_position.hpp"
#include "indexing/maps/map_printer.hpp"

namespace hlo_index::app {
namespace {

using analysis::InstructionReport;
using analysis::OperandReport;
using indexing::IndexingMap;
using indexing::MapSet;
using json = nlohmann::ordered_json;

bool exact(const MapSet& set) {
  return std::none_of(set.begin(), set.end(), [](const IndexingMap& m) { return m.is_undefined() || m.approximate(); });
}

std::string undefined_reason(const MapSet& set) {
  for (const IndexingMap& m : set) {
    if (m.is_undefined()) return m.undefined_reason().empty() ? "unknown" : m.undefined_reason();
  }
  return {};
}

json coalescing_json(const analysis::Coalescing& c) {
  json j{{"pattern", std::string(analysis::pattern_name(c.pattern))},
         {"model", std::string(analysis::model_name(c.model))}};
  if (c.pattern == analysis::ReadPattern::kStrided) j["stride"] = c.stride;
  j["transfers"] = c.transfers;
  j["min_transfers"] = c.min_transfers;
  j["unit_bytes"] = c.unit_bytes;
  j["used_fraction"] = c.used_fraction;
  j["stride_share"] = c.stride_share;
  j["groups_sampled"] = c.groups_sampled;
  if (!c.reason.empty()) j["reason"] = c.reason;
  return j;
}

// The maps of a set as strings; their runtime variables, replica ids and
// (with --xla-compat, whose strings carry no marker) the positions of the
// approximate ones go to the side lists.
struct SideLists {
  json runtime = json::array(), replica = json::array(), approximate = json::array();
};

json runtime_variable_json(const IndexingMap& m, std::size_t n, std::size_t r, const indexing::MapPrintOptions& p) {
  const auto& s = m.runtime_sources()[r];
  json v{{"map", n}, {"variable", fmt::format("rt{}", r)}, {"source", s.source}};
  if (s.operand >= 0) v["operand"] = s.operand;
  if (s.map) v["element"] = indexing::print_map(*s.map, p);
  if (s.map && s.map->is_defined() && s.map->has_replica_id()) {
    v["element_replica_id"] = indexing::print_map(s.map->replica_id_map(), p);
  }
  return v;
}

json maps_json(const MapSet& set, bool xla_compat, SideLists& side) {
  json out = json::array();
  indexing::MapPrintOptions p;
  p.runtime_sources = false;
  p.replica_id = false;
  p.approximate_marker = !xla_compat;
  for (std::size_t n = 0; n < set.size(); ++n) {
    const IndexingMap& m = set[n];
    out.push_back(m.is_undefined() ? std::string("UNDEFINED") : indexing::print_map(m, p));
    for (std::size_t r = 0; r < m.runtime_sources().size(); ++r)
      side.runtime.push_back(runtime_variable_json(m, n, r, p));
    if (m.is_defined() && m.has_replica_id()) {
      side.replica.push_back(json{{"map", n}, {"replica_id", indexing::print_map(m.replica_id_map(), p)}});
    }
    if (xla_compat && m.approximate()) side.approximate.push_back(n);
  }
  return out;
}

json operand_json(const InstructionReport& report, const OperandReport& op, bool xla_compat) {
  json j;
  j["index"] = op.operand;
  j["name"] = report.operand_names[op.operand];
  SideLists side_forward, side_backward;
  if (report.output_to_input) j["output_to_input"] = maps_json(op.output_to_input, xla_compat, side_forward);
  if (report.input_to_output) j["input_to_output"] = maps_json(op.input_to_output, xla_compat, side_backward);
  j["exact"] = exact(op.output_to_input) && exact(op.input_to_output);
  std::string reason = undefined_reason(op.output_to_input);
  if (reason.empty()) reason = undefined_reason(op.input_to_output);
  if (!reason.empty()) j["undefined_reason"] = reason;
  auto side_list = [&j](const char* key, json& list) {
    if (!list.empty()) j[key] = std::move(list);
  };
  side_list("output_to_input_runtime_variables", side_forward.runtime);
  side_list("input_to_output_runtime_variables", side_backward.runtime);
  side_list("output_to_input_replica_ids", side_forward.replica);
  side_list("input_to_output_replica_ids", side_backward.replica);
  side_list("output_to_input_approximate", side_forward.approximate);
  side_list("input_to_output_approximate", side_backward.approximate);
  if (!op.read_patterns.empty()) {
    json list = json::array();
    for (const auto& p : op.read_patterns) list.push_back(coalescing_json(p));
    j["coalescing"] = std::move(list);
  }
  return j;
}

json utilisation_json(const InstructionReport& report) {
  const analysis::InstructionUtilisation& u = *report.utilisation;
  json list = json::array();
  for (const auto& op : u.operands) {
    json o{{"index", op.operand}, {"name", report.operand_names[op.operand]}};
    o.update(app::utilisation_json(op));
    list.push_back(std::move(o));
  }
  return json{{"output_elements", u.output_elements},
              // Past 2^63 the digits, as a string.
              {"bytes_written", u.bytes_written_wide <= simplify::k_int64_max_wide
                                    ? json(u.bytes_written)
                                    : json(simplify::to_string(u.bytes_written_wide))},
              {"operands", std::move(list)}};
}

// `j.dump(2)` as it prints `indent` spaces deep in an enclosing dump(2): every
// line after the first moves right (strings hold no raw newline).
std::string nested_dump(const json& j, std::size_t indent) {
  const std::string text = j.dump(2);
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  const std::string line_start = "\n" + std::string(indent, ' ');
  for (char c : text) {
    if (c == '\n') {
      out += line_start;
    } else {
      out += c;
    }
  }
  return out;
}

// An object's nested_dump without its closing brace: more keys follow.
std::string open_object(const json& j, std::size_t indent) {
  std::string text = nested_dump(j, indent);
  text.erase(text.size() - indent - 2);  // "\n" + indent spaces + "}"
  return text;
}

// The document is written as it grows, the bytes `json::dump(2)` of the
// whole would give: one instruction's JSON is held at a time, not the
// module's (torax: 84 MB of JSON held 400 MB as one json value).
class JsonRenderer : public AnalyzeRenderer {
public:
  JsonRenderer(const AnalyzeOptions& options, std::ostream& out) : m_options(options), m_out(out) {}

  void begin_module(const hlo::Module& module, bool) override {
    m_out << (m_modules == 0 ? "{\n  \"modules\": [\n" : ",\n");
    ++m_modules;
    m_head = json{{"name", std::string(module.name)}};
    if (!m_options.canonical_names) m_head["file"] = module.source ? module.source->name() : std::string();
    m_head_written = false;
    m_computations = 0;
  }

  void target(const hlo::Module&, analysis::Target target, bool detected) override {
    m_head["target"] = std::string(analysis::target_name(target));
    m_head["target_source"] = detected ? "detected" : "--target";
  }

  void device(const hlo::Module&, const cost::Device& device, bool chosen) override {
    m_head["device"] = std::string(device.name);
    m_head["device_source"] = chosen ? "chosen" : "default for the target";
  }

  void begin_computation(const hlo::Computation& c) override {
    write_head();
    m_out << (m_computations == 0 ? "\n" : ",\n");
    ++m_computations;
    m_out << "        {\n          \"name\": " << json(std::string(c.name)).dump()
          << ",\n          \"instructions\": [";
    m_instructions = 0;
  }

  void instruction(const hlo::Module& module, const InstructionReport& report, const cost::InstructionCost* cost,
                   const MeasuredExecution* measured) override {
    const hlo::Computation& c = module.computations[report.computation];
    const hlo::Instruction& i = c.instructions[report.instruction];
    json j;
    j["name"] = std::string(i.name);
    // Where to look in the dump; line 0 for an instruction the parser made up (an inline operand).
    // Under canonical names positions are left out: they would move with every edit the names
    // are meant to survive.
    if (!m_options.canonical_names) {
      const analysis::SourcePosition at = analysis::source_position(module, i);
      j["file"] = module.source ? module.source->name() : std::string();
      j["line"] = at.line;
      j["column"] = at.column;
    }
    j["opcode"] = std::string(module.opcode_text(i));
    j["shape"] = hlo::to_string(module.shape_of(i));
    if (auto kind = c.attribute(i, "kind")) j["kind"] = std::string(*kind);
    m_out << (m_instructions == 0 ? "\n" : ",\n") << "            " << open_object(j, 12)
          << ",\n              \"outputs\": [";
    // One output at a time: a 268-output call's maps are tens of MB of JSON.
    for (std::size_t k = 0; k < report.outputs.size(); ++k) {
      json operands = json::array();
      for (const OperandReport& op : report.outputs[k].operands)
        operands.push_back(operand_json(report, op, m_options.xla_compat));
      json output{{"index", k}, {"operands", std::move(operands)}};
      if (!report.outputs[k].shape_index.empty()) output["shape_index"] = report.outputs[k].shape_index;
      m_out << (k == 0 ? "\n" : ",\n") << "                " << nested_dump(output, 16);
    }
    m_out << (report.outputs.empty() ? "]" : "\n              ]");
    if (report.utilisation) m_out << ",\n              \"utilisation\": " << nested_dump(utilisation_json(report), 14);
    if (cost != nullptr) m_out << ",\n              \"cost\": " << nested_dump(cost_json(*cost), 14);
    if (measured != nullptr) m_out << ",\n              \"measured\": " << nested_dump(measured_json(*measured), 14);
    m_out << "\n            }";
    ++m_instructions;
  }

  void end_computation(const hlo::Computation&) override {
    m_out << (m_instructions == 0 ? "]" : "\n          ]") << "\n        }";
  }

  void end_module(const hlo::Module&, const UtilisationSummary* summary, const cost::CostTotals* costs,
                  const cost::Device*) override {
    write_head();
    m_out << (m_computations == 0 ? "]" : "\n      ]");
    if (summary) m_out << ",\n      \"utilisation_summary\": " << nested_dump(summary->json(), 6);
    if (costs) m_out << ",\n      \"cost_totals\": " << nested_dump(totals_json(*costs), 6);
    m_out << "\n    }";
  }

  void finish(const analysis::MapTotals& t) override {
    m_out << (m_modules == 0 ? "{\n  \"modules\": []" : "\n  ]");
    const json summary{
        {"instructions", t.instructions}, {"maps", t.maps}, {"undefined", t.undefined}, {"approximate", t.approximate}};
    m_out << ",\n  \"summary\": " << nested_dump(summary, 2);
    if (m_options.physical) m_out << ",\n  \"offsets\": \"physical\"";
    m_out << "\n}\n";
  }

private:
  // The module's keys before "computations" (name, file, target), known
  // once target() has been told or the first computation begins.
  void write_head() {
    if (m_head_written) return;
    m_head_written = true;
    m_out << "    " << open_object(m_head, 4) << ",\n      \"computations\": [";
  }

  const AnalyzeOptions& m_options;
  std::ostream& m_out;
  json m_head;
  bool m_head_written = false;
  std::size_t m_modules = 0, m_computations = 0, m_instructions = 0;
};

}  // namespace

std::unique_ptr<AnalyzeRenderer> make_json_renderer(const AnalyzeOptions& options, std::ostream& out) {
  return std::make_unique<JsonRenderer>(options, out);
}

}  // namespace hlo_index::app

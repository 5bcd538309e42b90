#include "app/analyze_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/exit_codes.hpp"
#include "app/golden_file.hpp"
#include "app/isl_limit.hpp"
#include "app/utilisation_report.hpp"
#include "indexing/analysis/coalescing.hpp"
#include "indexing/analysis/computation_walk.hpp"
#include "indexing/analysis/module_analysis.hpp"
#include "indexing/analysis/module_input.hpp"
#include "indexing/analysis/physical_indexing.hpp"
#include "indexing/instruction_indexing.hpp"
#include "indexing/map_text.hpp"
#include "layout/physical_layout.hpp"
#include "parser/canonical_names.hpp"
#include "parser/parse.hpp"

namespace hlo_index::app {
namespace {

using indexing::IndexingMap;
using indexing::MapSet;
using json = nlohmann::ordered_json;

struct Totals {
  std::size_t instructions = 0, maps = 0, undefined = 0, approximate = 0;
};

bool exact(const MapSet& set) {
  return std::none_of(set.begin(), set.end(), [](const IndexingMap& m) { return m.is_undefined() || m.approximate(); });
}

std::string undefined_reason(const MapSet& set) {
  for (const IndexingMap& m : set) {
    if (m.is_undefined()) return m.undefined_reason().empty() ? "unknown" : m.undefined_reason();
  }
  return {};
}

void count(const MapSet& set, Totals& totals) {
  for (const IndexingMap& m : set) {
    ++totals.maps;
    if (m.is_undefined()) ++totals.undefined;
    if (m.approximate()) ++totals.approximate;
  }
}

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

using CoalescingTable = analysis::ReadPatternTable;

std::string coalescing_text(const analysis::Coalescing& c) {
  if (c.pattern == analysis::ReadPattern::kIrregular && c.groups_sampled == 0)
    return "coalescing: irregular (" + c.reason + ")";
  std::string text = "coalescing: ";
  text += analysis::pattern_name(c.pattern);
  if (c.pattern == analysis::ReadPattern::kStrided) text += " " + std::to_string(c.stride);
  if (!c.reason.empty()) text.append(" (").append(c.reason).append(")");
  return text +
         fmt::format(", {:.1f}% of a 32-thread group's reads in one 128-byte segment", 100.0 * c.segment_fraction);
}

json coalescing_json(const analysis::Coalescing& c) {
  json j{{"pattern", std::string(analysis::pattern_name(c.pattern))}};
  if (c.pattern == analysis::ReadPattern::kStrided) j["stride"] = c.stride;
  j["segment_fraction"] = c.segment_fraction;
  j["stride_share"] = c.stride_share;
  j["groups_sampled"] = c.groups_sampled;
  if (!c.reason.empty()) j["reason"] = c.reason;
  return j;
}

class Report {
public:
  Report(const AnalyzeOptions& options, std::ostream& out) : m_options(options), m_out(out) {}

  /// Counts and read patterns for the next instruction() call (null: none).
  void set_extras(const analysis::InstructionUtilisation* utilisation, const CoalescingTable* coalescing) {
    m_utilisation = utilisation;
    m_coalescing = coalescing;
  }

  void instruction(const hlo::Module& module, const hlo::Computation& c, const hlo::Instruction& i,
                   const indexing::InstructionIndexing& result, json* json_instructions) {
    ++m_totals.instructions;
    const bool o2i = !result.output_to_input.empty(), i2o = !result.input_to_output.empty();
    const std::size_t outputs = std::max(result.output_to_input.size(), result.input_to_output.size());
    const auto operands = c.operands_of(i);
    const bool text = json_instructions == nullptr;
    if (text) m_out << header(module, c, i) << "\n";
    json j_outputs = json::array();
    for (std::size_t k = 0; k < outputs; ++k) {
      std::string indent = "  ";
      if (text && module.shape_of(i).is_tuple) {
        m_out << fmt::format("  output {}: {}\n", k, hlo::to_string(module.shape_of(i).elements[k]));
        indent = "    ";
      }
      json j_operands = json::array();
      if (text && operands.empty()) m_out << indent << "(no operands)\n";
      for (std::size_t j = 0; j < operands.size(); ++j) {
        if (m_options.operand && *m_options.operand != j) continue;
        const std::string_view name = c.instructions[operands[j]].name;
        const MapSet empty;
        const MapSet& forward = o2i ? result.output_to_input[k][j] : empty;
        const MapSet& backward = i2o && j < result.input_to_output[k].size() ? result.input_to_output[k][j] : empty;
        // Each output of a tuple-shaped op lists only the operands it reads.
        if (module.shape_of(i).is_tuple && forward.empty() && backward.empty()) continue;
        if (text) {
          m_out << fmt::format("{}operand {} %{}\n", indent, j, name);
          if (o2i)
            maps_text(m_options.physical ? "output offset -> operand offset" : "output -> operand", forward,
                      indent + "  ");
          if (i2o)
            maps_text(m_options.physical ? "operand offset -> output offset" : "operand -> output", backward,
                      indent + "  ");
        }
        count(forward, m_totals);
        count(backward, m_totals);
        const std::vector<analysis::Coalescing>* patterns = nullptr;
        if (m_coalescing && k < m_coalescing->size() && j < (*m_coalescing)[k].size() && !(*m_coalescing)[k][j].empty())
          patterns = &(*m_coalescing)[k][j];
        if (text && patterns) {
          for (std::size_t n = 0; n < patterns->size(); ++n) {
            std::string which = patterns->size() > 1 ? fmt::format(" (map {})", n + 1) : std::string();
            std::string line = coalescing_text((*patterns)[n]);
            line.insert(std::string_view("coalescing").size(), which);
            m_out << indent << "  " << line << "\n";
          }
        }
        if (!text) {
          j_operands.push_back(operand_json(j, name, o2i, forward, i2o, backward));
          if (patterns) {
            json list = json::array();
            for (const auto& p : *patterns) list.push_back(coalescing_json(p));
            j_operands.back()["coalescing"] = std::move(list);
          }
        }
      }
      if (!text) j_outputs.push_back(json{{"index", k}, {"operands", std::move(j_operands)}});
    }
    json j_utilisation;
    if (m_utilisation) {
      const auto& u = *m_utilisation;
      if (text) {
        m_out << fmt::format("  utilisation: writes {} element{}, {} bytes\n", u.output_elements,
                             u.output_elements == 1 ? "" : "s", u.bytes_written);
        for (const auto& op : u.operands)
          m_out << fmt::format("    operand {} %{}: {}\n", op.operand, c.instructions[operands[op.operand]].name,
                               utilisation_text(op));
      } else {
        json list = json::array();
        for (const auto& op : u.operands) {
          json o{{"index", op.operand}, {"name", std::string(c.instructions[operands[op.operand]].name)}};
          o.update(utilisation_json(op));
          list.push_back(std::move(o));
        }
        j_utilisation = json{
            {"output_elements", u.output_elements}, {"bytes_written", u.bytes_written}, {"operands", std::move(list)}};
      }
    }
    if (!text) {
      json j;
      j["name"] = std::string(i.name);
      j["opcode"] = std::string(module.opcode_text(i));
      j["shape"] = hlo::to_string(module.shape_of(i));
      if (auto kind = c.attribute(i, "kind")) j["kind"] = std::string(*kind);
      j["outputs"] = std::move(j_outputs);
      if (m_utilisation) j["utilisation"] = std::move(j_utilisation);
      json_instructions->push_back(std::move(j));
    }
  }

  const Totals& totals() const { return m_totals; }

private:
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

  void maps_text(std::string_view label, const MapSet& set, const std::string& indent) {
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

  // The maps of a set as strings; their runtime variables, replica ids and
  // (with --xla-compat, whose strings carry no marker) the positions of the
  // approximate ones go to the side lists.
  struct SideLists {
    json runtime = json::array(), replica = json::array(), approximate = json::array();
  };

  json maps_json(const MapSet& set, SideLists& side) const {
    json out = json::array();
    indexing::MapPrintOptions p;
    p.runtime_sources = false;
    p.replica_id = false;
    p.approximate_marker = !m_options.xla_compat;
    for (std::size_t n = 0; n < set.size(); ++n) {
      const IndexingMap& m = set[n];
      out.push_back(m.is_undefined() ? std::string("UNDEFINED") : indexing::print_map(m, p));
      for (std::size_t r = 0; r < m.runtime_sources().size(); ++r) {
        const auto& s = m.runtime_sources()[r];
        json v{{"map", n}, {"variable", fmt::format("rt{}", r)}, {"source", s.source}};
        if (s.operand >= 0) v["operand"] = s.operand;
        if (s.map) v["element"] = indexing::print_map(*s.map, p);
        if (s.map && s.map->is_defined() && s.map->has_replica_id()) {
          v["element_replica_id"] = indexing::print_map(s.map->replica_id_map(), p);
        }
        side.runtime.push_back(std::move(v));
      }
      if (m.is_defined() && m.has_replica_id()) {
        side.replica.push_back(json{{"map", n}, {"replica_id", indexing::print_map(m.replica_id_map(), p)}});
      }
      if (m_options.xla_compat && m.approximate()) side.approximate.push_back(n);
    }
    return out;
  }

  json operand_json(std::size_t index, std::string_view name, bool o2i, const MapSet& forward, bool i2o,
                    const MapSet& backward) const {
    json j;
    j["index"] = index;
    j["name"] = std::string(name);
    SideLists side_forward, side_backward;
    if (o2i) j["output_to_input"] = maps_json(forward, side_forward);
    if (i2o) j["input_to_output"] = maps_json(backward, side_backward);
    j["exact"] = exact(forward) && exact(backward);
    std::string reason = undefined_reason(forward);
    if (reason.empty()) reason = undefined_reason(backward);
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
    return j;
  }

  const AnalyzeOptions& m_options;
  std::ostream& m_out;
  Totals m_totals;
  const analysis::InstructionUtilisation* m_utilisation = nullptr;
  const CoalescingTable* m_coalescing = nullptr;
};

// Finds the computations and instructions named on the command line.
bool check_names(const AnalyzeOptions& options, const std::vector<hlo::Module>& modules, std::ostream& err) {
  bool ok = true;
  for (const std::string& name : options.computations) {
    bool found = std::any_of(modules.begin(), modules.end(),
                             [&](const hlo::Module& m) { return m.find_computation(name) != hlo::k_none; });
    if (!found) {
      err << fmt::format("hlo-index: error: no computation named '{}'\n", name);
      ok = false;
    }
  }
  for (const std::string& name : options.instructions) {
    bool found = false;
    for (const hlo::Module& m : modules) {
      for (const hlo::Computation& c : m.computations) {
        for (const hlo::Instruction& i : c.instructions) found = found || i.name == name;
      }
    }
    if (!found) {
      err << fmt::format("hlo-index: error: no instruction named '{}'\n", name);
      ok = false;
    }
  }
  return ok;
}

std::string strip_sigil(std::string name) { return !name.empty() && name[0] == '%' ? name.substr(1) : name; }

// --canonical-names: every module re-printed under its canonical names and parsed again.
bool rename_canonically(std::vector<hlo::Module>& modules, const parser::ParseOptions& options, std::ostream& err) {
  for (hlo::Module& module : modules) {
    parser::DiagnosticEngine diagnostics;
    std::optional<hlo::Module> renamed = parser::with_canonical_names(module, diagnostics, options);
    err << parser::render(diagnostics);
    if (!renamed) return false;
    module = std::move(*renamed);
  }
  return true;
}

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace

void setup_analyze_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand("analyze", "Indexing maps of every instruction, fusions composed through");
  cmd->footer(
      "For every instruction (by default of every computation that is not a fusion body, in program\n"
      "order) prints, per operand, the maps from the instruction's output to the operand elements it\n"
      "reads (out2in) and/or from operand elements to the output elements they feed (in2out), in\n"
      "XLA's text form. A fusion's maps are composed through its fused computation and simplified\n"
      "after every step; maps equal as integer relations are printed once. Runtime variables (rt)\n"
      "are offsets known only at run time, clamped as XLA clamps them; their source says which\n"
      "operand holds them. UNDEFINED means hlo-index has no maps for that op yet; it never stops\n"
      "the analysis. A map marked (approximate) is a superset of the exact relation. With\n"
      "--xla-compat the maps are XLA's text and the mark goes on the header line instead:\n"
      "`output -> operand (approximate):`, or `(3 maps, approximate: 1, 3)` when only some maps of\n"
      "the set are (positions from 1). An all-gather's output -> operand map is followed by\n"
      "`replica id:`, a map from the same domain to the position, within the replica group, of the\n"
      "replica whose buffer holds the element.\n"
      "With --physical every map is restated in element offsets of the buffers, through each array's\n"
      "layout (tiles included; see `hlo-index layout`): output offset -> operand offset; padding slots\n"
      "are outside the domains.\n"
      "With --expect GOLDEN the output is compared with the file instead of printed: nothing is printed\n"
      "when they are equal (exit 0), else a unified diff (exit 1); --update rewrites the file. With\n"
      "--canonical-names, names are by stem and position (see the README), so goldens survive renumbering.\n"
      "A summary line counts instructions, maps, undefined and approximate maps.\n\n"
      "Examples:\n"
      "  hlo-index analyze model.hlo\n"
      "  hlo-index analyze model.hlo --instruction fusion.3 --direction both --one-line\n"
      "  hlo-index analyze model.hlo --format json > maps.json\n"
      "  hlo-index analyze tpu.hlo --instruction fusion.3 --physical   # offsets in the tiled buffers\n"
      "  hlo-index analyze model.hlo --xla-compat     # XLA's own maps and simplification policy\n"
      "  hlo-index analyze model.hlo --canonical-names --expect model.golden   # exit 1 and a diff if it changed");
  cmd->add_option("files", options->files, "HLO text files ('-' reads standard input)")->required();
  cmd->add_option("--computation", options->computations, "Only instructions of this computation (repeatable)");
  cmd->add_option("--instruction", options->instructions, "Only this instruction (repeatable)");
  cmd->add_option("--direction", options->direction, "out2in, in2out or both")
      ->check(CLI::IsMember({"out2in", "in2out", "both"}));
  cmd->add_option("--operand", options->operand, "Only operand K of each instruction");
  cmd->add_flag("!--no-simplify", options->simplify, "Print maps as built and composed, without simplification");
  cmd->add_flag("--xla-compat", options->xla_compat,
                "Reproduce XLA's maps, simplification policy, runtime-variable sources and replica ids, for "
                "comparing with XLA's own output (XLA's over-approximations are then marked approximate on the "
                "header line; see the README for where it deliberately differs)");
  cmd->add_flag("--one-line", options->one_line, "Print each map on one line (XLA's one-line form)");
  cmd->add_flag("--utilisation", options->utilisation,
                "Per operand: elements read at least once (exact), reads in total, read multiplicity, bytes, and "
                "the distinct maps it is read through; per module a summary");
  cmd->add_flag("--coalescing", options->coalescing,
                "Per operand: how consecutive threads' reads line up (coalesced, broadcast, strided N, irregular) "
                "and the share of a 32-thread group's reads in one 128-byte segment (thread model: README)");
  cmd->add_flag("--physical", options->physical,
                "Maps between element offsets in the buffers (output offset -> operand offset), through the "
                "layouts and their tiles");
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--isl-max-operations", options->isl_max_operations,
                  "Budget of one isl computation in isl operations (default 2000000); when it runs out the "
                  "answer is a sound over-approximation marked approximate");
  cmd->add_flag("--allow-truncated", options->allow_truncated,
                "Accept a dump cut off inside its last computation (a warning instead of an error)");
  cmd->add_option("--expect", options->expect,
                  "Compare the output with the golden file GOLDEN: nothing is printed when they are equal "
                  "(exit 0), else a unified diff from GOLDEN to the output (exit 1)")
      ->type_name("GOLDEN");
  cmd->add_flag("--update", options->update, "With --expect: write the output to GOLDEN instead (created if missing)");
  cmd->add_flag("--canonical-names", options->canonical_names,
                "Rename computations and instructions by name stem and position (fusion.123, fusion.7 -> fusion, "
                "fusion.1; metadata and backend_config ignored), so goldens survive renumbering; --computation and "
                "--instruction then take the new names");
  cmd->callback([options, &exit_code] { exit_code = run_analyze_command(*options, std::cout, std::cerr); });
}

int run_analyze_command(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  if (options.update && options.expect.empty()) {
    err << "hlo-index: error: --update needs --expect GOLDEN\n";
    return k_exit_input_error;
  }
  if (options.expect.empty()) return analyze(options, out, err);
  std::ostringstream actual;
  const int code = analyze(options, actual, err);
  return code != k_exit_ok ? code : check_golden_file(options.expect, actual.str(), options.update, out, err);
}

namespace {

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  ScopedIslLimit limit(options.isl_max_operations);
  AnalyzeOptions opts = options;
  for (std::string& n : opts.computations) n = strip_sigil(n);
  for (std::string& n : opts.instructions) n = strip_sigil(n);
  std::optional<std::vector<hlo::Module>> loaded = analysis::load_modules(opts.files, opts.allow_truncated, err);
  if (!loaded) return k_exit_input_error;
  std::vector<hlo::Module>& modules = *loaded;
  if (opts.canonical_names && !rename_canonically(modules, {opts.allow_truncated}, err)) return k_exit_internal_error;
  if (!check_names(opts, modules, err)) return k_exit_input_error;

  indexing::AnalysisOptions analysis_options;
  analysis_options.style = opts.xla_compat ? indexing::MapStyle::kXla : indexing::MapStyle::kExact;
  analysis_options.simplify = opts.simplify;
  const bool o2i = opts.direction != "in2out", i2o = opts.direction != "out2in";
  const bool text = opts.format == "text";
  Report report(opts, out);
  json j_modules = json::array();
  for (const hlo::Module& module : modules) {
    analysis::ModuleAnalysis analysis(module, analysis_options);
    UtilisationSummary summary;
    const std::vector<bool> fused = analysis::fusion_bodies(module);
    json j_computations = json::array();
    for (std::uint32_t ci = 0; ci < module.computations.size(); ++ci) {
      const hlo::Computation& c = module.computations[ci];
      if (opts.computations.empty()
              ? fused[ci]
              : std::find(opts.computations.begin(), opts.computations.end(), c.name) == opts.computations.end()) {
        continue;
      }
      json j_instructions = json::array();
      bool printed_header = false;
      for (std::uint32_t ii = 0; ii < c.instructions.size(); ++ii) {
        const hlo::Instruction& instr = c.instructions[ii];
        if (!opts.instructions.empty() &&
            std::find(opts.instructions.begin(), opts.instructions.end(), instr.name) == opts.instructions.end()) {
          continue;
        }
        if (text && !printed_header) {
          out << fmt::format("computation {}{}\n", c.name, c.is_entry ? " (entry)" : "");
          printed_header = true;
        }
        const bool counts = opts.utilisation || opts.coalescing;  // both need the output -> operand maps
        indexing::InstructionIndexing result = analysis.indexing(ci, ii, o2i || counts, i2o);
        std::optional<analysis::InstructionUtilisation> used;
        if (opts.utilisation) {
          used = analysis::utilisation(module, c, instr, result);
          summary.add(*used);
        }
        CoalescingTable patterns;
        if (opts.coalescing)
          patterns = analysis::read_patterns(module, c, instr, result, analysis.offsets(), analysis.patterns());
        if (!o2i) result.output_to_input.clear();
        if (opts.physical) result = analysis.physical().apply(c, instr, std::move(result));
        report.set_extras(used ? &*used : nullptr, opts.coalescing ? &patterns : nullptr);
        report.instruction(module, c, instr, result, text ? nullptr : &j_instructions);
      }
      if (!text && !j_instructions.empty()) {
        j_computations.push_back(json{{"name", std::string(c.name)}, {"instructions", std::move(j_instructions)}});
      }
    }
    if (text && opts.utilisation) out << summary.text(module.name);
    if (!text) {
      json j_module{{"name", std::string(module.name)}, {"computations", std::move(j_computations)}};
      if (opts.utilisation) j_module["utilisation_summary"] = summary.json();
      j_modules.push_back(std::move(j_module));
    }
  }
  const Totals& t = report.totals();
  if (text) {
    out << fmt::format("analysed {} instruction{}: {} map{}, {} undefined, {} approximate\n", t.instructions,
                       t.instructions == 1 ? "" : "s", t.maps, t.maps == 1 ? "" : "s", t.undefined, t.approximate);
  } else {
    json summary{
        {"instructions", t.instructions}, {"maps", t.maps}, {"undefined", t.undefined}, {"approximate", t.approximate}};
    json document{{"modules", std::move(j_modules)}, {"summary", std::move(summary)}};
    if (opts.physical) document["offsets"] = "physical";
    out << document.dump(2) << "\n";
  }
  return k_exit_ok;
}

}  // namespace

}  // namespace hlo_index::app

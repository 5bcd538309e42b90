#include "app/parse_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <vector>

#include "app/exit_codes.hpp"
#include "indexing/analysis/module_input.hpp"
#include "parser/print.hpp"

namespace hlo_index::app {
namespace {

struct ModuleStats {
  std::string file;  // the file the module was read from (a directory argument: the file in it)
  std::string name;
  std::size_t computations = 0, instructions = 0, fusions = 0;
  std::map<std::string_view, std::size_t> fusion_kinds;  // kLoop -> n; views into the module's text
  std::map<std::string_view, std::size_t> opcodes;       // sorted: deterministic output
};

ModuleStats stats_of(const hlo::Module& module) {
  ModuleStats s;
  s.name = std::string(module.name);
  s.computations = module.computations.size();
  // Counted by opcode number, named once at the end: a lookup by name per instruction
  // would cost more than the rest of the statistics together.
  std::array<std::size_t, static_cast<std::size_t>(hlo::Opcode::kUnknown)> known{};
  std::vector<std::size_t> unknown(module.unknown_opcodes.size());
  for (const hlo::Computation& c : module.computations) {
    s.instructions += c.instructions.size();
    for (const hlo::Instruction& i : c.instructions) {
      if (i.opcode == hlo::Opcode::kUnknown)
        ++unknown[i.unknown_opcode];
      else
        ++known[static_cast<std::size_t>(i.opcode)];
      if (i.opcode != hlo::Opcode::kFusion) continue;
      ++s.fusions;
      ++s.fusion_kinds[c.attribute(i, "kind").value_or("(none)")];
    }
  }
  for (std::size_t op = 0; op < known.size(); ++op)
    if (known[op] != 0) s.opcodes[hlo::opcode_name(static_cast<hlo::Opcode>(op))] += known[op];
  for (std::size_t k = 0; k < unknown.size(); ++k)
    if (unknown[k] != 0) s.opcodes[module.unknown_opcodes[k]] += unknown[k];
  return s;
}

void print_text(std::ostream& out, const ModuleStats& s) {
  out << fmt::format("{}: module {}: {} computations, {} instructions, {} fusions\n", s.file, s.name, s.computations,
                     s.instructions, s.fusions);
  for (const auto& [kind, n] : s.fusion_kinds) out << fmt::format("  fusion {}: {}\n", kind, n);
  for (const auto& [op, n] : s.opcodes) out << fmt::format("  {:<28} {}\n", op, n);
}

nlohmann::ordered_json to_json(const ModuleStats& s) {
  nlohmann::ordered_json j;
  j["name"] = s.name;
  j["computations"] = s.computations;
  j["instructions"] = s.instructions;
  j["fusions"] = s.fusions;
  auto as_object = [](const std::map<std::string_view, std::size_t>& counts) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& [key, n] : counts) o[std::string(key)] = n;
    return o;
  };
  j["fusion_kinds"] = as_object(s.fusion_kinds);
  j["opcodes"] = as_object(s.opcodes);
  return j;
}

}  // namespace

void setup_parse_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ParseOptions>();
  CLI::App* cmd = app.add_subcommand("parse", "Parse HLO text and report what the modules contain");
  cmd->footer(
      "Reports, per module, the number of computations, instructions and fusions (by kind) and a\n"
      "histogram of opcodes. A file may hold several modules (separated by '// -----' lines or wrapped\n"
      "in '## BEGIN_GRAPH'/'## END_GRAPH' as PyTorch/XLA logs do). Errors are printed as\n"
      "FILE:LINE:COL: error: ... with the source line and a caret; the exit code is then 2.\n\n"
      "Examples:\n"
      "  hlo-index parse model.hlo\n"
      "  hlo-index parse a.hlo b.hlo --format json\n"
      "  cat model.hlo | hlo-index parse - --print     # canonical re-print of the module");
  cmd->add_option("files", options->files,
                  "HLO text files ('-' reads standard input) or directories (their .hlo, .txt and .hlotxt files, at "
                  "any depth, in sorted order)")
      ->required();
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--print", options->print,
                "Re-print each module in canonical form (stable formatting, comments dropped) instead of statistics");
  cmd->add_flag("--allow-truncated", options->allow_truncated,
                "Accept a dump cut off inside its last computation (a warning instead of an error)");
  cmd->callback([options, &exit_code] { exit_code = run_parse_command(*options, std::cout, std::cerr); });
}

namespace {

// What one file argument gave: each module's statistics (or its canonical print with
// --print), taken as the module is parsed. The module itself is not kept: memory holds one
// module at a time, which on a dump of many modules also saves the kernel zeroing fresh pages
// for each of them (a third of the time of `hlo-index parse` when all were kept).
struct FileResult {
  std::vector<ModuleStats> modules;
  std::vector<std::string> printed;  // --print
  std::set<std::string> sources;     // the distinct files the modules come from
  // Their text, which the statistics' names point into, kept when the modules are not.
  std::vector<parser::SourceFilePtr> texts;
  std::size_t errors = 0;
};

FileResult read_file(const std::string& file, const ParseOptions& options, std::ostream& err) {
  FileResult result;
  result.errors = analysis::stream_file(file, options.allow_truncated, err, [&](hlo::Module&& module) {
    if (module.source && (result.texts.empty() || result.texts.back() != module.source)) {
      result.sources.insert(module.source->name());
      result.texts.push_back(module.source);
    }
    if (options.print) result.printed.push_back(parser::print_module(module));
    ModuleStats s = stats_of(module);
    s.file = module.source ? module.source->name() : file;
    result.modules.push_back(std::move(s));
  });
  return result;
}

}  // namespace

int run_parse_command(const ParseOptions& options, std::ostream& out, std::ostream& err) {
  std::size_t modules = 0, instructions = 0, failed_files = 0, printed = 0, files_read = 0;
  nlohmann::ordered_json json_files = nlohmann::ordered_json::array();
  for (const std::string& file : options.files) {
    // Diagnostics go to `err` once the file is parsed, before any of its output, as before.
    const FileResult result = read_file(file, options, err);
    if (result.errors != 0) ++failed_files;
    files_read += std::max<std::size_t>(1, result.sources.size());  // a directory: the files in it
    nlohmann::ordered_json json_modules = nlohmann::ordered_json::array();
    for (const std::string& text : result.printed) out << (printed++ ? "\n// -----\n\n" : "") << text;
    for (const ModuleStats& s : result.modules) {
      ++modules;
      instructions += s.instructions;
      if (options.print) continue;
      if (options.format == "json")
        json_modules.push_back(to_json(s));
      else
        print_text(out, s);
    }
    if (options.format == "json" && !options.print)
      json_files.push_back({{"file", file}, {"errors", result.errors}, {"modules", json_modules}});
  }
  if (options.format == "json" && !options.print) {
    out << nlohmann::ordered_json{{"files", json_files}}.dump(2) << "\n";
  } else if (!options.print) {
    out << fmt::format("parsed {} file{}: {} module{}, {} instructions, {} file{} with errors\n", files_read,
                       files_read == 1 ? "" : "s", modules, modules == 1 ? "" : "s", instructions, failed_files,
                       failed_files == 1 ? "" : "s");
  }
  return failed_files ? k_exit_input_error : k_exit_ok;
}

}  // namespace hlo_index::app

#include "indexing/analysis/module_input.hpp"

#include <ostream>

#include "parser/parse.hpp"

namespace hlo_index::analysis {

LoadedFile load_file(const std::string& path, bool allow_truncated, std::ostream& err) {
  parser::DiagnosticEngine diagnostics;
  LoadedFile loaded;
  auto source = parser::read_source(path, diagnostics);
  if (source) loaded.modules = parser::parse_hlo(source, diagnostics, {allow_truncated});
  err << parser::render(diagnostics);
  loaded.errors = diagnostics.error_count();
  return loaded;
}

std::optional<std::vector<hlo::Module>> load_modules(const std::vector<std::string>& paths, bool allow_truncated,
                                                     std::ostream& err) {
  std::vector<hlo::Module> modules;
  bool errors = false;
  for (const std::string& path : paths) {
    LoadedFile loaded = load_file(path, allow_truncated, err);
    for (hlo::Module& m : loaded.modules) modules.push_back(std::move(m));
    errors = errors || loaded.errors != 0;
  }
  if (errors) return std::nullopt;
  return modules;
}

}  // namespace hlo_index::analysis

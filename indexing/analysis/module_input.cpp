#include "indexing/analysis/module_input.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <system_error>

#include "indexing/analysis/computation_walk.hpp"
#include "layout/layout_checks.hpp"
#include "parser/parse.hpp"

namespace hlo_index::analysis {
namespace {

namespace fs = std::filesystem;

bool is_hlo_text_name(const fs::path& path) {
  const fs::path extension = path.extension();
  return extension == ".hlo" || extension == ".txt" || extension == ".hlotxt";
}

// The HLO text files under `dir` and its subdirectories, sorted so that output
// does not depend on the file system's order. Problems go to `diagnostics`.
std::vector<std::string> hlo_files_under(const std::string& dir, parser::DiagnosticEngine& diagnostics) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && is_hlo_text_name(it->path())) files.push_back(it->path().string());
  }
  if (ec) diagnostics.error(dir, "cannot read directory: " + ec.message());
  std::sort(files.begin(), files.end());
  if (files.empty() && !diagnostics.has_errors())
    diagnostics.error(dir, "directory holds no .hlo, .txt or .hlotxt file");
  return files;
}

// Whether a file met in a directory holds HLO text at all: dumps sit beside manifests, logs and
// notes that share the .txt extension.
bool looks_like_hlo(std::string_view text) {
  return text.find("HloModule") != std::string_view::npos || text.find("ENTRY") != std::string_view::npos;
}

// The computations of a truncated module that no present caller reaches, said once when it is read.
void note_cut_off(const hlo::Module& module, std::ostream& err) {
  const std::size_t cut = cut_off_computations(module).size();
  if (cut == 0) return;
  err << "note: module '" << module.name << "' is cut off" << (module.entry_declared ? "" : " before its ENTRY") << ": "
      << cut << " of its " << module.computations.size()
      << " computations are reached only by callers the input lacks, so no one can tell fusion bodies from "
         "loop or call bodies among them; they are left out (analyze --computation NAME analyses one on "
         "its own)\n";
}

std::size_t stream_one_file(const std::string& path, bool allow_truncated, std::ostream& err,
                            const parser::ModuleSink& use, bool in_directory = false) {
  parser::DiagnosticEngine diagnostics;
  auto source = parser::read_source(path, diagnostics);
  if (source && in_directory && !looks_like_hlo(source->text())) {
    err << "note: " << path << " skipped: not HLO text (no HloModule or ENTRY in it)\n";
    return 0;
  }
  auto noting = [&](hlo::Module&& m) {
    // The verifier's rules on physical layouts (the parser checks the rest).
    const std::vector<layout::LayoutProblem> problems = layout::check_layouts(m);
    for (const layout::LayoutProblem& p : problems) diagnostics.error_at(*source, p.where, p.message);
    if (!problems.empty()) return;
    if (m.truncated) note_cut_off(m, err);
    use(std::move(m));
  };
  if (source) parser::parse_hlo_each(source, diagnostics, {allow_truncated}, noting);
  err << parser::render(diagnostics);
  return diagnostics.error_count();
}

std::size_t stream_directory(const std::string& dir, bool allow_truncated, std::ostream& err,
                             const parser::ModuleSink& use) {
  parser::DiagnosticEngine diagnostics;
  const std::vector<std::string> files = hlo_files_under(dir, diagnostics);
  err << parser::render(diagnostics);
  std::size_t errors = diagnostics.error_count();
  for (const std::string& file : files) errors += stream_one_file(file, allow_truncated, err, use, true);
  return errors;
}

}  // namespace

std::size_t stream_file(const std::string& path, bool allow_truncated, std::ostream& err,
                        const parser::ModuleSink& use) {
  std::error_code ec;
  if (path != "-" && fs::is_directory(path, ec)) return stream_directory(path, allow_truncated, err, use);
  return stream_one_file(path, allow_truncated, err, use);
}

LoadedFile load_file(const std::string& path, bool allow_truncated, std::ostream& err) {
  LoadedFile loaded;
  loaded.errors =
      stream_file(path, allow_truncated, err, [&loaded](hlo::Module&& m) { loaded.modules.push_back(std::move(m)); });
  return loaded;
}

std::optional<std::vector<hlo::Module>> load_modules(const std::vector<std::string>& paths, bool allow_truncated,
                                                     std::ostream& err, bool* some_failed) {
  std::vector<hlo::Module> modules;
  bool errors = false;
  for (const std::string& path : paths) {
    LoadedFile loaded = load_file(path, allow_truncated, err);
    for (hlo::Module& m : loaded.modules) modules.push_back(std::move(m));
    errors = errors || loaded.errors != 0;
  }
  if (errors && some_failed != nullptr && !modules.empty()) {
    *some_failed = true;
    return modules;
  }
  if (errors) return std::nullopt;
  return modules;
}

std::optional<std::vector<hlo::Module>> load_modules(const std::vector<std::string>& paths, bool allow_truncated,
                                                     const InstructionFilter& filter, std::ostream& err,
                                                     bool* some_failed) {
  std::optional<std::vector<hlo::Module>> modules = load_modules(paths, allow_truncated, err, some_failed);
  if (!modules || !check_module_names(filter, *modules, err)) return std::nullopt;
  return modules;
}

}  // namespace hlo_index::analysis

// Reading the input files of a command: each file's modules, with its
// diagnostics rendered to a stream as the file is read.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "indexing/analysis/instruction_filter.hpp"
#include "parser/hlo_module.hpp"
#include "parser/parse.hpp"

namespace hlo_index::analysis {

struct LoadedFile {
  std::vector<hlo::Module> modules;
  std::size_t errors = 0;  // diagnostics of error severity
};

/// Reads and parses one file ('-': standard input); its diagnostics go to `err`.
/// A directory stands for the .hlo, .txt and .hlotxt files under it, at any
/// depth, in sorted order (each module keeps its own file's name).
LoadedFile load_file(const std::string& path, bool allow_truncated, std::ostream& err);
/// load_file without keeping the modules: each goes to `use` as soon as it is parsed, so
/// memory holds one module at a time. The file's diagnostics go to `err` after its last
/// module (as load_file's do before it returns). Returns the number of errors.
std::size_t stream_file(const std::string& path, bool allow_truncated, std::ostream& err,
                        const parser::ModuleSink& use);
/// Every module of every file, or nullopt when some file had errors (all
/// files are read and reported either way). With `some_failed`, the modules
/// that did load are returned all the same (nullopt only when none did) and
/// *some_failed says whether a file had errors: a command goes on with the
/// rest and exits 2 at the end. In a directory, files that hold no HLO text
/// are skipped with a note.
std::optional<std::vector<hlo::Module>> load_modules(const std::vector<std::string>& paths, bool allow_truncated,
                                                     std::ostream& err, bool* some_failed = nullptr);
/// The same, and nullopt also when a `--module` name of `filter` names none
/// of the modules (reported to `err` with the modules there are).
std::optional<std::vector<hlo::Module>> load_modules(const std::vector<std::string>& paths, bool allow_truncated,
                                                     const InstructionFilter& filter, std::ostream& err,
                                                     bool* some_failed = nullptr);

}  // namespace hlo_index::analysis

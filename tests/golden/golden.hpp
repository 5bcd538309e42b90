// Helpers for golden tests: files next to their expected output, and --update.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace hlo_index::golden {

/// Set by `--update` on the test binary's command line: rewrite expectations.
extern bool g_update;

std::string read_file(const std::filesystem::path& path);
/// The files under `dir` (recursively) whose extension is `extension`, sorted.
std::vector<std::filesystem::path> files_with_extension(const std::filesystem::path& dir, const std::string& extension);
/// Compares `actual` with the file `expected_path`; with --update, rewrites it instead.
/// Returns an empty string when they match, else a short report of the first difference.
std::string compare_or_update(const std::filesystem::path& expected_path, const std::string& actual);

/// A command's run as a golden file holds it: stdout, then stderr with `dir/`
/// removed from paths (they differ between checkouts), then `exit: N`.
std::string command_output(const std::string& out, std::string err, int exit_code, const std::filesystem::path& dir);

}  // namespace hlo_index::golden

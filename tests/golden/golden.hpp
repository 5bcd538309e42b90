// Helpers for golden tests: files next to their expected output, and --update.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <sstream>
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

/// `text` with every `from` replaced by `to`.
std::string replace_all(std::string text, const std::string& from, const std::string& to);

struct CommandRun {
  std::string out, err;
  int code = -1;
};

/// Parses `arguments` with a command's own options (`add_options(cli,
/// options)`), as `hlo-index NAME ARGUMENTS` would, and runs it with
/// `run(options, out, err)`. A bad command line gives CLI11's message and
/// exit 2 (0 for --help), as the binary does.
template <class Options, class AddOptions, class RunCommand>
CommandRun run_command(const std::string& name, const std::string& arguments, AddOptions add_options, RunCommand run) {
  Options options;
  // Goldens pin what the analysis answers, not how fast the machine is: no wall-clock limit
  // unless the arguments give one (the default 5 s is within reach of an ASan build on a loaded
  // CI machine, and past it the answer changes).
  if constexpr (requires { options.time_limit_per_instruction; }) options.time_limit_per_instruction = 0;
  CLI::App cli{name};
  add_options(cli, options);
  std::ostringstream out, err;
  CommandRun result;
  try {
    cli.parse(arguments, false);
    result.code = run(options, out, err);
  } catch (const CLI::ParseError& e) {
    result.code = cli.exit(e, out, err) == 0 ? 0 : 2;
  }
  result.out = out.str();
  result.err = err.str();
  return result;
}

}  // namespace hlo_index::golden

// hlo-index: a standalone analyzer of XLA HLO text. main() only wires up the
// subcommands; each lives in its own *_command.cpp.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "app/analyze_command.hpp"
#include "app/devices_command.hpp"
#include "app/diff_command.hpp"
#include "app/exit_codes.hpp"
#include "app/layout_command.hpp"
#include "app/lint_command.hpp"
#include "app/map_command.hpp"
#include "app/parse_command.hpp"
#include "app/picture_command.hpp"
#include "app/report_command.hpp"
#include "app/summary_command.hpp"
#include "app/tile_command.hpp"
#include "app/version.hpp"

// The codes k_exit_codes_help promises for lint and diff (analyze --expect: k_exit_golden_differs,
// app/golden_file.hpp, whose DiffOptions cannot share a file with diff_command.hpp's).
static_assert(hlo_index::app::k_exit_lint_findings == hlo_index::app::k_exit_findings);
static_assert(hlo_index::app::k_exit_regression == hlo_index::app::k_exit_findings);

int main(int argc, char** argv) {
  using namespace hlo_index::app;
  CLI::App app{"hlo-index: exact indexing analysis of XLA HLO text dumps", "hlo-index"};
  app.footer(std::string("Run 'hlo-index SUBCOMMAND --help' for the options of a subcommand.\n") + k_exit_codes_help);
  app.set_version_flag("-V,--version", version_text(), "Print the version and the git commit it was built from");
  app.require_subcommand(1);
  int exit_code = k_exit_ok;
  setup_parse_command(app, exit_code);
  setup_map_command(app, exit_code);
  setup_analyze_command(app, exit_code);
  setup_layout_command(app, exit_code);
  setup_lint_command(app, exit_code);
  setup_summary_command(app, exit_code);
  setup_diff_command(app, exit_code);
  setup_picture_command(app, exit_code);
  setup_report_command(app, exit_code);
  setup_tile_command(app, exit_code);
  setup_devices_command(app, exit_code);
  // Every subcommand's --help ends with the same exit codes as the top-level one.
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    command->footer(command->get_footer() + "\n\n" + k_exit_codes_help);
    // A repeatable option takes one value per occurrence, so that `--module NAME FILE` leaves FILE
    // to the positional files (`--module A --module B` repeats it).
    for (CLI::Option* option : command->get_options()) {
      if (option->get_positional() || option->get_items_expected_max() <= 1) continue;
      option->expected(1);
      option->allow_extra_args(false);
      option->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? k_exit_ok : k_exit_input_error;
  } catch (const std::exception& e) {
    std::cerr << "hlo-index: internal error: " << e.what() << "\n";
    return k_exit_internal_error;
  }
  return exit_code;
}

// `hlo-index map simplify|compose|inverse|count|equal MAP...`: the indexing
// map engine on maps given as text.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace hlo_index::app {

struct MapOptions {
  std::string operation;          // simplify | compose | inverse | count | equal
  std::vector<std::string> maps;  // map texts; empty or "-": standard input
  std::string format = "text";    // text | json
  bool multi_line = false;
  bool simplify = true;                  // compose, inverse: simplify the result
  bool verify = false;                   // check every simplification with isl
  unsigned long isl_max_operations = 0;  // 0: the default budget
  double time_limit = 0;                 // seconds for the operation; 0: no limit (the isl budget bounds it)
};

void setup_map_command(CLI::App& app, int& exit_code);
/// Runs the command; returns the exit code. `in` is read when maps come from
/// standard input.
int run_map_command(const MapOptions& options, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace hlo_index::app

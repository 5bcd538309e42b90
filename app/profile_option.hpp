// `--profile TRACE`, as summary, report and analyze take it: a profiler's
// trace whose measured times are shown beside the estimates.
#pragma once

#include <CLI/CLI.hpp>
#include <iosfwd>
#include <optional>
#include <string>

#include "indexing/cost/profile.hpp"

namespace hlo_index::app {

/// Adds `--profile TRACE`, storing into `path`; `what_it_adds` ends its help.
void add_profile_option(CLI::App& cmd, std::string& path, const std::string& what_it_adds);
/// Reads the trace at `path` (none when empty) into `profile`; false, with
/// `path: error: ...` on `err`, when it cannot be read.
bool read_profile_option(const std::string& path, std::optional<cost::Profile>& profile, std::ostream& err);

}  // namespace hlo_index::app

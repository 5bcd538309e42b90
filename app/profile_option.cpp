#include "app/profile_option.hpp"

#include <fmt/format.h>

#include <ostream>

namespace hlo_index::app {

void add_profile_option(CLI::App& cmd, std::string& path, const std::string& what_it_adds) {
  cmd.add_option("--profile", path,
                 "A profiler's trace of the module's runs (Chrome trace event JSON as JAX, TensorFlow and xprof "
                 "write it, plain or .gz): " +
                     what_it_adds)
      ->type_name("TRACE");
}

bool read_profile_option(const std::string& path, std::optional<cost::Profile>& profile, std::ostream& err) {
  if (path.empty()) return true;
  try {
    profile = cost::read_profile(path);
  } catch (const cost::ProfileError& e) {
    err << fmt::format("{}: error: {}\n", path, e.what());
    return false;
  }
  return true;
}

}  // namespace hlo_index::app

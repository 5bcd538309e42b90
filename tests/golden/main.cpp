// Golden test runner: Catch2 with one extra flag, --update, that rewrites the
// expected files from the actual output (review the git diff afterwards).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "golden.hpp"

int main(int argc, char* argv[]) {
  Catch::Session session;
  using namespace Catch::clara;
  auto cli = session.cli() | Opt(hlo_index::golden::g_update)["--update"]("rewrite expected outputs");
  session.cli(cli);
  if (int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  return session.run();
}

// What `hlo-index --version` prints.
#pragma once

namespace hlo_index::app {

/// `hlo-index 0.1.0 (1a2b3c4)`: the project version and the git commit the
/// binary was built from, `1a2b3c4-dirty` when tracked files had uncommitted
/// changes, `unknown` outside a git checkout. Defined in a file that
/// cmake/GitCommit.cmake writes at every build (app/CMakeLists.txt).
const char* version_text();

}  // namespace hlo_index::app

# The version text of `hlo-index --version`, run as a script (cmake -P) at every build by
# app/CMakeLists.txt and once at configure time:
#   cmake -DSOURCE_DIR=DIR -DVERSION=X.Y.Z -DOUTPUT=FILE -P cmake/GitCommit.cmake
# writes FILE, a C++ source defining hlo_index::app::version_text() (app/version.hpp):
# `hlo-index X.Y.Z (COMMIT)`, where COMMIT is the short hash of DIR's HEAD, with `-dirty` when a
# tracked file has uncommitted changes, or `unknown` when DIR is not the top of a git checkout
# (a source tarball, a copy inside another repository) or git is missing. FILE is rewritten only
# when its text changes, so a build at the same commit compiles nothing.
foreach(variable SOURCE_DIR VERSION OUTPUT)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "GitCommit.cmake: -D${variable}=... is required")
  endif()
endforeach()

set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --show-toplevel --short HEAD
                  WORKING_DIRECTORY "${SOURCE_DIR}"
                  RESULT_VARIABLE status OUTPUT_VARIABLE lines ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(status EQUAL 0)
    string(REPLACE "\n" ";" lines "${lines}")
    list(LENGTH lines count)
    if(count EQUAL 2)
      list(GET lines 0 top)
      list(GET lines 1 hash)
      file(REAL_PATH "${top}" top)
      file(REAL_PATH "${SOURCE_DIR}" source)
      if(top STREQUAL source)
        set(commit "${hash}")
        execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
                        WORKING_DIRECTORY "${SOURCE_DIR}"
                        RESULT_VARIABLE status OUTPUT_VARIABLE changes ERROR_QUIET)
        if(NOT status EQUAL 0 OR NOT changes STREQUAL "")
          string(APPEND commit "-dirty")
        endif()
      endif()
    endif()
  endif()
endif()

set(text "// Written by cmake/GitCommit.cmake at build time: do not edit.
#include \"app/version.hpp\"

namespace hlo_index::app {

const char* version_text() { return \"hlo-index ${VERSION} (${commit})\"; }

}  // namespace hlo_index::app
")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old_text)
else()
  set(old_text "")
endif()
if(NOT old_text STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()

# hlo_index_settings: the one INTERFACE target every hlo-index target links.
# It carries the warning set, -Werror and the sanitizer switch.
add_library(hlo_index_settings INTERFACE)
target_compile_options(hlo_index_settings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
  -Wcast-align -Wextra-semi -Wlogical-op)
if(HLO_INDEX_WERROR)
  target_compile_options(hlo_index_settings INTERFACE -Werror)
endif()
if(HLO_INDEX_UNITY)
  # In a batch every source is an included file, and GCC then warns about a class whose
  # member has a type from that file's anonymous namespace: legal, and not a problem in
  # a .cpp file, which is the only place such a type is visible.
  target_compile_options(hlo_index_settings INTERFACE -Wno-subobject-linkage)
endif()
if(HLO_INDEX_SANITIZE)
  # The optimisation level is the build type's: scripts/test.sh builds at -O0 -g1,
  # where the sanitizers add least to the compile time.
  target_compile_options(hlo_index_settings INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
    # GCC 12 reports false maybe-uninitialized warnings in libstdc++'s <regex> (used by
    # Catch2) when ASan instruments it; the Release build keeps the warning.
    -Wno-maybe-uninitialized)
  target_link_options(hlo_index_settings INTERFACE -fsanitize=address,undefined)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  target_compile_definitions(hlo_index_settings INTERFACE _GLIBCXX_ASSERTIONS)
endif()

# All third-party code comes from Debian packages (scripts/setup.sh installs them).
# Their include directories are marked SYSTEM by the imported targets, so their
# warnings never fail our -Werror build.
find_package(Boost 1.74 REQUIRED)                 # libboost-dev: Spirit X3 (header-only)
find_package(fmt REQUIRED)                        # libfmt-dev
find_package(CLI11 REQUIRED)                      # libcli11-dev
find_package(nlohmann_json 3.10 REQUIRED)         # nlohmann-json3-dev
find_package(ZLIB REQUIRED)                       # zlib1g-dev: gzip trace files (--profile)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ISL REQUIRED IMPORTED_TARGET isl)  # libisl-dev (+ libgmp-dev)

# The allocator of the executables users run (hlo-index and the benchmarks): jemalloc
# (libjemalloc-dev) by default. Composing maps allocates small expression nodes by the
# million, and glibc's malloc spends ~15% of torax's analysis on them (2.0 s -> 1.7 s with
# jemalloc); no arena of our own would be simpler. Sanitizer and fuzz builds keep the system
# allocator, whose malloc the sanitizers replace.
set(HLO_INDEX_ALLOCATOR "jemalloc" CACHE STRING "Allocator linked into the executables: jemalloc or system")
set_property(CACHE HLO_INDEX_ALLOCATOR PROPERTY STRINGS jemalloc system)
add_library(hlo_index_allocator INTERFACE)
if(HLO_INDEX_ALLOCATOR STREQUAL "jemalloc" AND NOT HLO_INDEX_SANITIZE AND NOT HLO_INDEX_FUZZ)
  pkg_check_modules(JEMALLOC REQUIRED IMPORTED_TARGET jemalloc)
  target_link_libraries(hlo_index_allocator INTERFACE PkgConfig::JEMALLOC)
  message(STATUS "hlo-index: executables use jemalloc")
else()
  message(STATUS "hlo-index: executables use the system allocator")
endif()

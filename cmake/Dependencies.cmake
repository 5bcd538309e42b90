# All third-party code comes from Debian packages (scripts/setup.sh installs them).
# Their include directories are marked SYSTEM by the imported targets, so their
# warnings never fail our -Werror build.
find_package(Boost 1.74 REQUIRED)                 # libboost-dev: Spirit X3 (header-only)
find_package(fmt REQUIRED)                        # libfmt-dev
find_package(CLI11 REQUIRED)                      # libcli11-dev
find_package(nlohmann_json 3.10 REQUIRED)         # nlohmann-json3-dev
find_package(PkgConfig REQUIRED)
pkg_check_modules(ISL REQUIRED IMPORTED_TARGET isl)  # libisl-dev (+ libgmp-dev)

#!/usr/bin/env bash
# Configures and builds hlo-index (Release) into build/release, with Ninja:
# unlike Make, it compiles a library's sources while the libraries it links
# are still being built, which keeps both cores of a small machine busy.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure_dir.sh
configure_dir build/release -DCMAKE_BUILD_TYPE=Release
cmake --build build/release -j"$(nproc)"

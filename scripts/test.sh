#!/usr/bin/env bash
# Builds hlo-index and runs the whole test suite: the formatting check, a
# Release build and its tests, clang-tidy on the code (unless
# HLO_INDEX_SKIP_TIDY=1), then (unless HLO_INDEX_SKIP_SANITIZE=1) the same tests
# built with AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
start=$(date +%s)
bash scripts/check_format.sh
bash scripts/build.sh
ctest --test-dir build/release --output-on-failure -j"$jobs"
echo "test.sh: release build and tests took $(( $(date +%s) - start )) s"
if [ "${HLO_INDEX_SKIP_TIDY:-0}" != 1 ]; then
  bash scripts/tidy.sh build/release
  echo "test.sh: clang-tidy done at $(( $(date +%s) - start )) s"
fi
if [ "${HLO_INDEX_SKIP_SANITIZE:-0}" != 1 ]; then
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DHLO_INDEX_SANITIZE=ON >/dev/null
  cmake --build build/sanitize -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/sanitize --output-on-failure -j"$jobs"
  echo "test.sh: everything took $(( $(date +%s) - start )) s"
fi

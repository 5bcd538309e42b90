#!/usr/bin/env bash
# Builds hlo-index and runs the whole test suite: the formatting check, a
# Release build and its tests, clang-tidy on the code (unless
# HLO_INDEX_SKIP_TIDY=1), then (unless HLO_INDEX_SKIP_SANITIZE=1) the same tests
# built with AddressSanitizer and UndefinedBehaviorSanitizer. Prints the time
# each stage took (docs/building.md has the figures on a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/configure_dir.sh
jobs=$(nproc)
start=$(date +%s)
stage=$start
lap() {
  local now
  now=$(date +%s)
  echo "test.sh: $1 took $((now - stage)) s ($((now - start)) s in all)"
  stage=$now
}
bash scripts/check_format.sh
bash scripts/build.sh
lap "the Release build"
ctest --test-dir build/release --output-on-failure -j"$jobs"
lap "ctest (Release)"
if [ "${HLO_INDEX_SKIP_TIDY:-0}" != 1 ]; then
  bash scripts/tidy.sh build/release
  lap "clang-tidy"
fi
if [ "${HLO_INDEX_SKIP_SANITIZE:-0}" != 1 ]; then
  # -O0 -g1: the sanitizers' instrumentation costs least to compile unoptimised,
  # and -g1 is enough for file:line in their reports. The benchmarks are not
  # tests: left out.
  configure_dir build/sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
    -DHLO_INDEX_SANITIZE=ON -DHLO_INDEX_BUILD_BENCH=OFF
  cmake --build build/sanitize -j"$jobs"
  lap "the sanitizer build"
  skip=$(grep -v '^#' tests/sanitizer_skip.txt | paste -sd'|')
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/sanitize --output-on-failure -j"$jobs" -E "$skip"
  lap "ctest (ASan, UBSan)"
fi

#!/usr/bin/env bash
# Installs what hlo-index needs to build and test, from Debian packages only.
# Idempotent and quiet: when everything is installed it prints nothing.
set -euo pipefail
# What building and running need; with --test, also what scripts/test.sh runs:
# clang-format-14 (scripts/check_format.sh), clang-tidy-14 (scripts/tidy.sh), chromium (the
# test that loads `hlo-index report`'s page in a headless browser). ninja-build: the build
# scripts use Ninja, which keeps both cores of a small machine busy where Make waits for each
# library before compiling the next.
packages=(cmake ninja-build g++ pkg-config libisl-dev libgmp-dev libcli11-dev libfmt-dev libboost-dev
          catch2 nlohmann-json3-dev zlib1g-dev libjemalloc-dev python3)
if [ "${1:-}" = --test ]; then
  packages+=(clang-format-14 clang-tidy-14 chromium)
elif [ $# -gt 0 ]; then
  echo "usage: bash scripts/setup.sh [--test]" >&2
  exit 2
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

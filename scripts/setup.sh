#!/usr/bin/env bash
# Installs what hlo-index needs to build and test, from Debian packages only.
# Idempotent and quiet: when everything is installed it prints nothing.
set -euo pipefail
# clang-format-14 for scripts/check_format.sh, clang-tidy-14 for scripts/tidy.sh, chromium for the
# test that loads `hlo-index report`'s page in a headless browser.
packages=(cmake make g++ pkg-config libisl-dev libgmp-dev libcli11-dev libfmt-dev libboost-dev
          catch2 nlohmann-json3-dev zlib1g-dev libjemalloc-dev clang-format-14 python3 clang-tidy-14 chromium)
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

#!/usr/bin/env bash
# Runs clang-tidy-14 with the checks of .clang-tidy over the code BUILD_DIR
# compiles, two translation units at a time, using its compile_commands.json
# (configure first). With the unity build (HLO_INDEX_UNITY, the default) a
# translation unit is a batch of up to 16 source files, so the library headers
# are parsed and matched once per batch: findings in the batch's files are
# reported as in headers, which --header-filter admits for the repository's own
# folders. Prints the findings and a count per check; exits 1 on any finding.
#   scripts/tidy.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
if [ ! -f "$build/compile_commands.json" ]; then
  echo "tidy: no $build/compile_commands.json; configure with cmake first" >&2
  exit 2
fi
root=$(pwd -P)
# The translation units: the unity batches and the sources compiled on their
# own, minus files CMake generates (the --version stamp).
mapfile -t units < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, os, sys
root = sys.argv[2]
seen = set()
for entry in json.load(open(sys.argv[1])):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path in seen or "/generated/" in path:
        continue
    if "/Unity/unity_" in path or path.startswith(root + "/") and "/build/" not in path[len(root):]:
        seen.add(path)
        print(path)
PY
)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# The compile commands are GCC's: clang does not know some of its warning
# flags, and warns about `a >> b > c`, which is how Spirit X3 grammars say
# "a then b, and c must follow".
status=0
printf '%s\n' "${units[@]}" | xargs -P2 -n1 clang-tidy-14 -p "$build" --quiet \
  --header-filter="^$root/(parser|simplify|indexing|layout|app|tests|bench)/" \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-overloaded-shift-op-parentheses \
  >"$log" 2>/dev/null || status=$?
# A finding in a header is reported once per translation unit that includes it.
findings=$(grep -E ': (warning|error): ' "$log" | sort -u || true)
if [ "$status" -ne 0 ] || [ -n "$findings" ]; then
  echo "$findings"
  echo "tidy: findings per check:" >&2
  echo "$findings" | grep -oE '\[[a-z0-9.,-]+\]$' | sed -E 's/^\[//; s/[],].*//' | sort | uniq -c | sort -rn >&2
  exit 1
fi
echo "tidy: no findings in ${#units[@]} translation units ($(git ls-files '*.cpp' | wc -l) source files)"

#!/usr/bin/env bash
# Every command on every module of a corpus (issue #28, item 7: each within 2 s; the chain inputs
# of the regressions within 1 s): wall time, CPU time and peak memory per file and command, the
# slowest first, and how many runs are over the limit. Prints figures; fails on nothing (the
# machine's load moves them: run it on an idle machine, twice, and read both).
#
# Usage: bench/commands/run.sh BUILD/app/hlo-index [DIR...]
#   (default: ../shared/corpus and ../shared/regressions next to the checkout, where they exist)
set -uo pipefail
binary=$(realpath "${1:?usage: run.sh HLO_INDEX [DIR...]}")
shift
here=$(cd "$(dirname "$0")/../.." && pwd)
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
  for d in "$here/../shared/corpus" "$here/../shared/regressions"; do [ -d "$d" ] && dirs+=("$d"); done
fi
[ ${#dirs[@]} -eq 0 ] && { echo "run.sh: no corpus directory given or found" >&2; exit 2; }
limit=${LIMIT_SECONDS:-2}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
results=$work/results.txt
: >"$results"
mapfile -t files < <(find "${dirs[@]}" -type f \( -name '*.hlo' -o -name '*.txt' -o -name '*.hlo.*' \) | sort)
for f in "${files[@]}"; do
  for c in "summary" "summary --all-instructions" "lint" "analyze --utilisation --coalescing --physical" \
    "diff $f" "report -o $work/report.html"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%e %U %M" -o "$work/time.txt" timeout 120 "$binary" $c --allow-truncated "$f" \
      >/dev/null 2>&1
    rc=$?
    read -r wall cpu kb < <(tail -1 "$work/time.txt") || { wall=120; cpu=0; kb=0; }
    label=$(awk '{print $1, ($2 ~ /^--/ ? $2 : "")}' <<<"$c")
    printf '%8.2f %8.2f %8d %4d  %-22s %s\n' "$wall" "$cpu" "$((kb / 1024))" "$rc" "$label" \
      "${f#"$here/../shared/"}" >>"$results"
  done
done
echo "  wall s    cpu s   max MB   rc  command                file"
sort -rn "$results"
echo "runs: $(wc -l <"$results"), over ${limit} s: $(awk -v l="$limit" '$1 > l' "$results" | wc -l)"

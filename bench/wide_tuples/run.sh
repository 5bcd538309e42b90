#!/usr/bin/env bash
# Wide tuples (issue #28, item 4): time and peak memory of `layout` of an
# N-element tuple shape, `analyze --utilisation --coalescing --physical` of a
# module whose root is an N-element tuple, and `analyze` of a fusion whose root
# is a tuple of N slices. Each should stay near linear in N.
#
# Usage: bench/wide_tuples/run.sh BUILD/app/hlo-index [N...]   (default N: 1000 2000 5000)
set -euo pipefail
binary=${1:?usage: run.sh HLO_INDEX [N...]}
shift
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000 2000 5000)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() {  # label, command...
  local label=$1
  shift
  /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || true
  local wall rss
  wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}')
  rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
  printf '%-44s %10s wall %8d MB max RSS\n' "$label" "$wall" $((rss / 1024))
}

for n in "${sizes[@]}"; do
  python3 "$here/generate.py" "$work/$n" "$n"
  measure "layout, tuple of $n" "$binary" layout "$(cat "$work/$n/wide_tuple_shape.txt")"
  measure "analyze -u -c -p, root tuple of $n" "$binary" analyze --utilisation --coalescing --physical \
    "$work/$n/wide_tuple_module.hlo"
  measure "analyze, fusion root tuple of $n slices" "$binary" analyze "$work/$n/wide_tuple_fusion.hlo"
done

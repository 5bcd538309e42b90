#!/usr/bin/env bash
# bench/parse_e2e.sh: `hlo-index parse` as a whole process (read, parse, statistics, exit)
# on the mixtral corpus dump repeated 10 times (~41 MB, 10 modules), with `grep -c ' = '`
# on the same file in the same loop as the floor. Prints figures only: the file size, the
# median and spread of the wall times (each process timed whole, fork and exit included), MB/s, grep's median, the ratio and peak memory.
# Usage: bench/parse_e2e.sh [BINARY] [RUNS]   (default build/release/app/hlo-index, 9 runs)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/app/hlo-index}
runs=${2:-9}
source_dump=$(find ../shared/corpus -name '*mixtral_8x7b*' | sed -n 1p)
[ -n "$source_dump" ] || { echo "no mixtral dump under ../shared/corpus" >&2; exit 2; }
input=$(mktemp --suffix=.hlo)
times=$(mktemp)
trap 'rm -f "$input" "$times"' EXIT
for _ in $(seq 10); do cat "$source_dump"; done > "$input"
bytes=$(stat -c %s "$input")
"$bin" parse "$input" > /dev/null  # page cache warm for both
now_ns() { date +%s%N; }
for _ in $(seq "$runs"); do
  start=$(now_ns)
  /usr/bin/time -f '%M' -o "$times.rss" "$bin" parse "$input" > /dev/null
  middle=$(now_ns)
  grep -c ' = ' "$input" > "$times.count"  # not /dev/null: GNU grep then stops at the first match
  stop=$(now_ns)
  echo "parse $(( (middle - start) / 1000 )) $(cat "$times.rss")" >> "$times"
  echo "grep $(( (stop - middle) / 1000 ))" >> "$times"
done
rm -f "$times.rss" "$times.count"
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
parse_times=$(awk '$1 == "parse" {printf "%.3f\n", $2 / 1e6}' "$times")
grep_times=$(awk '$1 == "grep" {printf "%.3f\n", $2 / 1e6}' "$times")
parse_median=$(echo "$parse_times" | median)
grep_median=$(echo "$grep_times" | median)
parse_min=$(echo "$parse_times" | sort -n | head -1)
parse_max=$(echo "$parse_times" | sort -n | tail -1)
rss_kib=$(awk '$1 == "parse" {print $3}' "$times" | sort -n | tail -1)
awk -v bytes="$bytes" -v runs="$runs" -v pm="$parse_median" -v lo="$parse_min" -v hi="$parse_max" \
    -v gm="$grep_median" -v rss="$rss_kib" -v times="$(echo $parse_times)" -v gtimes="$(echo $grep_times)" 'BEGIN {
  mb = bytes / 1e6
  printf "file          %.1f MB (mixtral x10)\n", mb
  printf "parse         median %.3f s over %d runs (min %.3f, max %.3f) = %.0f MB/s\n", pm, runs, lo, hi, (pm > 0 ? mb / pm : 0)
  printf "              runs: %s\n", times
  printf "grep -c \047 = \047 median %.3f s (runs: %s)\n", gm, gtimes
  printf "parse / grep  %.1fx\n", pm / gm
  printf "peak memory   %.0f MiB = %.2fx the file\n", rss / 1024, rss * 1024 / bytes
}'

#!/usr/bin/env bash
# Runs every command and output form over a corpus and writes each output
# (stdout, stderr and exit code) to OUT_DIR, one file per file and command,
# so that two builds can be compared byte for byte with `diff -r`:
#   scripts/snapshot_outputs.sh OLD_BINARY /tmp/before
#   scripts/snapshot_outputs.sh build/release/app/hlo-index /tmp/after
#   diff -r /tmp/before /tmp/after
# CORPUS defaults to ../shared/corpus (or $HLO_INDEX_CORPUS).
set -euo pipefail
bin=$(realpath "$1")
out=$2
corpus=${3:-${HLO_INDEX_CORPUS:-$(dirname "$0")/../../shared/corpus}}
mkdir -p "$out"
commands=(
  "parse"
  "parse --format json"
  "analyze"
  "analyze --format json"
  "analyze --direction both --xla-compat"
  "analyze --utilisation"
  "analyze --coalescing"
  "analyze --utilisation --coalescing --format json"
  "analyze --physical"
  "analyze --physical --format json"
  "analyze --canonical-names --utilisation"
  "analyze --canonical-names --format json"
  "lint"
  "lint --all-instructions"
  "lint --format json"
  "lint --all-instructions --format sarif"
)
run_one() {  # FILE COMMAND_INDEX
  local file=$1 k=$2
  local cmd=${commands[$k]}
  local name
  name=$(basename "$file").$(echo "$cmd" | tr ' ' '_' | tr -d '-')
  local code=0
  # shellcheck disable=SC2086
  "$bin" $cmd "$file" --allow-truncated >"$out/$name.out" 2>"$out/$name.err" || code=$?
  echo "$code" >"$out/$name.code"
}
# layout takes one instruction: the first five with a laid-out result shape.
layout_one() {  # FILE
  local file=$1 base k=0
  base=$(basename "$file")
  for name in $(grep -oE '^\s*(ROOT )?%?[A-Za-z0-9_.-]+ = [a-z0-9]+\[[0-9,]*\]\{' "$file" |
                sed -E 's/^\s*(ROOT )?%?//; s/ = .*//' | head -5); do
    for form in text json; do
      local code=0
      "$bin" layout "$file" --instruction "$name" --format $form --allow-truncated \
        >"$out/$base.layout$k.$form.out" 2>"$out/$base.layout$k.$form.err" || code=$?
      echo "$code" >"$out/$base.layout$k.$form.code"
    done
    k=$((k + 1))
  done
}
export -f run_one layout_one
export bin out
jobs=()
while IFS= read -r -d '' f; do
  for k in "${!commands[@]}"; do jobs+=("$f" "$k"); done
done < <(find "$corpus" -type f -print0 | sort -z)
printf '%s\0' "${jobs[@]}" | xargs -0 -n2 -P"$(nproc)" bash -c "$(declare -p commands); run_one \"\$0\" \"\$1\""
find "$corpus" -type f -print0 | sort -z | xargs -0 -n1 -P"$(nproc)" bash -c 'layout_one "$0"'
echo "snapshot_outputs: $(( ${#jobs[@]} / 2 )) outputs in $out"

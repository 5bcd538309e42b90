#!/usr/bin/env bash
# The CI recipe of docs/ci-recipe.md as one script: judge a branch's HLO dump against the main
# branch's. Lint findings new on the branch (the main dump's findings are the baseline) go to
# SARIF for code scanning; `hlo-index diff` says whether a fusion got slower or moves more bytes.
#
#   scripts/ci_recipe.sh HLO_INDEX MAIN_DUMP BRANCH_DUMP OUT_DIR [OPTION...]
#
# OPTIONs go to every hlo-index command (lint and diff: e.g. --allow-truncated). Writes
# OUT_DIR/lint-baseline.txt, OUT_DIR/lint.sarif and OUT_DIR/diff.txt. Exit code: 0 nothing new and
# no regression; 1 new lint warnings or a diff regression; 2 bad input (a dump that does not
# parse, a bad option); 3 an internal error of hlo-index. The worst of the steps wins.
set -u
if [ $# -lt 4 ]; then
  echo "usage: ci_recipe.sh HLO_INDEX MAIN_DUMP BRANCH_DUMP OUT_DIR [OPTION...]" >&2
  exit 2
fi
tool=$1 main=$2 branch=$3 out=$4
shift 4
mkdir -p "$out" || exit 2

# 1. The main branch's findings: the baseline (in a real pipeline, written on main and kept).
"$tool" lint "$@" "$main" --write-baseline "$out/lint-baseline.txt" 2>"$out/lint-baseline.err"
baseline_rc=$?
# 2. The branch's findings not in the baseline, as SARIF 2.1.0 (exit 1: some are warnings).
"$tool" lint "$@" --baseline "$out/lint-baseline.txt" --format sarif "$branch" >"$out/lint.sarif" 2>"$out/lint.err"
lint_rc=$?
# 3. Fusions added, removed, split, merged or changed; exit 1 on a regression past the floors.
"$tool" diff "$@" "$main" "$branch" >"$out/diff.txt" 2>"$out/diff.err"
diff_rc=$?

worst=0
for rc in $baseline_rc $lint_rc $diff_rc; do
  # 3 (internal error) over 2 (bad input) over 1 (findings, regressions) over 0; anything else is 2.
  case $rc in 0 | 1 | 2 | 3) ;; *) rc=2 ;; esac
  [ "$rc" -gt "$worst" ] && worst=$rc
done
echo "ci_recipe: baseline exit $baseline_rc, lint exit $lint_rc (new findings in $out/lint.sarif), diff exit" \
  "$diff_rc ($(tail -1 "$out/diff.txt" 2>/dev/null)); exit $worst"
exit "$worst"

#!/usr/bin/env python3
"""The CI recipe (docs/ci-recipe.md, scripts/ci_recipe.sh) on two real dumps of testdata/corpus:

- XLA's launch-dimension tests' GELU module against itself with its fusion split by hand
  (scripts/split_fusion.py): exit 1, the diff names the split as a regression with its cost, and
  the SARIF holds the one new lint finding (missed-fusion: the split's intermediate);
- XLA's GPU fusion test module against itself with every name replaced (scripts/renumber_hlo.py
  --mode opaque): exit 0, `no differences`, an empty SARIF run;
- a dump that does not parse: exit 2.

  check_ci_recipe.py HLO_INDEX REPO_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_stable_identity import gelu_module  # noqa: E402

FUSION_TEST = "openxla__openxla/xla__service__gpu__tests__fusion.hlo"


def recipe(repo, tool, main, branch, out, expect, *options):
    result = subprocess.run(["bash", os.path.join(repo, "scripts", "ci_recipe.sh"), tool, main, branch, out,
                             *options], capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"ci_recipe.sh {main} {branch}: exit {result.returncode}, expected {expect}\n"
                 f"{result.stdout}\n{result.stderr}")
    return result


def sarif_results(out):
    with open(os.path.join(out, "lint.sarif")) as f:
        doc = json.load(f)
    assert doc["version"] == "2.1.0", doc["version"]
    return doc["runs"][0]["results"]


def main():
    tool, repo, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    corpus = os.path.join(repo, "testdata", "corpus")
    scripts = os.path.join(repo, "scripts")

    gelu = gelu_module(corpus, work)
    split = os.path.join(work, "gelu_split.hlo")
    subprocess.run([sys.executable, os.path.join(scripts, "split_fusion.py"), gelu, split, "--computation",
                    "fused_computation", "--at", "tanh.0"], check=True, capture_output=True)
    out = os.path.join(work, "split")
    recipe(repo, tool, gelu, split, out, 1)
    with open(os.path.join(out, "diff.txt")) as f:
        diff = f.read()
    assert "regression (exit 1)" in diff and "split fusion time:" in diff, diff[-2000:]
    results = sarif_results(out)
    assert [r["ruleId"] for r in results] == ["missed-fusion"], results
    assert "fusion.split" in results[0]["message"]["text"], results[0]["message"]["text"]

    original = os.path.join(corpus, FUSION_TEST)
    renamed = os.path.join(work, "fusion_renamed.hlo")
    subprocess.run([sys.executable, os.path.join(scripts, "renumber_hlo.py"), original, renamed, "--mode", "opaque"],
                   check=True, capture_output=True)
    out = os.path.join(work, "renamed")
    recipe(repo, tool, original, renamed, out, 0)
    with open(os.path.join(out, "diff.txt")) as f:
        diff = f.read()
    assert diff.rstrip().endswith("no differences"), diff[-2000:]
    assert sarif_results(out) == [], "a renamed dump has new findings"

    bad = os.path.join(work, "bad.hlo")
    with open(bad, "w") as f:
        f.write("HloModule bad\nENTRY e {\n  ROOT x = f32[] add()\n}\n")
    recipe(repo, tool, original, bad, os.path.join(work, "bad"), 2)
    print("ok: the CI recipe fails on the split (1), passes the renamed dump (0), rejects bad input (2)")


if __name__ == "__main__":
    main()

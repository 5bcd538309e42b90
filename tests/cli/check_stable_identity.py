#!/usr/bin/env python3
"""Checks of issue 26 on real dumps (run where the corpus is present):

- split: the GELU fusion of XLA's launch-dimension tests split by hand (scripts/split_fusion.py:
  an extra kernel and a 24 MiB round trip through device memory) is a split and a regression (exit 1),
  with its cost before and after, its time and bytes beyond the threshold and the floors;
- renumber: the qwen3 dump, the launch-dimension tests and the llama 3.1 405B benchmark dump with every instruction and
  computation renamed (scripts/renumber_hlo.py, both modes) diff to `no differences` (exit 0),
  lint the same findings, and the original's baseline suppresses every one of them (exit 0).

  check_stable_identity.py HLO_INDEX CORPUS_DIR SCRIPTS_DIR WORK_DIR {split|renumber}
"""
import json
import os
import re
import subprocess
import sys

QWEN3 = "AI-Hypercomputer__maxtext/tests__utils__reference_hlo_qwen3_1.7b.txt"
GELU = "openxla__openxla/xla__service__gpu__tests__launch_dimensions.hlo"
LLAMA = "ROCm__xla/xla__tools__benchmarks__hlo__hlo_llama31_405b_fp8_64x8.hlo"


def run(args, expect):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"{' '.join(args)}: exit {result.returncode}, expected {expect}\n{result.stdout[-3000:]}"
                 f"\n{result.stderr[-3000:]}")
    return result


def gelu_module(corpus, work):
    """The GELU module of XLA's launch-dimension tests (the file's last module), a complete dump
    with one real fusion; its operands' inline types dropped for split_fusion.py."""
    with open(os.path.join(corpus, GELU)) as f:
        text = f.read()
    text = text[text.rindex("\nHloModule") + 1:]
    text = re.sub(r"\b(?:f16|f32)\[[0-9,]*\](?:\{[0-9,]*\})? %", "%", text)
    path = os.path.join(work, "gelu.hlo")
    with open(path, "w") as f:
        f.write(text)
    return path


def check_split(tool, corpus, scripts, work):
    # The maxtext dumps are cut before their ENTRY: their fusions are left out (no computation
    # reaches them), so the split is made in a complete real dump.
    dump = gelu_module(corpus, work)
    split = os.path.join(work, "gelu_split.hlo")
    run([sys.executable, os.path.join(scripts, "split_fusion.py"), dump, split, "--computation",
         "fused_computation", "--at", "tanh.0"], 0)
    doc = json.loads(run([tool, "diff", "--format", "json", dump, split], 1).stdout)
    module = doc["modules"][0]
    assert module["old_rows"] + 1 == module["new_rows"], module["new_rows"]
    assert not module["added"] and not module["removed"], "the split is not recognised as one"
    groups = module["regrouped"]
    assert len(groups) == 1 and groups[0]["kind"] == "split", groups
    group = groups[0]
    assert [e["name"] for e in group["before"]] == ["fusion"], group["before"]
    assert sorted(e["name"] for e in group["after"]) == ["fusion", "fusion.split"], group["after"]
    figures = {f["figure"]: f for f in group["figures"]}
    assert figures["time"]["regression"], figures["time"]
    before = sum(e["seconds"] for e in group["before"])
    after = sum(e["seconds"] for e in group["after"])
    assert after - before >= 1e-6, (before, after)
    # The intermediate: f16[6,512,4096], 24 MiB written and read once more.
    written = figures["bytes_written"]
    assert written["regression"] and written["after"] == "48 MiB", written
    assert figures["bytes_read"]["regression"], figures["bytes_read"]
    assert doc["explanation"]["regressions"], doc["explanation"]
    text = run([tool, "diff", dump, split], 1).stdout
    assert "regression (exit 1)" in text and "split  fusion (line" in text, text[-2000:]


def check_renumber(tool, corpus, scripts, work):
    for name, extra in ((QWEN3, ["--allow-truncated"]), (GELU, []), (LLAMA, ["--all-instructions"])):
        dump = os.path.join(corpus, name)
        baseline = os.path.join(work, "original.baseline")
        run([tool, "lint", *extra, dump, "--write-baseline", baseline], 0)
        original = json.loads(run([tool, "lint", *extra, "--format", "json", dump], lint_exit(dump, tool, extra)).stdout)
        for mode in ("shuffle", "opaque"):
            renamed = os.path.join(work, f"renamed_{mode}.hlo")
            run([sys.executable, os.path.join(scripts, "renumber_hlo.py"), dump, renamed, "--mode", mode], 0)
            # diff: every fusion (or instruction) matched, nothing changed.
            result = run([tool, "diff", *extra, dump, renamed], 0)
            assert result.stdout.rstrip().endswith("no differences"), result.stdout[-2000:]
            # lint: the same findings, by fingerprint; the original baseline suppresses all.
            findings = json.loads(run([tool, "lint", *extra, "--format", "json", renamed],
                                      lint_exit(dump, tool, extra)).stdout)
            keys = sorted((f["rule"], f["fingerprint"], f.get("operand")) for f in findings["findings"])
            expected = sorted((f["rule"], f["fingerprint"], f.get("operand")) for f in original["findings"])
            assert keys == expected, f"{name} {mode}: findings differ"
            suppressed = run([tool, "lint", *extra, renamed, "--baseline", baseline], 0)
            assert "no findings" in suppressed.stderr, suppressed.stderr[-1000:]
            print(f"{name} ({mode}): {len(keys)} findings, all in the baseline; diff: no differences")


def lint_exit(dump, tool, extra):
    """lint's exit code on the original dump: 1 with warnings, 0 without."""
    result = subprocess.run([tool, "lint", *extra, dump], capture_output=True, text=True)
    return result.returncode


def main():
    tool, corpus, scripts, work, what = sys.argv[1:6]
    os.makedirs(work, exist_ok=True)
    {"split": check_split, "renumber": check_renumber}[what](tool, corpus, scripts, work)
    print(f"ok: {what}")


if __name__ == "__main__":
    main()

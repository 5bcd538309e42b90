#!/usr/bin/env python3
"""Counts the UNDEFINED operand maps of `hlo-index analyze` over a corpus.

    scripts/undefined_report.py BINARY [CORPUS_DIR]

Every instruction of every computation (`--all-computations`) has, per output,
one entry per operand; an entry is undefined when one of its maps is UNDEFINED. The table groups them by the
reason hlo-index gives (which names the op inside a fusion or call that has
no maps) and by the opcode of the analysed instruction, and ends with the
share of undefined entries. CORPUS_DIR defaults to ../shared/corpus.
"""
import collections
import json
import os
import subprocess
import sys


def hlo_files(root):
    for directory, _, names in sorted(os.walk(root)):
        for name in sorted(names):
            if name.endswith((".hlo", ".txt", ".hlotxt")) and not name.startswith("README"):
                yield os.path.join(directory, name)


def entries(document):
    for module in document.get("modules", []):
        for computation in module.get("computations", []):
            for instruction in computation.get("instructions", []):
                for output in instruction.get("outputs", []):
                    for operand in output.get("operands", []):
                        yield instruction["opcode"], operand


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__), "..", "..", "shared",
                                                                  "corpus")
    by_reason = collections.Counter()
    total = undefined = 0
    for path in hlo_files(root):
        run = subprocess.run([binary, "analyze", "--format", "json", "--all-computations", "--allow-truncated", path],
                             capture_output=True, text=True, check=False)
        if run.returncode != 0:
            print(f"{path}: exit {run.returncode}: {run.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        for opcode, operand in entries(json.loads(run.stdout)):
            total += 1
            reason = operand.get("undefined_reason")
            if reason is not None:
                undefined += 1
                by_reason[(reason, opcode)] += 1
    width = max([len(r) for r, _ in by_reason] + [6])
    print(f"{'count':>7}  {'reason':<{width}}  analysed instruction")
    for (reason, opcode), n in sorted(by_reason.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:>7}  {reason:<{width}}  {opcode}")
    share = 100.0 * undefined / total if total else 0.0
    print(f"undefined operand maps: {undefined} of {total} ({share:.2f}%)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Runs every `$ hlo-index ...` example of the README's tour and compares its
output with the text the README shows, so the tour stays true to the binary.

Usage: check_readme_tour.py HLO_INDEX_BINARY README.md   (run from the repository root)
"""
import re
import subprocess
import sys


def tour_examples(readme: str):
    tour = readme.split("## A tour", 1)[1].split("\n# Reference", 1)[0]
    for block in re.findall(r"```\n(.*?)```", tour, flags=re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ hlo-index "):
            yield lines[0][2:], "\n".join(lines[1:]) + "\n"


def main() -> int:
    binary, readme_path = sys.argv[1], sys.argv[2]
    failures = 0
    examples = list(tour_examples(open(readme_path, encoding="utf-8").read()))
    for command, expected in examples:
        shell = command.replace("hlo-index", binary, 1)
        actual = subprocess.run(shell, shell=True, capture_output=True, text=True).stdout
        if command.startswith("hlo-index lint"):  # lint's summary line goes to stderr
            actual += subprocess.run(shell + " 2>&1 >/dev/null", shell=True, capture_output=True,
                                     text=True).stdout
        if actual != expected:
            failures += 1
            print(f"README tour: `{command}` printed:\n{actual}expected:\n{expected}")
    print(f"README tour: {len(examples)} examples, {failures} differ")
    return 1 if failures or not examples else 0


if __name__ == "__main__":
    sys.exit(main())

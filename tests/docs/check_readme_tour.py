#!/usr/bin/env python3
"""Runs every `$ hlo-index ...` example of the README's tour and compares its
output with the text the README shows, so the tour stays true to the binary.

Usage: check_readme_tour.py HLO_INDEX_BINARY README.md [--update]   (run from the repository root)
With --update, the README's outputs are rewritten to what the binary prints (read the diff).
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


def run(binary: str, command: str) -> str:
    shell = command.replace("hlo-index", binary, 1)
    actual = subprocess.run(shell, shell=True, capture_output=True, text=True).stdout
    if command.startswith("hlo-index lint"):  # lint's summary line goes to stderr
        actual += subprocess.run(shell + " 2>&1 >/dev/null", shell=True, capture_output=True, text=True).stdout
    return actual


def main() -> int:
    binary, readme_path = sys.argv[1], sys.argv[2]
    update = sys.argv[3:] == ["--update"]
    readme = open(readme_path, encoding="utf-8").read()
    failures = 0
    examples = list(tour_examples(readme))
    for command, expected in examples:
        actual = run(binary, command)
        if actual != expected:
            if update:
                readme = readme.replace(f"$ {command}\n{expected}", f"$ {command}\n{actual}", 1)
                continue
            failures += 1
            print(f"README tour: `{command}` printed:\n{actual}expected:\n{expected}")
    if update:
        open(readme_path, "w", encoding="utf-8").write(readme)
    print(f"README tour: {len(examples)} examples, {failures} differ")
    return 1 if failures or not examples else 0


if __name__ == "__main__":
    sys.exit(main())

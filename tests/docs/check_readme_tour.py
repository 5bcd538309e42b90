#!/usr/bin/env python3
"""Runs every `$ hlo-index ...` example of the README's tour, and of any other pages
named, and compares its output with the text the page shows, so the documentation stays
true to the binary.

Usage: check_readme_tour.py HLO_INDEX_BINARY PAGE.md|DIRECTORY... [--update]   (run from the repository root)
With --update, each example's output in its page is rewritten to what the binary prints (read the diff).

In a page named README.md only the section `## A tour` is read; in every other page the whole
page; a directory stands for the .md files in it. An example
is a block fenced with a plain ``` (no language) whose first line starts with `$ hlo-index `;
a block may hold several commands, each `$ hlo-index ...` line followed by its output. Blocks
fenced as ```text (or any other language) are shown, not run.
"""
import os
import re
import subprocess
import sys


def tour_section(readme: str) -> str:
    tour = readme.split("\n## A tour\n", 1)[1]
    return re.split(r"\n#{1,2} ", tour, maxsplit=1)[0]


def examples(text: str):
    for block in re.findall(r"^```\n(.*?)^```", text, flags=re.S | re.M):
        lines = block.rstrip("\n").split("\n")
        if not lines[0].startswith("$ hlo-index "):
            continue
        command, output = None, []
        for line in lines:
            if line.startswith("$ hlo-index "):
                if command is not None:
                    yield command, "".join(l + "\n" for l in output)
                command, output = line[2:], []
            else:
                output.append(line)
        yield command, "".join(l + "\n" for l in output)


def run(binary: str, command: str) -> str:
    shell = command.replace("hlo-index", binary, 1)
    actual = subprocess.run(shell, shell=True, capture_output=True, text=True).stdout
    if command.startswith("hlo-index lint"):  # lint's summary line goes to stderr
        actual += subprocess.run(shell + " 2>&1 >/dev/null", shell=True, capture_output=True,
                                 text=True).stdout
    return actual


def pages(arguments):
    for argument in arguments:
        if os.path.isdir(argument):
            yield from sorted(os.path.join(argument, name) for name in os.listdir(argument) if name.endswith(".md"))
        else:
            yield argument


def main() -> int:
    arguments = sys.argv[2:]
    update = "--update" in arguments
    binary, paths = sys.argv[1], list(pages(a for a in arguments if a != "--update"))
    found = []
    for path in paths:
        text = open(path, encoding="utf-8").read()
        if os.path.basename(path) == "README.md":
            text = tour_section(text)
        found += [(path, example) for example in examples(text)]
    failures = 0
    for path, (command, expected) in found:
        actual = run(binary, command)
        if actual != expected and update:
            text = open(path, encoding="utf-8").read()
            open(path, "w", encoding="utf-8").write(
                text.replace(f"$ {command}\n{expected}", f"$ {command}\n{actual}", 1))
        elif actual != expected:
            failures += 1
            print(f"{path}: `{command}` printed:\n{actual}expected:\n{expected}")
    print(f"docs examples: {len(found)} examples in {', '.join(paths)}, {failures} differ")
    return 1 if failures or not found else 0


if __name__ == "__main__":
    sys.exit(main())

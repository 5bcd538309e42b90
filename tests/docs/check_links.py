#!/usr/bin/env python3
"""Checks that every relative link of the README and of docs/ names a file that exists and,
with a #fragment, a heading of that page (GitHub's anchors: lower case, punctuation dropped,
blanks as '-').

Usage: check_links.py REPOSITORY_ROOT
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def without_code(text: str) -> str:
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path: str) -> set:
    found, seen = set(), {}
    text = re.sub(r"^```.*?^```", "", open(path, encoding="utf-8").read(), flags=re.S | re.M)
    for heading in re.findall(r"^#{1,6} (.*)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def pages(root: str):
    yield os.path.join(root, "README.md")
    for directory, _, names in os.walk(os.path.join(root, "docs")):
        yield from sorted(os.path.join(directory, n) for n in names if n.endswith(".md"))


def main() -> int:
    root = sys.argv[1]
    problems, links = [], 0
    for page in pages(root):
        for target in LINK.findall(without_code(open(page, encoding="utf-8").read())):
            if re.match(r"[a-z]+:", target):
                continue
            links += 1
            path, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            where = os.path.relpath(page, root)
            if not os.path.exists(resolved):
                problems.append(f"{where}: {target}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append(f"{where}: {target}: no heading with that anchor")
    print("\n".join(problems + [f"docs links: {links} relative links, {len(problems)} broken"]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

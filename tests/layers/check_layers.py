#!/usr/bin/env python3
"""Checks that the libraries' include arrows follow their CMake link arrows.

Each folder with an add_library() in its CMakeLists.txt is one library. A file
of that folder may include headers of its own folder and of the libraries its
library links (PUBLIC or PRIVATE, transitively) -- never of a library above it.
The CMake targets are the one statement of the layers; this test keeps the
includes honest to them (an include up a level would compile while the
header's inline code is all it uses, and go unnoticed).

Usage: check_layers.py ROOT        check the tree at ROOT
       check_layers.py --self-test check that a planted upward include is found
"""
import os
import re
import sys
import tempfile

ADD_LIBRARY = re.compile(r"add_library\(\s*(\w+)")
LINK = re.compile(r"target_link_libraries\(\s*(\w+)([^)]*)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def libraries(root):
    """folder (relative to root) -> library, and library -> the libraries it links."""
    folder_of, links = {}, {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "build"]
        if "CMakeLists.txt" not in filenames:
            continue
        text = open(os.path.join(dirpath, "CMakeLists.txt")).read()
        names = ADD_LIBRARY.findall(text)
        folder = os.path.relpath(dirpath, root)
        for name in names:
            folder_of.setdefault(folder, name)
        for target, deps in LINK.findall(text):
            links.setdefault(target, set()).update(d for d in deps.split() if d.startswith("hlo_index_"))
    return folder_of, links


def closure(library, links):
    seen, stack = set(), [library]
    while stack:
        for dep in links.get(stack.pop(), ()):
            if dep not in seen:
                seen.add(dep)
                stack.append(dep)
    return seen


def violations(root):
    folder_of, links = libraries(root)
    out = []
    for folder, library in sorted(folder_of.items()):
        allowed = closure(library, links) | {library}
        directory = os.path.join(root, folder)
        for name in sorted(os.listdir(directory)):
            if not name.endswith((".cpp", ".hpp", ".h")):
                continue
            text = open(os.path.join(directory, name)).read()
            for header in INCLUDE.findall(text):
                owner = folder_of.get(os.path.dirname(header))
                if owner is not None and owner not in allowed:
                    out.append(f"{folder}/{name}: includes {header} of {owner}, which {library} does not link")
    return out, folder_of


def self_test():
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            open(os.path.join(root, path), "w").write(text)
        write("low/CMakeLists.txt", "add_library(hlo_index_low a.cpp)\n")
        write("high/CMakeLists.txt", "add_library(hlo_index_high b.cpp)\ntarget_link_libraries(hlo_index_high PUBLIC hlo_index_low)\n")
        write("high/b.cpp", '#include "low/a.hpp"\n#include "high/b.hpp"\n')
        write("low/a.cpp", '#include "low/a.hpp"\n')
        found, _ = violations(root)
        assert found == [], found
        write("low/a.cpp", '#include "low/a.hpp"\n#include "high/b.hpp"\n')
        found, _ = violations(root)
        assert found == ["low/a.cpp: includes high/b.hpp of hlo_index_high, which hlo_index_low does not link"], found
    print("check_layers: self-test passed")


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    found, folder_of = violations(sys.argv[1])
    for line in found:
        print(line)
    if found:
        return 1
    print(f"check_layers: {len(folder_of)} libraries, every include follows the link order")
    return 0


if __name__ == "__main__":
    sys.exit(main())

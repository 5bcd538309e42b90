#!/usr/bin/env python3
"""Checks that docs/reference.md is what scripts/gen_reference.py writes from the binary's
--help, so the reference never drifts from the options.

Usage: check_reference.py HLO_INDEX_BINARY REPOSITORY_ROOT
"""
import difflib
import os
import subprocess
import sys
import tempfile


def main() -> int:
    binary, root = sys.argv[1], sys.argv[2]
    committed_path = os.path.join(root, "docs", "reference.md")
    with tempfile.TemporaryDirectory() as tmp:
        generated_path = os.path.join(tmp, "reference.md")
        run = subprocess.run([sys.executable, os.path.join(root, "scripts", "gen_reference.py"), binary,
                              generated_path])
        if run.returncode != 0:
            print(f"scripts/gen_reference.py exited {run.returncode}")
            return 1
        generated = open(generated_path, encoding="utf-8").read()
    committed = open(committed_path, encoding="utf-8").read() if os.path.exists(committed_path) else ""
    if generated == committed:
        print("docs/reference.md matches --help")
        return 0
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True), generated.splitlines(True),
                                               "docs/reference.md", "generated from --help"))
    print("\ndocs/reference.md differs from the binary's --help (above). Regenerate it and commit the result:\n"
          "  python3 scripts/gen_reference.py build/release/app/hlo-index")
    return 1


if __name__ == "__main__":
    sys.exit(main())

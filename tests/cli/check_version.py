#!/usr/bin/env python3
"""Checks `hlo-index --version` and the build step behind it (cmake/GitCommit.cmake).

Usage: check_version.py HLO_INDEX_BINARY PROJECT_VERSION CMAKE REPOSITORY_ROOT

- `--version` and `-V` print one line, `hlo-index PROJECT_VERSION (COMMIT)`, and exit 0, where
  COMMIT is a short hash, a short hash with `-dirty`, or `unknown`;
- the step writes the short hash of HEAD for a clean checkout, with `-dirty` once a tracked file
  changes, and `unknown` for a directory that is not the top of a git checkout.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def version_line(binary: str, flag: str) -> str:
    run = subprocess.run([binary, flag], capture_output=True, text=True)
    assert run.returncode == 0, f"{flag} exited {run.returncode}: {run.stderr}"
    assert run.stderr == "", f"{flag} wrote to stderr: {run.stderr}"
    return run.stdout


def step_commit(cmake: str, script: str, source_dir: str, out_dir: str) -> str:
    """What cmake/GitCommit.cmake writes for source_dir: the text in parentheses."""
    output = os.path.join(out_dir, "version.cpp")
    subprocess.run([cmake, f"-DSOURCE_DIR={source_dir}", "-DVERSION=1.2.3", f"-DOUTPUT={output}", "-P", script],
                   check=True, capture_output=True)
    text = open(output, encoding="utf-8").read()
    found = re.search(r'"hlo-index 1\.2\.3 \(([^)]*)\)"', text)
    assert found, f"no version text in {text}"
    return found.group(1)


def git(directory: str, *args: str) -> str:
    return subprocess.run(["git", "-C", directory, *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def main() -> int:
    binary, version, cmake, root = sys.argv[1:5]
    script = os.path.join(root, "cmake", "GitCommit.cmake")
    line = version_line(binary, "--version")
    pattern = r"hlo-index " + re.escape(version) + r" \(([0-9a-f]{7,40}(-dirty)?|unknown)\)\n"
    assert re.fullmatch(pattern, line), f"--version printed {line!r}, not `hlo-index {version} (COMMIT)`"
    assert version_line(binary, "-V") == line, "-V and --version differ"

    with tempfile.TemporaryDirectory() as tmp:
        not_checkout, checkout, out = (os.path.join(tmp, d) for d in ("plain", "checkout", "out"))
        for d in (not_checkout, checkout, out):
            os.mkdir(d)
        assert step_commit(cmake, script, not_checkout, out) == "unknown"
        if shutil.which("git") is None:
            print("git is missing: only the `unknown` case checked")
            return 0
        git(checkout, "init", "-q")
        with open(os.path.join(checkout, "a.txt"), "w") as f:
            f.write("one\n")
        git(checkout, "add", "a.txt")
        git(checkout, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
        head = git(checkout, "rev-parse", "--short", "HEAD")
        assert step_commit(cmake, script, checkout, out) == head
        os.mkdir(os.path.join(checkout, "sub"))
        assert step_commit(cmake, script, os.path.join(checkout, "sub"), out) == "unknown", \
            "a directory inside another checkout is not a checkout of hlo-index"
        with open(os.path.join(checkout, "untracked.txt"), "w") as f:
            f.write("x\n")
        assert step_commit(cmake, script, checkout, out) == head, "untracked files do not make it dirty"
        with open(os.path.join(checkout, "a.txt"), "a") as f:
            f.write("two\n")
        assert step_commit(cmake, script, checkout, out) == head + "-dirty"
    print(f"--version: {line.strip()}; the build step gives the hash, -dirty and unknown")
    return 0


if __name__ == "__main__":
    sys.exit(main())

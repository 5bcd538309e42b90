#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets (tests/fuzz/README.md) under
# build/fuzz/seeds/<target>/ from testdata/, the goldens and, when it is there,
# the shared corpus of real modules (../shared/corpus or $HLO_INDEX_CORPUS).
#   scripts/fuzz_seeds.sh [OUT_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/fuzz/seeds}
corpus=${HLO_INDEX_CORPUS:-$root/../shared/corpus}
[ -d "$corpus" ] || corpus=""
rm -rf "$out"
mkdir -p "$out"/{fuzz_hlo_parser,fuzz_map_parser,fuzz_shape_parser,fuzz_end_to_end}

python3 - "$root" "$out" "$corpus" <<'PY'
import hashlib, os, re, sys
root, out, corpus = sys.argv[1:4]
cap = 64 * 1024

def save(target, text):
    data = text.encode() if isinstance(text, str) else text
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data)

def hlo_files():
    dirs = [os.path.join(root, "testdata")] + ([corpus] if corpus else [])
    for d in dirs:
        for dirpath, _, names in sorted(os.walk(d)):
            for n in sorted(names):
                if n.endswith((".hlo", ".txt", ".hlotxt")):
                    yield os.path.join(dirpath, n)

# A computation as a module of its own: big modules give one seed per
# computation, each under the cap, so an execution stays fast.
computation = re.compile(r"^(?:ENTRY )?%?[\w.\-]+ (?:\([^\n]*\) -> [^\n]*)?\{\n.*?^\}\n", re.M | re.S)

def pieces(text):
    if len(text) <= cap:
        yield text
        return
    header = text.split("\n", 1)[0] if text.startswith("HloModule") else "HloModule split"
    for m in computation.finditer(text):
        body = m.group(0)
        if not body.startswith("ENTRY "):
            body = "ENTRY " + body
        piece = header + "\n\n" + body
        if len(piece) <= cap:
            yield piece

shapes = set()
shape_re = re.compile(r"\b(?:pred|[suf]\d+|bf16|f8e\w+|c64|c128)\[[0-9,<=?]*\](?:\{[^}\s]*\})?")
for path in hlo_files():
    with open(path, errors="replace") as f:
        text = f.read()
    for piece in pieces(text):
        save("fuzz_hlo_parser", piece)
        save("fuzz_end_to_end", piece)
    for s in shape_re.findall(text):
        shapes.add(s)
for s in sorted(shapes)[:2000]:
    save("fuzz_shape_parser", s)

# Layout arguments of the layout goldens.
for n in sorted(os.listdir(os.path.join(root, "testdata", "layout"))):
    if n.endswith(".args"):
        for line in open(os.path.join(root, "testdata", "layout", n)):
            if line.startswith("args: "):
                save("fuzz_shape_parser", line.split()[1])

# Maps: the map goldens' inputs (one-line and stdin forms) and the maps the
# analyze goldens print (one map per block up to its blank line).
map_dir = os.path.join(root, "testdata", "map")
for n in sorted(os.listdir(map_dir)):
    if not n.endswith(".case"):
        continue
    stdin = []
    for line in open(os.path.join(map_dir, n)):
        if line.startswith("map: "):
            save("fuzz_map_parser", line[5:].rstrip("\n"))
        elif line.startswith("stdin: "):
            stdin.append(line[7:])
    for text in "".join(stdin).split("---\n"):
        if text.strip():
            save("fuzz_map_parser", text)
one_line_map = re.compile(r"^\s*(\([^\n]*\) -> \([^\n]*\), domain: [^\n]*)$", re.M)
for dirpath, _, names in sorted(os.walk(os.path.join(root, "testdata"))):
    for n in sorted(names):
        if n.endswith(".expected"):
            with open(os.path.join(dirpath, n), errors="replace") as f:
                for m in one_line_map.finditer(f.read()):
                    save("fuzz_map_parser", m.group(1))
PY
# The seeds kept in the repository, and every saved regression input.
for t in fuzz_hlo_parser fuzz_map_parser fuzz_shape_parser fuzz_end_to_end; do
  for d in "$root/tests/fuzz/seeds/$t" "$root/tests/fuzz/regressions/$t"; do
    [ -d "$d" ] && find "$d" -type f -exec cp {} "$out/$t/" \;
  done
  echo "$t: $(ls "$out/$t" | wc -l) seeds"
done

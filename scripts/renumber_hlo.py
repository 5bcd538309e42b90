#!/usr/bin/env python3
"""Renames every instruction and computation of an HLO text dump consistently.

Each `%name` (definitions, operands, calls=, to_apply=, control-predecessors, ...) and each
parameter name of a computation's signature gets a new name; quoted strings (metadata op_name,
backend_config) are left as they are, as a recompile would leave them. Modes:

  --mode shuffle  (default) keeps each name's stem and gives it a new number, the numbers
                  shuffled so that their order changes too (`fusion.507` -> `fusion.18342`);
  --mode opaque   replaces every name by `n<K>`, K in shuffled order: nothing of the old names.

Used by the tests that check that fingerprints, lint baselines and `hlo-index diff` survive
renumbering (tests/CMakeLists.txt). Deterministic for a given --seed.

  python3 scripts/renumber_hlo.py IN.hlo OUT.hlo [--mode shuffle|opaque] [--seed N]
"""
import argparse
import random
import re
import sys

NAME = re.compile(r"%([A-Za-z0-9_.\-]+)")
# A signature parameter: `(p: f32[...]` or `, p: f32[...]` on a computation's header line.
HEADER = re.compile(r"^(\s*(?:ENTRY\s+)?%[A-Za-z0-9_.\-]+\s*)\((.*)$")
PARAMETER = re.compile(r"(^|[(,]\s*)([A-Za-z_][A-Za-z0-9_.\-]*)(\s*:\s)")


def outside_strings(text, replace):
    """Applies `replace` to the parts of `text` outside double-quoted strings."""
    out, i, n = [], 0, len(text)
    while i < n:
        j = text.find('"', i)
        if j < 0:
            out.append(replace(text[i:]))
            break
        out.append(replace(text[i:j]))
        k = j + 1
        while k < n and text[k] != '"':
            k += 2 if text[k] == "\\" else 1
        out.append(text[j:k + 1])
        i = k + 1
    return "".join(out)


def stem(name):
    parts = [p for p in name.split(".") if not p.isdigit()]
    return ".".join(parts) or "n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--mode", choices=["shuffle", "opaque"], default="shuffle")
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args()
    text = open(args.input, encoding="utf-8", errors="surrogateescape").read()

    names = []
    seen = set()

    def collect(part):
        for m in NAME.findall(part):
            if m not in seen:
                seen.add(m)
                names.append(m)
        return part

    outside_strings(text, collect)
    rng = random.Random(args.seed)
    numbers = list(range(10000, 10000 + 2 * len(names) + 1))
    rng.shuffle(numbers)
    mapping = {}
    for k, name in enumerate(names):
        mapping[name] = f"n{numbers[k]}" if args.mode == "opaque" else f"{stem(name)}.{numbers[k]}"

    def rename(part):
        return NAME.sub(lambda m: "%" + mapping.get(m.group(1), m.group(1)), part)

    lines = []
    for line in text.split("\n"):
        header = HEADER.match(line)
        if header and "->" in line and "=" not in line.split("(")[0]:
            head, rest = header.group(1), header.group(2)
            rest = PARAMETER.sub(lambda m: m.group(1) + mapping.get(m.group(2), m.group(2)) + m.group(3), rest)
            line = head + "(" + rest
        lines.append(line)
    out = outside_strings("\n".join(lines), rename)
    open(args.output, "w", encoding="utf-8", errors="surrogateescape").write(out)
    print(f"renamed {len(mapping)} names", file=sys.stderr)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the wide-tuple inputs of issue #28 (item 4) to a directory.

  wide_tuple_shape.txt     a tuple shape of N f32[4,8] elements (for `layout`)
  wide_tuple_module.hlo    an entry whose root is a tuple of N negates of N parameters
  wide_tuple_fusion.hlo    a fusion whose root is a tuple of N slices of one parameter

Usage: generate.py OUT_DIR [N]   (N defaults to 5000)
"""
import os
import sys


def shape_text(n):
    return "(" + ", ".join("f32[4,8]{1,0}" for _ in range(n)) + ")"


def module_text(n):
    lines = ["HloModule wide_tuple_module", "", "ENTRY main {"]
    for i in range(n):
        lines.append(f"  p{i} = f32[4,8]{{1,0}} parameter({i})")
    for i in range(n):
        lines.append(f"  n{i} = f32[4,8]{{1,0}} negate(p{i})")
    lines.append("  ROOT t = (" + ", ".join("f32[4,8]{1,0}" for _ in range(n)) + ") tuple(" +
                 ", ".join(f"n{i}" for i in range(n)) + ")")
    lines.append("}")
    return "\n".join(lines) + "\n"


def fusion_text(n):
    result = "(" + ", ".join("f32[1]{0}" for _ in range(n)) + ")"
    lines = ["HloModule wide_tuple_fusion", "", "fused {", f"  p = f32[{n}]{{0}} parameter(0)"]
    for i in range(n):
        lines.append(f"  s{i} = f32[1]{{0}} slice(p), slice={{[{i}:{i + 1}]}}")
    lines.append(f"  ROOT t = {result} tuple(" + ", ".join(f"s{i}" for i in range(n)) + ")")
    lines += ["}", "", "ENTRY main {", f"  a = f32[{n}]{{0}} parameter(0)",
              f"  ROOT f = {result} fusion(a), kind=kLoop, calls=fused", "}"]
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    os.makedirs(out, exist_ok=True)
    for name, text in (("wide_tuple_shape.txt", shape_text(n)), ("wide_tuple_module.hlo", module_text(n)),
                       ("wide_tuple_fusion.hlo", fusion_text(n))):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()

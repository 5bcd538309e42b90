#!/usr/bin/env python3
"""Writes a large valid module that once took quadratic time to parse:

  make_large_input.py unknown-opcodes FILE   3 modules of 65,535 distinct unknown opcodes each
                                             (each lookup searched the module's list: ~13 s)
  make_large_input.py one-line-computations FILE
                                             100,000 computations of one line each (each
                                             computation scanned to the end of the input: ~35 s)
"""
import sys


def unknown_opcodes():
    for m in range(3):
        yield f"HloModule m{m}\n\nENTRY e {{\n  p = f32[2] parameter(0)\n"
        yield "".join(f"  a{k} = f32[2] op{k}(p)\n" for k in range(65535))
        yield "  ROOT r = f32[2] negate(p)\n}\n\n// -----\n\n"


def one_line_computations():
    yield "HloModule m\n"
    yield "".join(f"c{k} {{ ROOT p = f32[2] parameter(0) }}\n" for k in range(100000))
    yield "ENTRY e { ROOT p = f32[2] parameter(0) }\n"


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    parts = {"unknown-opcodes": unknown_opcodes, "one-line-computations": one_line_computations}[kind]()
    with open(path, "w") as out:
        out.writelines(parts)

#!/usr/bin/env python3
"""Splits one fusion of an HLO text dump in two, by hand as it were: an extra kernel and a
round trip of one intermediate array through device memory.

The fused computation COMPUTATION is cut at its instruction AT: a first fusion computes AT
(and what it needs) and writes it; a second one reads it as a new parameter and computes the
rest (recomputing whatever else of the first part it also needs). The calling fusion becomes
the two. Names, metadata and layouts are kept; the intermediate takes AT's shape and layout
without any memory space (so in device memory).

Used by the test that checks that `hlo-index diff` reports such a split as a regression with
its cost (tests/CMakeLists.txt).

  python3 scripts/split_fusion.py IN.hlo OUT.hlo --computation NAME --at INSTRUCTION
"""
import argparse
import re
import sys

DEFINITION = re.compile(r"^(\s*)(ROOT\s+)?%([\w.\-]+)\s*=\s*(.*?)\s+([\w\-]+)\((.*)$")
REFERENCE = re.compile(r"%([\w.\-]+)")


def operands_text(rest):
    """The text between the opcode's parentheses (rest starts after the opening one)."""
    depth = 1
    for k, ch in enumerate(rest):
        depth += ch == "(" or ch == "{" or ch == "["
        depth -= ch == ")" or ch == "}" or ch == "]"
        if depth == 0:
            return rest[:k]
    return rest


def parse_body(lines):
    """(name, shape, opcode, operand names, line) per instruction line."""
    out = []
    for line in lines:
        m = DEFINITION.match(line)
        if not m:
            continue
        refs = REFERENCE.findall(operands_text(m.group(6)))
        out.append({"name": m.group(3), "shape": m.group(4), "opcode": m.group(5), "operands": refs, "line": line,
                    "root": bool(m.group(2))})
    return out


def closure(by_name, start, stop=None):
    seen, stack = set(), [start]
    while stack:
        n = stack.pop()
        if n in seen or n not in by_name or n == stop:
            continue
        seen.add(n)
        stack.extend(by_name[n]["operands"])
    return seen


def strip_memory_space(shape):
    return re.sub(r"S\(\d+\)", "", shape)


def body_text(name, instrs, keep, root, new_parameter=None):
    """A fused computation of the instructions in `keep`, parameters renumbered, `root` its ROOT."""
    params = [i for i in instrs if i["name"] in keep and i["opcode"] == "parameter"]
    number = {p["name"]: k for k, p in enumerate(params)}
    lines = []
    for i in instrs:
        if i["name"] not in keep:
            continue
        line = re.sub(r"^(\s*)ROOT\s+", r"\1", i["line"])
        if i["opcode"] == "parameter":
            line = re.sub(r"parameter\(\d+\)", f"parameter({number[i['name']]})", line)
        if i["name"] == root:
            line = re.sub(r"^(\s*)", r"\1ROOT ", line, count=1)
        if new_parameter:
            line = re.sub(r"%" + re.escape(new_parameter[2]) + r"(?![\w.\-])", "%" + new_parameter[0], line)
        lines.append(line)
    signature = [f"{p['name']}: {re.sub(r'{.*}', '', p['shape'])}" for p in params]
    if new_parameter:
        pname, pshape, _ = new_parameter
        lines.insert(0, f"  %{pname} = {pshape} parameter({len(params)})")
        signature.append(f"{pname}: {re.sub(r'{.*}', '', pshape)}")
    result = next(i["shape"] for i in instrs if i["name"] == root)
    header = f"%{name} ({', '.join(signature)}) -> {re.sub(r'{.*}', '', result)} {{"
    return "\n".join([header] + lines + ["}"]), [p["name"] for p in params]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--computation", required=True)
    parser.add_argument("--at", required=True)
    args = parser.parse_args()
    text = open(args.input, encoding="utf-8").read()
    start = re.search(r"^%" + re.escape(args.computation) + r" \(.*\{\n", text, re.M)
    if not start:
        sys.exit(f"no computation {args.computation}")
    end = text.index("\n}", start.end())
    instrs = parse_body(text[start.end():end].split("\n"))
    by_name = {i["name"]: i for i in instrs}
    root = next(i["name"] for i in instrs if i["root"])
    if args.at not in by_name:
        sys.exit(f"no instruction {args.at} in {args.computation}")
    first = closure(by_name, args.at)
    # The second part: what the root needs, AT read from the new parameter.
    second = closure(by_name, root, stop=args.at)
    original_params = [i["name"] for i in instrs if i["opcode"] == "parameter"]
    at_shape = strip_memory_space(by_name[args.at]["shape"])
    part = f"{args.at}.split"
    body_a, params_a = body_text(args.computation + ".split_a", instrs, first, args.at)
    body_b, params_b = body_text(args.computation + ".split_b", instrs, second, root, (part, at_shape, args.at))
    new_text = text[:start.start()] + body_a + "\n\n" + body_b + text[end + 2:]

    # The caller: one fusion becomes two.
    call = re.search(r"^(\s*)(ROOT\s+)?%([\w.\-]+) = (.*?) fusion\((.*?)\), (kind=\w+), calls=%" +
                     re.escape(args.computation) + r"(?=[,\s]|$)(.*)$", new_text, re.M)
    if not call:
        sys.exit(f"no fusion calls {args.computation}")
    indent, root_kw, name, shape, operands, kind, tail = call.groups()
    operand_list = [o.strip() for o in re.split(r",\s*(?![^{]*\})", operands) if o.strip()]
    by_param = dict(zip(original_params_sorted(instrs), operand_list))
    first_call = (f"{indent}%{name}.split = {at_shape} fusion({', '.join(by_param[p] for p in params_a)}), "
                  f"{kind}, calls=%{args.computation}.split_a")
    second_ops = [by_param[p] for p in params_b] + [f"%{name}.split"]
    second_call = (f"{indent}{root_kw or ''}%{name} = {shape} fusion({', '.join(second_ops)}), {kind}, "
                   f"calls=%{args.computation}.split_b{tail}")
    new_text = new_text[:call.start()] + first_call + "\n" + second_call + new_text[call.end():]
    open(args.output, "w", encoding="utf-8").write(new_text)
    print(f"split {name}: {len(params_a)} + {len(params_b) + 1} operands, intermediate {at_shape}", file=sys.stderr)


def original_params_sorted(instrs):
    """Parameter names in parameter-number order (the caller's operand order)."""
    params = [(int(re.search(r"parameter\((\d+)\)", i["line"]).group(1)), i["name"]) for i in instrs
              if i["opcode"] == "parameter"]
    return [n for _, n in sorted(params)]


if __name__ == "__main__":
    main()

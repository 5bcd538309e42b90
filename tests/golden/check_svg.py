#!/usr/bin/env python3
"""Parses every SVG of `hlo-index picture` as XML (xml.etree, no other
dependency): the golden files of testdata/picture/ (which the golden test
keeps equal to the binary's output) and one picture drawn now. Checks the
document's shape: an <svg> root in the SVG namespace with integer width,
height and viewBox, a title naming the instruction, every rectangle inside
the canvas, each heat-map cell with a tooltip, and the captions present.

Usage: check_svg.py HLO_INDEX_BINARY TESTDATA_DIR
"""
import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"


def check(text: str, name: str) -> list:
    problems = []
    root = ET.fromstring(text)
    if root.tag != SVG + "svg":
        return [f"{name}: root is {root.tag}, not svg"]
    width, height = int(root.get("width")), int(root.get("height"))
    if root.get("viewBox") != f"0 0 {width} {height}":
        problems.append(f"{name}: viewBox {root.get('viewBox')} does not match {width} x {height}")
    title = root.find(SVG + "title")
    if title is None or " reads operand " not in (title.text or ""):
        problems.append(f"{name}: no title naming the instruction and operand")
    rects = root.iter(SVG + "rect")
    cells = 0
    for r in rects:
        x, y = int(r.get("x", 0)), int(r.get("y", 0))
        w, h = int(r.get("width")), int(r.get("height"))
        if x < 0 or y < 0 or x + w > width or y + h > height:
            problems.append(f"{name}: rect at ({x}, {y}) size {w} x {h} outside {width} x {height}")
        tip = r.find(SVG + "title")
        if tip is not None and (": " in (tip.text or "")) and "read" in tip.text:
            cells += 1
    if cells == 0:
        problems.append(f"{name}: no cell with a tooltip")
    texts = " ".join(t.text or "" for t in root.iter(SVG + "text"))
    for needed in ("Which elements are read, and how often", "One thread group's reads", "reads per element"):
        if needed not in texts:
            problems.append(f"{name}: no text '{needed}'")
    return problems


def main() -> int:
    binary, testdata = sys.argv[1], sys.argv[2]
    problems, checked = [], 0
    for path in sorted(glob.glob(os.path.join(testdata, "picture", "*.svg"))):
        with open(path, encoding="utf-8") as f:
            problems += check(f.read(), os.path.basename(path))
        checked += 1
    drawn = subprocess.run([binary, "picture", os.path.join(testdata, "examples", "softmax.hlo"), "--instruction",
                            "softmax_fusion", "-o", "-"], capture_output=True, text=True)
    if drawn.returncode != 0:
        problems.append(f"hlo-index picture exited {drawn.returncode}: {drawn.stderr}")
    else:
        problems += check(drawn.stdout, "softmax_fusion (drawn now)")
        checked += 1
    for p in problems:
        print(p)
    print(f"check_svg: {checked} SVG documents parsed, {len(problems)} problems")
    return 1 if problems or checked < 2 else 0


if __name__ == "__main__":
    sys.exit(main())

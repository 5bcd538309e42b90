#!/usr/bin/env python3
"""Loads the page of `hlo-index report` in headless Chromium (Debian package
`chromium`): takes a screenshot and checks that it is a real rendering (the
window's size, many colours, a good share of non-white pixels), and dumps
the DOM after the page's script has sorted the table by name (`#sort=name`)
to check that the script ran and the rows are in order; opens a detail by
its link (`#m0d1`), takes a screenshot of it and checks that it is open;
checks that every link on the page goes to an element of it and that the
browser's console shows no error. Exits 77 (skipped) only when Chromium is
not installed or cannot start at all.

Usage: check_report_in_browser.py HLO_INDEX_BINARY TESTDATA_DIR OUTPUT_DIR
"""
import html
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                  "--disable-dev-shm-usage"]


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return ""


def run_browser(browser: str, args: list, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([browser] + CHROMIUM_FLAGS + args, capture_output=True, text=True, timeout=timeout)


def png_pixels(path: str):
    """Width, height and the RGB(A) rows of an 8-bit PNG, unfiltered."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unexpected PNG format: depth {depth}, colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, previous = zlib.decompress(idat), width * channels, [], bytearray(width * channels)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main() -> int:
    binary, testdata, outdir = sys.argv[1], sys.argv[2], sys.argv[3]
    browser = chromium()
    if not browser:
        print("SKIP: no chromium in PATH (install the Debian package `chromium`: bash scripts/setup.sh --test)")
        return SKIP
    try:
        probe = run_browser(browser, ["--dump-dom", "about:blank"], timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"SKIP: chromium cannot start here: {e}")
        return SKIP
    if probe.returncode != 0 or "<html" not in probe.stdout:
        print(f"SKIP: chromium cannot start here (exit {probe.returncode}): {probe.stderr.strip()[-400:]}")
        return SKIP

    os.makedirs(outdir, exist_ok=True)
    page = os.path.join(outdir, "report.html")
    shot = os.path.join(outdir, "report.png")
    inputs = [os.path.join(testdata, "picture", "pictures.hlo"), os.path.join(testdata, "lint", "add_transpose.hlo")]
    made = subprocess.run([binary, "report"] + inputs + ["-o", page], capture_output=True, text=True)
    if made.returncode != 0:
        print(f"FAIL: hlo-index report exited {made.returncode}: {made.stderr}")
        return 1
    url = "file://" + os.path.abspath(page)
    problems = []

    if os.path.exists(shot):
        os.remove(shot)
    taken = run_browser(browser, [f"--screenshot={shot}", "--window-size=1280,900", url])
    if not os.path.exists(shot):
        print(f"FAIL: no screenshot (chromium exit {taken.returncode}): {taken.stderr.strip()[-400:]}")
        return 1
    width, height, channels, rows = png_pixels(shot)
    if (width, height) != (1280, 900):
        problems.append(f"screenshot is {width} x {height}, not 1280 x 900")
    colours, ink = set(), 0
    for row in rows[::3]:
        for x in range(0, width * channels, channels * 3):
            pixel = row[x:x + 3]
            colours.add(pixel)
            ink += 1 if min(pixel) < 200 else 0
    sampled = len(rows[::3]) * len(range(0, width * channels, channels * 3))
    if len(colours) < 20:
        problems.append(f"screenshot has {len(colours)} colours: blank or unstyled")
    if ink < sampled // 50:
        problems.append(f"screenshot is nearly blank: {ink} of {sampled} sampled pixels are dark")
    print(f"screenshot {shot}: {width} x {height}, {len(colours)} colours, {100 * ink // sampled}% ink")

    dumped = run_browser(browser, ["--dump-dom", url + "#sort=name"])
    dom = dumped.stdout
    tables = re.findall(r'<table class="summary"([^>]*)>(.*?)</table>', dom, flags=re.S)
    if len(tables) != 2:
        problems.append(f"the DOM has {len(tables)} summary tables, not 2")
    for attributes, body in tables:
        if 'data-sorted="name ascending"' not in attributes:
            problems.append(f"the script did not sort the table by name: {attributes.strip()}")
        names = [html.unescape(n) for n in
                 re.findall(r'<td data-v="([^"]*)">(?:<a [^>]*>)?[^<]*(?:</a>)?</td></tr>', body)]
        if not names or names != sorted(names):
            problems.append(f"rows not sorted by name after the script ran: {names}")
    if tables:
        rows_first = re.findall(r"<tr>", tables[0][1].split("<tbody>", 1)[-1])
        if len(rows_first) != 4:
            problems.append(f"the first table has {len(rows_first)} rows, not the 4 fusions of pictures.hlo")
    written = open(page, encoding="utf-8").read()
    if dom.count("<svg") != written.count("<svg") or dom.count("<svg") < 3:
        problems.append(f"the DOM has {dom.count('<svg')} pictures, the page {written.count('<svg')} (at least 3)")
    if 'id="m0roofline"' not in dom or 'id="m1roofline"' not in dom:
        problems.append("a module has no roofline chart")
    ids = set(re.findall(r' id="([^"]*)"', dom))
    links = re.findall(r'href="#([^"]*)"', dom)
    broken = [link for link in links if link not in ids]
    if not links or broken:
        problems.append(f"{len(links)} links on the page, these go nowhere: {broken[:5]}")

    # A detail opened by its link, as a click on a row's name or a roofline dot does.
    detail_shot = os.path.join(outdir, "report_detail.png")
    if os.path.exists(detail_shot):
        os.remove(detail_shot)
    run_browser(browser, [f"--screenshot={detail_shot}", "--window-size=1280,2600", url + "#m0d1"])
    if not os.path.exists(detail_shot):
        problems.append("no screenshot of an opened detail")
    opened = run_browser(browser, ["--dump-dom", url + "#m0d1"]).stdout
    if not re.search(r'<details class="detail" id="m0d1" open', opened):
        problems.append("the link #m0d1 did not open its detail")
    if re.search(r'<details class="detail" id="m0d0" open', opened):
        problems.append("the link #m0d1 opened another detail too")

    # The console: no error from the page's script (Chromium logs console messages to stderr).
    logged = run_browser(browser, ["--enable-logging=stderr", "--v=0", "--dump-dom", url + "#m0d1"]).stderr
    errors = [line for line in logged.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    if errors:
        problems.append(f"console messages: {errors[:3]}")
    for p in problems:
        print("FAIL:", p)
    print(f"check_report_in_browser: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

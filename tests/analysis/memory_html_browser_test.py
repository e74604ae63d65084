#!/usr/bin/env python3
"""Real-browser test of `hlo-opt --memory-report --format=html`.

Writes the page for a small two-stage module, opens it in headless Chromium with no network,
and checks that
  - the DOM Chromium built holds the plot: an <svg> with <polyline> series that have points,
    one per stage plus the total; the five stacked category bands; and the heap drawing: buffer boxes with a height, and the
    layout table at the peak;
  - a screenshot is not blank: the PNG decodes, has more than one distinct colour, and shows
    pixels of the total's line colour (#1f77b4).

Usage: memory_html_browser_test.py HLO_OPT INPUT.hlo WORK_DIR
Exit status: 0 pass, 1 fail, 77 skipped (no Chromium; the reason is printed).
Only the Python standard library is used (the PNG is decoded with zlib).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

SKIP = 77
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--no-first-run",
                  "--disable-extensions", "--hide-scrollbars"]
LINE_COLOUR = (0x1F, 0x77, 0xB4)


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def find_chromium():
    for name in (os.environ.get("HLOSCOPE_CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run_chromium(chromium, args, work_dir):
    # A profile directory of our own, so parallel runs and the user's profile stay apart.
    profile = os.path.join(work_dir, "chromium-profile")
    cmd = [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=90)
    if result.returncode != 0:
        fail(f"{' '.join(cmd)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return result.stdout


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def decode_png(path):
    """Returns (width, height, channels, rows of bytes) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, bytearray(), None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    if header is None:
        fail("PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour_type)
    if depth != 8 or channels is None or interlace != 0:
        fail(f"unexpected PNG format: depth {depth}, colour type {colour_type}")
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
            elif kind == 4:
                upleft = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + paeth(left, up, upleft)) & 0xFF
        rows.append(line)
        prev = line
    return width, height, channels, rows


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    hlo_opt, hlo, work_dir = sys.argv[1:]
    chromium = find_chromium()
    if chromium is None:
        print("SKIP: no Chromium found (chromium, chromium-browser or $HLOSCOPE_CHROMIUM); "
              "scripts/test installs Debian's 'chromium' package")
        return SKIP
    os.makedirs(work_dir, exist_ok=True)
    page = os.path.join(work_dir, "memory.html")
    subprocess.run([hlo_opt, hlo, f"--memory-report={page}", "--format=html",
                    "--stage-by=attr:stage"], check=True)
    url = "file://" + os.path.abspath(page)

    dom = run_chromium(chromium, ["--dump-dom", url], work_dir)
    if "<svg" not in dom:
        fail("the DOM has no <svg>")
    series = re.findall(r'<polyline class="series"[^>]*points="([^"]*)"', dom)
    if len(series) != 3:  # the total and two stages
        fail(f"expected 3 plotted series, the DOM has {len(series)}")
    for points in series:
        if len(points.split()) < 2:
            fail(f"a series with fewer than 2 points: {points!r}")
    if "Memory report" not in dom:
        fail("the page title text is missing from the DOM")
    boxes = re.findall(r'<rect class="buffer"[^>]*height="([0-9.]+)"', dom)
    if not boxes or any(float(h) <= 0 for h in boxes):
        fail(f"the heap drawing has no buffer boxes with a height ({len(boxes)} boxes)")
    areas = re.findall(r'<polygon class="area"[^>]*points="([^"]*)"', dom)
    if len(areas) != 5:  # parameters, stashed and other activations, temporaries, outputs
        fail(f"expected 5 stacked category bands, the DOM has {len(areas)}")
    if '<table class="layout">' not in dom:
        fail("the heap layout table at the peak is missing from the DOM")

    shot = os.path.join(work_dir, "memory.png")
    if os.path.exists(shot):
        os.remove(shot)
    run_chromium(chromium, [f"--screenshot={shot}", "--window-size=1000,700", url], work_dir)
    if not os.path.exists(shot):
        fail("Chromium wrote no screenshot")
    width, height, channels, rows = decode_png(shot)
    colours, line_pixels = set(), 0
    for row in rows:
        for x in range(0, len(row), channels):
            pixel = tuple(row[x:x + 3])
            colours.add(pixel)
            if pixel == LINE_COLOUR:
                line_pixels += 1
    print(f"screenshot {width}x{height}: {len(colours)} distinct colours, "
          f"{line_pixels} pixels of the total's line")
    if len(colours) <= 1:
        fail("the screenshot is blank (one colour)")
    if line_pixels < 20:
        fail("the screenshot shows no plotted line")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

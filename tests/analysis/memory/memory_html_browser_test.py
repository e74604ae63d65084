#!/usr/bin/env python3
"""Real-browser test of `hlo-opt --memory-report --format=html`.

Writes the page for a 4-stage hlo-gen pipeline (one module per stage, 1f1b over 8
microbatches) and for a small module with stages named in an attribute, opens each in headless
Chromium with no network, and checks what Chromium drew:
  - from the DOM after layout, measured by a script the test adds to a copy of the page (the
    page's own inline script sorts and shows tooltips: memory_html_hover_test.py): the live-bytes polylines with points; the five stacked category
    bands with an area; the heap's buffer boxes with a height; the at-peak groups (one
    <details> per category, open, with a height, and per op_name scope, folded: opening one
    makes it taller); the per-stage activation bars with a width, and the ranks' table under
    the schedule with one row per rank;
  - the page of a small module with XLA's buffer assignment beside ours: XLA's temp heap from
    its trace and ours, each with its boxes drawn, and the table of values that differ;
  - a screenshot of the page itself: the PNG decodes and shows pixels of the total's line
    (#1f77b4), of the per-microbatch bars (#2ca02c), of the ranks' peak bars (#d62728) and of
    the at-peak share bars (#6a51a3).
The screenshot is kept in WORK_DIR (memory.png) to look at.

Usage: memory_html_browser_test.py HLO_OPT HLO_GEN CHROMIUM INPUT.hlo WORK_DIR
Exit status: 0 pass, 1 fail. Chromium is required (Debian's chromium package); there is no skip.
Only the Python standard library is used (the PNG is decoded with zlib).
"""
import html
import json
import os
import re
import struct
import subprocess
import sys
import zlib

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--no-first-run",
                  "--disable-extensions", "--hide-scrollbars"]
COLOURS = {
    "the total's line": (0x1F, 0x77, 0xB4),
    "the per-microbatch activation bars": (0x2C, 0xA0, 0x2C),
    "the ranks' peak bars": (0xD6, 0x27, 0x28),
    "the at-peak share bars": (0x6A, 0x51, 0xA3),
}

# Measures what was drawn, after layout, into <pre id="measured"> (JSON); appended to a copy.
MEASURE = r"""
<script>
(function() {
  const all = s => Array.from(document.querySelectorAll(s));
  const size = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
  const m = {
    series: all('polyline.series').map(e => e.points.numberOfItems),
    series_lines: all('polyline.series').map(e => ({
      title: e.querySelector('title').textContent, points: e.points.numberOfItems,
      size: size(e), dashed: e.getAttribute('stroke-dasharray') !== null,
      color: e.getAttribute('stroke')})),
    areas: all('polygon.area').map(size),
    buffers: all('rect.buffer').map(size),
    layout_rows: all('table.layout tr').length,
    categories: all('details.peak-category').map(e => ({
      open: e.open, size: size(e), summary: e.querySelector('summary').textContent})),
    groups: all('details.peak-group').map(e => {
      const closed = size(e)[1];
      e.open = true;
      const opened = size(e)[1];
      e.open = false;
      return {closed: closed, opened: opened,
              summary: e.querySelector('summary').textContent};
    }),
    stage_bars: all('rect.stage-bar').map(e => ({
      size: size(e), title: e.querySelector('title').textContent})),
    pipeline_rows: all('table.pipeline tr').map(e => e.textContent),
    xla_heap: all('#xla-heap rect.buffer').map(size),
    our_heap: all('#our-heap rect.buffer').map(size),
    our_heap_caption: all('#our-heap').map(e =>
        e.parentElement.querySelector('figcaption').textContent),
    xla_bars: all('rect.allocation-bar.xla').map(size),
    our_bars: all('rect.allocation-bar.ours').map(size),
    xla_differences: all('table.xla-differences tr').length,
  };
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(m);
  document.body.appendChild(pre);
})();
</script>
"""


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


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
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    pos, idat, header = 8, bytearray(), None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    check(header is not None, "PNG without IHDR")
    width, height, depth, colour_type, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour_type)
    check(depth == 8 and channels is not None and interlace == 0,
          f"unexpected PNG format: depth {depth}, colour type {colour_type}")
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 2:  # the common case, done a row at a time
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind != 0:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                up = prev[i]
                if kind == 1:
                    line[i] = (line[i] + left) & 0xFF
                elif kind == 3:
                    line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
                elif kind == 4:
                    upleft = prev[i - channels] if i >= channels else 0
                    line[i] = (line[i] + paeth(left, up, upleft)) & 0xFF
        rows.append(line)
        prev = line
    return width, height, channels, rows


def measure(chromium, page, work_dir):
    """The page with MEASURE appended, run in Chromium: the JSON the script wrote."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    # Its own script (sorting, tooltips: memory_html_hover_test.py) is inline; nothing is fetched.
    check(re.search(r"<script[^>]*\bsrc=", text) is None, "the report page loads a script file")
    check(re.search(r"(src|href)=\"(https?:)?//", text) is None,
          "the report page links to the network")
    probe = page.replace(".html", ".measure.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(text.replace("</body>", MEASURE + "</body>"))
    dom = run_chromium(chromium, ["--dump-dom", "file://" + os.path.abspath(probe)], work_dir)
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, re.S)
    check(found is not None, "the measuring script wrote nothing (did the page load?)")
    return json.loads(html.unescape(found.group(1)))


def check_pipeline_page(m):
    check(len(m["series"]) == 4, f"expected 4 plotted series (one per module), got {m['series']}")
    check(all(n >= 2 for n in m["series"]), f"a series with fewer than 2 points: {m['series']}")
    check(len(m["areas"]) == 4 * 5, f"expected 5 stacked category bands per module, "
          f"the page has {len(m['areas'])}")
    check(any(w > 0 and h > 0 for w, h in m["areas"]), "no category band has an area")
    check(m["buffers"] and all(h > 0 for _, h in m["buffers"]),
          f"the heap drawing has no buffer boxes with a height ({len(m['buffers'])} boxes)")
    check(m["layout_rows"] > 1, "the heap layout table at the peak is empty")
    cats = m["categories"]
    check(cats, "no at-peak category groups")
    check(all(c["open"] and c["size"][1] > 0 for c in cats),
          f"an at-peak category group is closed or not drawn: {cats}")
    names = {re.match(r"\s*([a-z ]+):", c["summary"]).group(1) for c in cats}
    check({"parameters", "stashed activations"} <= names,
          f"the at-peak groups lack parameters or stashed activations: {sorted(names)}")
    groups = m["groups"]
    check(groups, "no op_name scope groups at the peak")
    check(all(g["opened"] > g["closed"] > 0 for g in groups),
          f"a scope group does not unfold: {groups[:3]}")
    # 4 stages x (per microbatch, peak in the module, peak of its rank under 1f1b)
    bars = m["stage_bars"]
    check(len(bars) == 12, f"expected 12 per-stage bars, got {len(bars)}")
    check(all(b["size"][0] > 0 and b["size"][1] > 0 for b in bars), "a stage bar is not drawn")
    per_mb = [b for b in bars if b["title"].startswith("per microbatch")]
    check(len(per_mb) == 4 and all(b["title"].endswith(": 40960 bytes") for b in per_mb),
          f"per-microbatch bars should all be 40960 bytes: {[b['title'] for b in per_mb]}")
    ranks = [b for b in bars if b["title"].startswith("peak of rank")]
    # 1f1b: rank r holds 4 - r microbatches of 40960 bytes at its peak.
    want = [f"peak of rank {r} under 1f1b ({4 - r} in flight): {40960 * (4 - r)} bytes"
            for r in range(4)]
    check([b["title"] for b in ranks] == want, f"rank peaks {[b['title'] for b in ranks]}")
    check(ranks[0]["size"][0] > ranks[3]["size"][0] > per_mb[0]["size"][0] * 0.99,
          "the rank peak bars are not drawn to scale")
    check(len(m["pipeline_rows"]) == 5, f"the ranks' table: {m['pipeline_rows']}")


def check_screenshot(chromium, page, work_dir):
    shot = os.path.join(work_dir, "memory.png")
    if os.path.exists(shot):
        os.remove(shot)
    run_chromium(chromium, [f"--screenshot={shot}", "--window-size=1100,6000",
                            "--force-device-scale-factor=0.5",
                            "file://" + os.path.abspath(page)], work_dir)
    check(os.path.exists(shot), "Chromium wrote no screenshot")
    width, height, channels, rows = decode_png(shot)
    counts = {name: 0 for name in COLOURS}
    wanted = {colour: name for name, colour in COLOURS.items()}
    distinct = set()
    for row in rows:
        for x in range(0, len(row), channels):
            pixel = bytes(row[x:x + 3])
            distinct.add(pixel)
            name = wanted.get(tuple(pixel))
            if name is not None:
                counts[name] += 1
    print(f"screenshot {shot} {width}x{height}: {len(distinct)} distinct colours; "
          + ", ".join(f"{n} pixels of {name}" for name, n in counts.items()))
    check(len(distinct) > 1, "the screenshot is blank (one colour)")
    for name, n in counts.items():
        check(n >= 20, f"the screenshot shows nothing of {name}")


def main():
    if len(sys.argv) != 6:
        print(__doc__)
        return 2
    hlo_opt, hlo_gen, chromium, small_hlo, work_dir = sys.argv[1:]
    check(os.access(chromium, os.X_OK),
          f"no Chromium at {chromium}: install Debian's 'chromium' package")
    os.makedirs(work_dir, exist_ok=True)

    # A 4-stage pipeline, one module per stage, with a stash per stage (40960 bytes each).
    stages = os.path.join(work_dir, "stages.hlo")
    with open(stages, "w", encoding="utf-8") as f:
        subprocess.run([hlo_gen, "--layout=mpmd", "--layers=8", "--stages=4", "--hidden=64",
                        "--heads=4", "--seq=16", "--microbatch=2", "--microbatches=8"],
                       stdout=f, check=True)
    page = os.path.join(work_dir, "memory.html")
    subprocess.run([hlo_opt, stages, "--split-input-file", f"--memory-report={page}",
                    "--format=html", "--stage-by=module", "--pipeline-schedule=1f1b",
                    "--microbatches=8"], check=True)
    check_pipeline_page(measure(chromium, page, work_dir))
    check_screenshot(chromium, page, work_dir)

    # Stages named inside one module: a line per stage beside the total.
    small = os.path.join(work_dir, "small.html")
    subprocess.run([hlo_opt, small_hlo, f"--memory-report={small}", "--format=html",
                    "--stage-by=attr:stage"], check=True)
    m = measure(chromium, small, work_dir)
    check(len(m["series"]) == 3, f"expected the total and 2 stage lines, got {m['series']}")
    check(len(m["areas"]) == 5, f"expected 5 category bands, got {len(m['areas'])}")
    check(m["categories"] and m["groups"], "the small page has no at-peak groups")

    # XLA's buffer assignment beside ours (issue 28): XLA's temp heap from its trace and ours
    # (b, a and m on each side), and the values that differ.
    xla_dir = os.path.join(os.path.dirname(small_hlo), "xla")
    beside = os.path.join(work_dir, "xla.html")
    subprocess.run([hlo_opt, os.path.join(xla_dir, "small.hlo"), f"--memory-report={beside}",
                    "--format=html",
                    "--xla-buffer-assignment=" + os.path.join(xla_dir, "small.hlo.pb")],
                   check=True)
    m = measure(chromium, beside, work_dir)
    check(len(m["xla_heap"]) == 3 and all(w > 0 and h > 0 for w, h in m["xla_heap"]),
          f"XLA's heap should show 3 boxes with an area: {m['xla_heap']}")
    # Ours is the model of XLA's assignment (--memory-model=xla, issue 29): it puts b, a and m
    # into the output's allocation, where this hand-made fixture has them in a temp allocation,
    # so its temp heap is empty, and said to be; the allocation bars show XLA's 5 and the
    # model's 4 (its output allocation, beside XLA's output and temp, drawn once).
    check(m["our_heap"] == [] and m["our_heap_caption"] == [
              "ours: the xla model has no preallocated temp allocation"],
          f"the model's temp heap should be empty and say so: {m['our_heap']}, "
          f"{m['our_heap_caption']}")
    check(len(m["xla_bars"]) == 5 and len(m["our_bars"]) == 4
          and all(w > 0 and h > 0 for w, h in m["xla_bars"] + m["our_bars"]),
          f"expected 5 bars of XLA's and 4 of ours with an area: {m['xla_bars']}, {m['our_bars']}")
    check(m["xla_differences"] == 4, f"expected 3 differing values, {m['xla_differences']} rows")
    # Under --memory-model=liveness ours is the profile's simulated temp heap: b, a and m.
    liveness = os.path.join(work_dir, "xla-liveness.html")
    subprocess.run([hlo_opt, os.path.join(xla_dir, "small.hlo"), f"--memory-report={liveness}",
                    "--format=html", "--memory-model=liveness",
                    "--xla-buffer-assignment=" + os.path.join(xla_dir, "small.hlo.pb")],
                   check=True)
    m = measure(chromium, liveness, work_dir)
    check(len(m["our_heap"]) == 3 and all(w > 0 and h > 0 for w, h in m["our_heap"]),
          f"our temp heap should show 3 boxes with an area: {m['our_heap']}")
    check(m["our_heap_caption"] == ["ours: the liveness profile's preallocated temp (simulated)"],
          f"the liveness heap's caption: {m['our_heap_caption']}")

    # A stage with host memory (issue 31): the module plot draws its device part and its host
    # part (dashed, the same colour) as two laid-out lines, as the stage table splits them; a
    # stage without host buffers has its device line alone.
    offloaded_hlo = os.path.join(os.path.dirname(small_hlo), "..", "report_ux", "Inputs",
                                 "two_stages_one_offloaded.hlo")
    offloaded = os.path.join(work_dir, "offloaded.html")
    subprocess.run([hlo_opt, offloaded_hlo, f"--memory-report={offloaded}", "--format=html",
                    "--memory-model=liveness", r"--stage-regex=/stage_(\d+)/"], check=True)
    m = measure(chromium, offloaded, work_dir)
    lines = {s["title"]: s for s in m["series_lines"]}
    for title in ("stage 0: device", "stage 0: host (offloaded, S(5))", "stage 1: device"):
        check(title in lines, f"no line '{title}' in {sorted(lines)}")
    check("stage 1: host (offloaded, S(5))" not in lines, "stage 1 holds no host memory")
    check(not any("(device and host)" in t for t in lines), f"a joint stage line: {sorted(lines)}")
    device, host = lines.get("stage 0: device"), lines.get("stage 0: host (offloaded, S(5))")
    if device and host:
        check(host["dashed"] and not device["dashed"], "stage 0's host line is not the dashed one")
        check(host["color"] == device["color"], "stage 0's two lines differ in colour")
        check(all(x["points"] >= 2 and x["size"][0] > 0 for x in (device, host)),
              f"stage 0's lines are not laid out: {device} {host}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

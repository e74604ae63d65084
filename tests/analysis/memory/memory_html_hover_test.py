#!/usr/bin/env python3
"""Hovering and sorting in the memory report's HTML page, in a real browser (issue 33).

The page of `hlo-opt --memory-report --format=html` has a table of the heap's buffers, sortable
by size and by lifetime, and a tooltip per buffer; hovering a buffer in the table or in the heap
drawing highlights its box. memory_html_browser_test.py checks what Chromium draws without
interaction; this test drives headless Chromium through chromedriver, over the W3C WebDriver
HTTP protocol (Python's urllib only), on the pages of three corpus modules:
  - a pipelined one (Pax GPT after SPMD partitioning: stash loops, stage sections, source lines);
  - a plain one with TPU tiled layouts (no stage sections; padded beside unpadded bytes);
  - an XLA dump (.hlo.pb) with XLA's own buffer assignment beside ours.
On the XLA dump's page the side-by-side draws our model of XLA's assignment (issue 29): its
allocations as bars beside XLA's and its temp heap beside XLA's, every bar and box laid out with
an area. Two more pages check the parts issue 33 added, drawn and without script errors: the
device and the host apart (Llama-3-8B with activation offloading, with a memory limit), per
module and per pipeline stage, and the breakdown of a peak inside a callee (MaxText's train step,
whose peak is inside a call); and the per-stage split of a small module of two stages, one of
them offloading, whose other stage is over the limit (STAGE_SPLIT_HLO, worked by hand in
testdata/analysis/memory/report_ux/stage_host_split.test).
On each page: no script errors in the browser log; the heap's boxes and the table's rows are
one per buffer; pointer moves (WebDriver Actions) over a box show the tooltip with every field
(buffer, bytes, shape, op, op_name, source, live [start, end], lifetime) and highlight the box
(class and computed style) and its row; over a table row, the same for that row's box; the sort
buttons order the rows by lifetime and by size (both directions). A screenshot of each page
while a tooltip shows is saved in WORK_DIR (hover-NAME.png) and must show the tooltip's colour;
so is one of each per-stage device/host drawing (stages-host.png, stage-split.png), which must
show its device bars.

Usage: memory_html_hover_test.py HLO_OPT CHROMIUM CHROMEDRIVER CORPUS_DIR WORK_DIR STAGE_SPLIT_HLO
Exit status: 0 pass, 1 fail. Chromium and chromedriver are required (Debian's chromium and
chromium-driver packages); there is no skip.
"""
import base64
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memory_html_browser_test import decode_png  # noqa: E402  (the same directory)

PIPELINED = "Tixxx_xla__collective_pipeliner_test_h100bug_pax_gpt.hlo"
PLAIN = "openxla_xla__xla_tools_hlo_isolation_hlo_isolation_test_base_test.cc__TestOutputIsReduce.hlo"
XLA_DUMP = ("xla_dumps/NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003."
            "jit__unnamed_wrapped_function_.sm_9.0_gpu_after_optimizations.hlo.pb")
HOST = "openxla_xla__xla_tools_benchmarks_hlo_hlo_llama3_8b_bf16_activation_offloading_1x8.hlo"
CALLEE = "openxla_xla__xla_tools_benchmarks_hlo_nv_maxtext_1n1g_jit_train_step_before_optimization.hlo"
TOOLTIP_FIELDS = ["buffer", "bytes", "shape", "op", "op_name", "source", "live", "lifetime"]
TOOLTIP_COLOUR = (0xFF, 0xFB, 0xE6)  # #fffbe6, the tooltip's background


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class WebDriver:
    """The few W3C WebDriver commands the test needs, over HTTP with urllib."""

    def __init__(self, chromedriver, chromium, work_dir):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(os.path.join(work_dir, "chromedriver.log"), "w")
        self.process = subprocess.Popen([chromedriver, f"--port={self.port}"],
                                        stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 30
        while True:
            try:
                if self.request("GET", "/status")["value"].get("ready"):
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            check(self.process.poll() is None and time.time() < deadline,
                  f"chromedriver did not start (see {self.log.name})")
            time.sleep(0.2)
        profile = os.path.join(work_dir, "chromium-profile")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-background-networking", "--no-first-run",
                         "--disable-extensions", "--window-size=1280,1000",
                         f"--user-data-dir={profile}"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.session = self.request("POST", "/session", caps)["value"]["sessionId"]

    def request(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as f:
                return json.loads(f.read())
        except urllib.error.HTTPError as e:
            fail(f"WebDriver {method} {path}: {e.code} {e.read()[:500]!r}")

    def command(self, method, path, body=None):
        return self.request(method, f"/session/{self.session}{path}", body)["value"]

    def run(self, script, *args):
        return self.command("POST", "/execute/sync", {"script": script, "args": list(args)})

    def element(self, css):
        found = self.command("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def hover(self, element_id):
        """A pointer move to the element's centre (WebDriver Actions), as a mouse would."""
        origin = {"element-6066-11e4-a52e-4f735466cecf": element_id}
        self.command("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "origin": origin,
                         "x": 0, "y": 0}]}]})

    def click(self, element_id):
        self.command("POST", f"/element/{element_id}/click", {})

    def browser_log(self):
        return self.command("POST", "/se/log", {"type": "browser"})

    def close(self):
        try:
            self.request("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait(timeout=30)
            self.log.close()


# Scrolls the largest box that the pointer can reach (nothing drawn over its centre) into view;
# returns its data-buffer, or the first such box whose table row matches `want` (a regular
# expression on the row's text).
PICK_BOX = r"""
const want = arguments[0] ? new RegExp(arguments[0]) : null;
const boxes = Array.from(document.querySelectorAll('svg.heap rect.buffer[data-buffer]'));
const area = e => { const r = e.getBoundingClientRect(); return r.width * r.height; };
boxes.sort((a, b) => area(b) - area(a));
for (const box of boxes) {
  const id = box.getAttribute('data-buffer');
  const row = document.querySelector('tr.buffer-row[data-buffer="' + id + '"]');
  if (want && !(row && want.test(row.textContent))) continue;
  box.scrollIntoView({block: 'center', inline: 'center'});
  const r = box.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) continue;
  if (document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === box) return id;
}
return null;
"""

# What the hover left: the tooltip's lines, and each element of the buffer with its class and
# computed style.
HOVER_STATE = r"""
const id = arguments[0];
const tip = document.getElementById('tooltip');
const box = document.querySelector('svg.heap rect.buffer[data-buffer="' + id + '"]');
const row = document.querySelector('tr.buffer-row[data-buffer="' + id + '"]');
const others = document.querySelectorAll('.highlight:not([data-buffer="' + id + '"])').length;
const style = getComputedStyle(box);
const t = tip.getBoundingClientRect();
return {
  hidden: tip.hidden,
  lines: Array.from(tip.children).map(e => e.textContent),
  tip_box: [t.x, t.y, t.width, t.height],
  viewport: [window.innerWidth, window.innerHeight],
  box_class: box.getAttribute('class'),
  box_stroke_width: style.strokeWidth,
  box_fill_opacity: style.fillOpacity,
  row_class: row ? row.getAttribute('class') : null,
  row_text: row ? Array.from(row.cells).map(c => c.textContent) : null,
  others_highlighted: others,
};
"""

LAYOUT = r"""
const all = s => Array.from(document.querySelectorAll(s));
return {
  boxes: all('svg.heap rect.buffer[data-buffer]').length,
  rows: all('table.buffers tr.buffer-row').length,
  box_ids: all('svg.heap rect.buffer[data-buffer]').map(e => e.getAttribute('data-buffer')).sort(),
  row_ids: all('table.buffers tr.buffer-row').map(e => e.getAttribute('data-buffer')).sort(),
  stage_tables: all('caption').filter(c => /^stages/.test(c.textContent)).length,
  stage_bars: all('svg.stage-activations').length,
  titles_left: all('svg.heap rect.buffer[data-buffer] > title').length,
  xla_heap: all('#xla-heap rect.buffer').length,
  scripts: all('script').map(s => s.src),
  tooltip: !!document.getElementById('tooltip'),
};
"""

# The parts beyond the entry's buffers, as laid out: the XLA side-by-side's allocation bars and
# both temp heaps (issue 29), the device/host plot and the callee breakdown (issue 33).
PARTS = r"""
const all = s => Array.from(document.querySelectorAll(s));
const area = e => { const r = e.getBoundingClientRect(); return r.width * r.height; };
const text = s => { const e = document.querySelector(s); return e ? e.textContent : null; };
const text_of = (r, s) => { const e = r.querySelector(s); return e ? e.textContent : null; };
return {
  ours_model: text('p.ours-model'),
  xla_bars: all('#xla-allocation-bars rect.allocation-bar.xla').map(area),
  our_bars: all('#xla-allocation-bars rect.allocation-bar.ours').map(area),
  bars_again: all('#xla-allocation-bars text.allocation-again').map(e => e.textContent),
  xla_heap: all('#xla-heap rect.buffer').map(area),
  our_heap: all('#our-heap rect.buffer').map(area),
  our_heap_caption: text('#our-heap') === null ? null
      : document.getElementById('our-heap').parentElement.querySelector('figcaption').textContent,
  host_plots: all('svg.host-memory').length,
  host_lines: all('svg.host-memory polyline.series').map(e =>
      [e.querySelector('title').textContent, area(e)]),
  host_limit: all('svg.host-memory line.memory-limit').length,
  host_peaks: text('p.host-peaks'),
  host_limit_title: all('svg.host-memory line.memory-limit > title').map(e => e.textContent),
  stage_plots: all('svg.stage-host-memory').length,
  stage_bars: all('svg.stage-host-memory rect.stage-device, svg.stage-host-memory rect.stage-host')
      .map(e => { const r = e.getBoundingClientRect();
                  return {stage: e.getAttribute('data-stage'),
                          kind: e.classList.contains('stage-device') ? 'device' : 'host',
                          over: e.classList.contains('over'), right: r.right, width: r.width,
                          height: r.height}; }),
  stage_limit: all('svg.stage-host-memory line.memory-limit').map(e => {
      const r = e.getBoundingClientRect();
      return {x: r.x + r.width / 2, height: r.height,
              title: e.querySelector('title').textContent}; }),
  stage_rows: all('table.stages tr[data-stage]').map(r => ({
      stage: r.getAttribute('data-stage'),
      device: text_of(r, 'td.device-bytes'), host: text_of(r, 'td.host-bytes'),
      verdict: text_of(r, 'td.verdict'), height: r.getBoundingClientRect().height})),
  callee_sections: all('div.callee-peaks details.callee-peak').map(e => ({
      open: e.open, summary: e.querySelector('summary').textContent,
      rows: e.querySelector('table.callee-buffers').rows.length - 1,
      height: e.querySelector('table.callee-buffers').getBoundingClientRect().height})),
};
"""

ROW_KEYS = r"""
const table = document.querySelector('table.buffers');
return {sort: table.getAttribute('data-sort'),
        rows: Array.from(table.tBodies[0].rows).map(r => [
          Number(r.getAttribute('data-bytes')), Number(r.getAttribute('data-lifetime'))])};
"""


def check_tooltip(state, page, where):
    check(not state["hidden"], f"{page}: hovering {where} left the tooltip hidden")
    names = [line.split(":", 1)[0] for line in state["lines"]]
    for field in TOOLTIP_FIELDS:
        check(field in names, f"{page}: the tooltip of {where} lacks '{field}': {state['lines']}")
    fields = dict(line.split(": ", 1) for line in state["lines"])
    check(re.fullmatch(r"\d+ \(\d+(\.\d)? (B|KiB|MiB|GiB|TiB)\)", fields["bytes"]),
          f"{page}: bytes not as 'N (human units)': {fields['bytes']!r}")
    check(re.fullmatch(r"\[\d+, \d+\]", fields["live"]),
          f"{page}: live not as '[start, end]': {fields['live']!r}")
    check(re.fullmatch(r"\w+\[[^\]]*\].*", fields["shape"]),
          f"{page}: the shape is not a shape: {fields['shape']!r}")
    check("highlight" in state["box_class"].split(),
          f"{page}: hovering {where} did not mark its box: class {state['box_class']!r}")
    check(state["box_stroke_width"] == "2px" and state["box_fill_opacity"] == "1",
          f"{page}: the highlighted box is not drawn highlighted: stroke-width "
          f"{state['box_stroke_width']}, fill-opacity {state['box_fill_opacity']}")
    check(state["row_class"] is not None and "highlight" in state["row_class"].split(),
          f"{page}: hovering {where} did not mark its table row: {state['row_class']!r}")
    check(state["others_highlighted"] == 0,
          f"{page}: {state['others_highlighted']} other elements stay highlighted")
    x, y, w, h = state["tip_box"]
    vw, vh = state["viewport"]
    check(w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= vw + 1 and y + h <= vh + 1,
          f"{page}: the tooltip {state['tip_box']} is not inside the viewport {vw}x{vh}")
    return fields


def check_sorted(driver, page):
    buttons = 'button.sort[data-table="buffers-0"]'
    rows = driver.run(ROW_KEYS)
    check(rows["sort"] == "bytes-desc", f"{page}: the table does not open sorted by size")
    by_size = [b for b, _ in rows["rows"]]
    check(by_size == sorted(by_size, reverse=True), f"{page}: rows not largest first: {by_size[:10]}")
    driver.click(driver.element(f'{buttons}[data-key="lifetime"]'))
    rows = driver.run(ROW_KEYS)
    lifetimes = [life for _, life in rows["rows"]]
    check(rows["sort"] == "lifetime-desc" and lifetimes == sorted(lifetimes, reverse=True),
          f"{page}: sorting by lifetime gave {rows['sort']}: {lifetimes[:10]}")
    check(lifetimes != by_size, f"{page}: lifetime order is no different from size order")
    driver.click(driver.element(f'{buttons}[data-key="bytes"]'))
    rows = driver.run(ROW_KEYS)
    check(rows["sort"] == "bytes-desc" and [b for b, _ in rows["rows"]] == by_size,
          f"{page}: sorting by size again gave {rows['sort']}")
    driver.click(driver.element(f'{buttons}[data-key="bytes"]'))
    rows = driver.run(ROW_KEYS)
    ascending = [b for b, _ in rows["rows"]]
    check(rows["sort"] == "bytes-asc" and ascending == sorted(by_size),
          f"{page}: a second click on size did not reverse the order: {ascending[:10]}")
    print(f"{page}: {len(by_size)} rows sort by size (both ways) and by lifetime")


def count_colour(png, colour):
    width, height, channels, rows = decode_png(png)
    n = 0
    for row in rows:
        for x in range(0, width * channels, channels):
            if tuple(row[x:x + 3]) == colour:
                n += 1
    return n


def check_self_contained(page_path, name):
    with open(page_path, encoding="utf-8") as f:
        text = f.read()
    # One self-contained file: nothing fetched (the SVG namespace is a name, not a fetch).
    check(re.search(r"\b(src|href)=|url\(|@import", text) is None,
          f"{name}: the page refers to another file or URL")
    check(re.search(r"https?://(?!www\.w3\.org/2000/svg\")", text) is None,
          f"{name}: the page names a URL")


def check_page(driver, page_path, name, work_dir, expect):
    check_self_contained(page_path, name)
    driver.command("POST", "/url", {"url": "file://" + os.path.abspath(page_path)})
    layout = driver.run(LAYOUT)
    check(layout["tooltip"] and layout["scripts"] == [""],
          f"{name}: expected one inline script and a tooltip element: {layout['scripts']}")
    check(layout["boxes"] > 0 and layout["box_ids"] == layout["row_ids"],
          f"{name}: {layout['boxes']} boxes and {layout['rows']} table rows do not match")
    check(layout["titles_left"] == 0, f"{name}: the browser's own tooltips were not replaced")
    if expect == "stages":
        check(layout["stage_tables"] == 1 and layout["stage_bars"] == 1,
              f"{name}: a pipelined module without its stage sections: {layout}")
    else:
        check(layout["stage_tables"] == 0 and layout["stage_bars"] == 0,
              f"{name}: a module without pipeline stages has stage sections")
    if expect == "xla":
        check(layout["xla_heap"] > 0, f"{name}: XLA's heap is not drawn beside ours")
        parts = driver.run(PARTS)
        check(parts["ours_model"] and parts["ours_model"].startswith("ours: the xla model"),
              f"{name}: ours is not said to be the xla model: {parts['ours_model']!r}")
        # The model's 40 allocations, each beside XLA's of the same index (the model takes the
        # buffers in XLA's order): none is drawn twice or named again.
        check(len(parts["xla_bars"]) == 40 and len(parts["our_bars"]) == 40
              and all(a > 0 for a in parts["xla_bars"] + parts["our_bars"]),
              f"{name}: expected XLA's 40 allocations and the model's 40 as bars with an area: "
              f"{len(parts['xla_bars'])}, {len(parts['our_bars'])}")
        check(parts["bars_again"] == [],
              f"{name}: a model allocation is named again beside a second of XLA's: "
              f"{parts['bars_again']}")
        check(len(parts["our_heap"]) == 85 and all(a > 0 for a in parts["our_heap"]),
              f"{name}: the model's temp heap should show its 85 values with an area: "
              f"{len(parts['our_heap'])}")
        check(parts["our_heap_caption"]
              == "ours: the xla model's preallocated temp (7560 bytes, 7.4 KiB)",
              f"{name}: our heap's caption: {parts['our_heap_caption']!r}")
        print(f"{name}: {len(parts['xla_bars'])} + {len(parts['our_bars'])} allocation bars, "
              f"{len(parts['xla_heap'])} + {len(parts['our_heap'])} heap boxes")

    # A box of the heap drawing: its tooltip and highlight.
    box_id = driver.run(PICK_BOX, "")
    check(box_id is not None, f"{name}: no box of the heap drawing can be reached by the pointer")
    driver.hover(driver.element(f'svg.heap rect.buffer[data-buffer="{box_id}"]'))
    state = driver.run(HOVER_STATE, box_id)
    fields = check_tooltip(state, name, f"box {box_id}")
    check(fields["buffer"] == state["row_text"][0],
          f"{name}: the tooltip names {fields['buffer']}, the row {state['row_text'][0]}")
    print(f"{name}: box {box_id}: " + "; ".join(state["lines"]))
    shot = os.path.join(work_dir, f"hover-{expect}.png")
    with open(shot, "wb") as f:
        f.write(base64.b64decode(driver.command("GET", "/screenshot")))
    pixels = count_colour(shot, TOOLTIP_COLOUR)
    print(f"{name}: screenshot {shot}: {pixels} pixels of the tooltip")
    check(pixels >= 500, f"{name}: the screenshot shows no tooltip ({pixels} pixels of it)")

    # Moving away hides it and unmarks the box.
    driver.hover(driver.element("h1"))
    state = driver.run(HOVER_STATE, box_id)
    check(state["hidden"] and "highlight" not in state["box_class"].split(),
          f"{name}: leaving the box left the tooltip or the highlight: {state}")

    # A row of the table: the same for its box.
    row_id = driver.run(
        "const r = document.querySelectorAll('table.buffers tr.buffer-row');"
        "const row = r[Math.min(2, r.length - 1)];"
        "row.scrollIntoView({block: 'center'}); return row.getAttribute('data-buffer');")
    driver.hover(driver.element(f'tr.buffer-row[data-buffer="{row_id}"] td[data-field="shape"]'))
    state = driver.run(HOVER_STATE, row_id)
    check_tooltip(state, name, f"table row {row_id}")
    driver.hover(driver.element("h1"))

    if expect == "plain":
        # A padded buffer says both sizes.
        padded = driver.run(PICK_BOX, "the tiled layout pads")
        check(padded is not None, f"{name}: no reachable box of a padded buffer")
        driver.hover(driver.element(f'svg.heap rect.buffer[data-buffer="{padded}"]'))
        state = driver.run(HOVER_STATE, padded)
        fields = check_tooltip(state, name, f"padded box {padded}")
        check("unpadded" in fields and "the tiled layout pads" in fields["unpadded"]
              and re.search(r":T\(", fields["shape"]),
              f"{name}: a tiled buffer's tooltip does not give the unpadded size: {state['lines']}")
        print(f"{name}: padded box {padded}: bytes {fields['bytes']}; unpadded {fields['unpadded']}")
        driver.hover(driver.element("h1"))
    if expect == "stages":
        # Source lines, where the metadata has them, as file:line.
        sourced = driver.run(PICK_BOX, r"\.py:\d+")
        check(sourced is not None, f"{name}: no reachable box of a buffer with a source line")
        driver.hover(driver.element(f'svg.heap rect.buffer[data-buffer="{sourced}"]'))
        fields = check_tooltip(driver.run(HOVER_STATE, sourced), name, f"box {sourced}")
        check(re.fullmatch(r"\S+\.py:\d+", fields["source"]),
              f"{name}: source not as file:line: {fields['source']!r}")
        driver.hover(driver.element("h1"))

    check_sorted(driver, name)
    errors = [e for e in driver.browser_log() if e.get("level") == "SEVERE"]
    check(not errors, f"{name}: the browser logged errors: {errors}")


DEVICE_BAR_COLOUR = (0x1F, 0x77, 0xB4)  # #1f77b4, the per-stage device bars


def screenshot_stage_split(driver, name, shot):
    """The per-stage drawing scrolled into view, saved as `shot`; its device bars must show."""
    driver.run("document.querySelector('svg.stage-host-memory')"
               ".scrollIntoView({block: 'center'});")
    with open(shot, "wb") as f:
        f.write(base64.b64decode(driver.command("GET", "/screenshot")))
    pixels = count_colour(shot, DEVICE_BAR_COLOUR)
    print(f"{name}: screenshot {shot}: {pixels} pixels of device bars")
    check(pixels >= 500, f"{name}: the screenshot shows no device bars ({pixels} pixels of them)")


def check_stage_split(parts, name, want):
    """Each stage's device and host parts in the stage table and as bars, laid out, the limit
    line the device's, each device bar on its side of it as the row's verdict says. `want`:
    stage -> (device bytes, host bytes, verdict)."""
    rows = {r["stage"]: r for r in parts["stage_rows"]}
    check(set(rows) == set(want), f"{name}: stage rows {sorted(rows)}, expected {sorted(want)}")
    for stage, (device, host, verdict) in want.items():
        r = rows[stage]
        # Each byte cell is "N (human units)".
        check(all(re.fullmatch(r"\d+ \(\d+(\.\d)? (B|KiB|MiB|GiB|TiB)\)", c or "")
                  for c in (r["device"], r["host"])),
              f"{name}: stage {stage}'s device and host cells not as 'N (human units)': {r}")
        check(r["device"].split()[0] == device and r["host"].split()[0] == host and r["height"] > 0
              and r["verdict"] is not None and verdict in r["verdict"],
              f"{name}: stage {stage}'s row: {r}, expected device {device}, host {host}, {verdict}")
    check(parts["stage_plots"] == 1 and len(parts["stage_limit"]) == 1
          and parts["stage_limit"][0]["height"] > 0
          and parts["stage_limit"][0]["title"].startswith("the device's memory limit "),
          f"{name}: expected one per-stage device/host drawing with the device's limit line: "
          f"{parts['stage_plots']}, {parts['stage_limit']}")
    limit_x = parts["stage_limit"][0]["x"]
    bars = {(b["stage"], b["kind"]): b for b in parts["stage_bars"]}
    check(len(bars) == 2 * len(want), f"{name}: expected a device and a host bar per stage: {bars}")
    for stage, (device, host, verdict) in want.items():
        d = bars[(stage, "device")]
        check(d["width"] > 0 and d["height"] > 0, f"{name}: stage {stage}'s device bar: {d}")
        check(d["over"] == (verdict == "over") and (d["right"] > limit_x) == (verdict == "over"),
              f"{name}: stage {stage}'s device bar ends at {d['right']}, the limit at {limit_x}, "
              f"and its verdict is {verdict}")
        h = bars[(stage, "host")]
        check((h["width"] > 0) == (host != "0"), f"{name}: stage {stage}'s host bar: {h}")
    print(f"{name}: stage split drawn: " + "; ".join(
        f"stage {s}: device {d}, host {h}, {v}" for s, (d, h, v) in want.items()))


def check_parts(driver, page_path, name, expect, work_dir):
    """A page of issue 33's parts: one self-contained file, laid out, and no script errors."""
    check_self_contained(page_path, name)
    driver.command("POST", "/url", {"url": "file://" + os.path.abspath(page_path)})
    parts = driver.run(PARTS)
    if expect == "host":
        lines = dict((title, a) for title, a in parts["host_lines"])
        check(parts["host_plots"] == 1 and parts["host_limit"] == 1,
              f"{name}: expected one device/host plot with the limit line: {parts}")
        check(set(lines) == {"device", "host (offloaded, S(5))"}
              and all(a > 0 for a in lines.values()),
              f"{name}: the device's and the host's lines are not both drawn: {lines}")
        check(parts["host_peaks"] is not None and "device peak 46090593308 bytes" in
              parts["host_peaks"] and "fits with" in parts["host_peaks"],
              f"{name}: the device and host peaks line: {parts['host_peaks']!r}")
        print(f"{name}: device and host lines drawn; {parts['host_peaks']}")
        check(parts["host_limit_title"]
              == ["the device's memory limit 51539607552 bytes (48.0 GiB)"],
              f"{name}: the device/host plot's limit line is not titled the device's: "
              f"{parts['host_limit_title']}")
        check_stage_split(parts, name, {"0": ("46090593308", "7516192768", "fits")})
        screenshot_stage_split(driver, name, os.path.join(work_dir, f"stages-{expect}.png"))
    elif expect == "stage-split":
        check_stage_split(parts, name, {"0": ("4096", "4096", "fits"), "1": ("8192", "0", "over")})
        screenshot_stage_split(driver, name, os.path.join(work_dir, f"{expect}.png"))
    else:
        sections = parts["callee_sections"]
        check(len(sections) == 1 and sections[0]["open"] and sections[0]["rows"] == 3
              and sections[0]["height"] > 0
              and sections[0]["summary"].startswith("inside _one_hot.609 (called by call.622)"),
              f"{name}: the callee breakdown is not laid out: {sections}")
        print(f"{name}: callee breakdown: {sections[0]['summary']}")
    errors = [e for e in driver.browser_log() if e.get("level") == "SEVERE"]
    check(not errors, f"{name}: the browser logged errors: {errors}")


def main():
    if len(sys.argv) != 7:
        print(__doc__)
        return 2
    hlo_opt, chromium, chromedriver, corpus, work_dir, stage_split = sys.argv[1:]
    check(os.access(chromium, os.X_OK), f"no Chromium at {chromium}: install Debian's 'chromium'")
    check(os.access(chromedriver, os.X_OK),
          f"no chromedriver at {chromedriver}: install Debian's 'chromium-driver'")
    os.makedirs(work_dir, exist_ok=True)
    for module in (PIPELINED, PLAIN, XLA_DUMP, HOST, CALLEE):
        check(os.path.isfile(os.path.join(corpus, module)),
              f"no {module} in the corpus at {corpus} (HLOSCOPE_CORPUS_DIR; ../shared/corpus)")
    pages = []
    for module, expect, extra in [(PIPELINED, "stages", []), (PLAIN, "plain", []),
                                  (XLA_DUMP, "xla", [])]:
        page = os.path.join(work_dir, f"hover-{expect}.html")
        subprocess.run([hlo_opt, os.path.join(corpus, module), f"--memory-report={page}",
                        "--format=html", *extra], check=True, stdout=subprocess.DEVNULL)
        pages.append((page, os.path.basename(module), expect))
    parts_pages = []
    for module, expect, extra in [(HOST, "host", ["--memory-limit=48GiB", "--top=1"]),
                                  (CALLEE, "callee", ["--top=3"])]:
        page = os.path.join(work_dir, f"parts-{expect}.html")
        subprocess.run([hlo_opt, os.path.join(corpus, module), f"--memory-report={page}",
                        "--format=html", *extra], check=True, stdout=subprocess.DEVNULL)
        parts_pages.append((page, os.path.basename(module), expect))
    page = os.path.join(work_dir, "parts-stage-split.html")
    subprocess.run([hlo_opt, stage_split, f"--memory-report={page}", "--format=html",
                    "--memory-model=liveness", r"--stage-regex=/stage_(\d+)/", "--top=0",
                    "--memory-limit=7KiB"], check=True, stdout=subprocess.DEVNULL)
    parts_pages.append((page, os.path.basename(stage_split), "stage-split"))
    driver = WebDriver(chromedriver, chromium, work_dir)
    try:
        for page, name, expect in pages:
            check_page(driver, page, name, work_dir, expect)
        for page, name, expect in parts_pages:
            check_parts(driver, page, name, expect, work_dir)
    finally:
        driver.close()
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())

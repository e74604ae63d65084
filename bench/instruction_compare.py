#!/usr/bin/env python3
"""Instructions executed by each whole-process benchmark command in two builds, counted by
valgrind's callgrind: a comparison that a loaded, shared machine does not disturb.

process_bench.py --compare times the same commands (wall, user, system); on a busy virtual
machine those times move by 5-10% between runs, which hides a regression of that size. The
count of executed instructions is the same on every run of one build, so B/A here is a ratio
with no noise (it does not see cache misses, page faults or system time: the timed rows
remain the user's figure; this says whether the code does more work).

Usage: bench/instruction_compare.py --build-dir=A --compare=B [--inputs=10k,100k] [--json=F]
Prints one Markdown table (input, command, instructions in A and B, B/A). Exit status 1 when a
command fails or valgrind is missing."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import fail, log  # noqa: E402  bench/harness.py, beside this file
from process_bench import COMMANDS  # noqa: E402  the same commands as the timed rows

COLLECTED = re.compile(r"Collected : (\d+)")


def count_instructions(argv):
    """Instructions the process executed, from callgrind's summary on stderr."""
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        fail(f"'{' '.join(argv)}' exited with {proc.returncode} under valgrind")
    match = COLLECTED.search(proc.stderr)
    if not match:
        fail(f"no instruction count in valgrind's output for '{' '.join(argv)}'")
    return int(match.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True, help="build tree with tools/hlo-opt (A)")
    ap.add_argument("--compare", required=True, metavar="OTHER_BUILD", help="build tree B")
    ap.add_argument("--inputs", default="10k,100k",
                    help="generated inputs by size, comma-separated (10k, 100k, 1m; "
                         "default 10k,100k: under valgrind 1m takes minutes per command)")
    ap.add_argument("--json", help="also write the rows as JSON here")
    args = ap.parse_args()
    if shutil.which("valgrind") is None:
        fail("valgrind is missing (Debian package valgrind)")
    tools = {}
    for key, d in (("A", args.build_dir), ("B", args.compare)):
        tools[key] = os.path.join(d, "tools", "hlo-opt")
        if not os.access(tools[key], os.X_OK):
            fail(f"{tools[key]} is missing: build the hlo-opt target in {d}")
    rows = []
    for size in [s.strip().lower() for s in args.inputs.split(",") if s.strip()]:
        path = os.path.join(args.build_dir, "bench", "inputs", f"gen_{size}.hlo")
        if not os.path.exists(path):
            fail(f"{path} is missing: bench/harness.py makes it (run bench/run)")
        for name, flags in COMMANDS:
            log(f"gen_{size}: {name}")
            counts = {k: count_instructions([t, *flags, path, "-o", os.devnull])
                      for k, t in tools.items()}
            rows.append({"input": f"hlo-gen {size.upper()}", "command": name,
                         "instructions": counts, "b_over_a": counts["B"] / counts["A"]})
    print(f"A = {args.build_dir}, B = {args.compare}; instructions executed (callgrind)\n")
    print("| input | command | A | B | B/A |")
    print("|---|---|---:|---:|---:|")
    for r in rows:
        c = r["instructions"]
        print(f"| {r['input']} | {r['command']} | {c['A']:,} | {c['B']:,} | "
              f"{r['b_over_a']:.3f} |")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"build_a": args.build_dir, "build_b": args.compare, "rows": rows},
                      out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

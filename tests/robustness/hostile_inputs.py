#!/usr/bin/env python3
"""Hostile and careless input through every tool (issue 22).

Generates adversarial inputs (sizes that overflow int64, deep nesting, exponential call graphs,
deep call chains, nested loops, very high ranks, non-regular files, random bytes) and runs
hlo-opt, hlo-run, hlo-gen and hlo-pipeline on them under `ulimit -v 4 GiB` and a timeout.
A case fails on:
  - a signal (a crash, an abort from an uncaught exception) or running past its timeout;
  - an exit status outside the tool's documented ones, or other than the case expects;
  - a line on stderr that says "error" without the `FILE:LINE:COL: error:` or
    `<tool>: error:` prefix, or a failing run whose first stderr line lacks that prefix;
  - any generated input file replaced, rewritten or removed by the run (issue 34: no tool
    writes over what it was given).

usage: hostile_inputs.py --tools-dir DIR [--work-dir DIR] [--timeout SECONDS] [-v]
Exit 0 when every case passes, 1 otherwise (each failure is printed).
"""

import argparse
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time

MEMORY_LIMIT = 4 * 1024 * 1024 * 1024  # bytes, as `ulimit -v 4194304`

# Documented exit statuses (each tool's --help).
DOCUMENTED = {
    "hlo-opt": {0, 1, 2},
    "hlo-run": {0, 1, 2, 3},
    "hlo-gen": {0, 1, 2},
    "hlo-pipeline": {0, 1, 2},
}

LOCATED = re.compile(r"^.*:\d+:\d+: error: ")


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    # No core files from a crash: the failure is reported here.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


# ---- generated inputs ------------------------------------------------------------------------


def fan_out(levels):
    """f_k calls f_{k-1} from two sites: 2^levels call sites reach f0."""
    out = ["HloModule fan", "", "f0 {\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}"]
    for i in range(1, levels + 1):
        out.append(f"f{i} {{\n  p = f32[] parameter(0)\n  a = f32[] call(p), to_apply=f{i-1}\n"
                   f"  ROOT b = f32[] call(a), to_apply=f{i-1}\n}}")
    out.append(f"ENTRY e {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=f{levels}\n}}")
    return "\n".join(out) + "\n"


def call_chain(depth):
    out = ["HloModule chain", f"c{depth-1} {{\n  p = f32[] parameter(0)\n  ROOT n = f32[] negate(p)\n}}"]
    for i in range(depth - 2, -1, -1):
        out.append(f"c{i} {{\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c{i+1}\n}}")
    out.append("ENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), to_apply=c0\n}")
    return "\n".join(out) + "\n"


def nested_loops(depth, copy=True):
    """`depth` 2-trip while loops inside each other; the innermost body copies its value."""
    out = ["HloModule loops"]
    for i in range(depth):
        out.append(f"cond{i} {{\n  p = (s32[], f32[]) parameter(0)\n"
                   f"  i = s32[] get-tuple-element(p), index=0\n  two = s32[] constant(2)\n"
                   f"  ROOT lt = pred[] compare(i, two), direction=LT\n}}")
        if i + 1 < depth:
            inner = (f"  z = s32[] constant(0)\n  t0 = (s32[], f32[]) tuple(z, v)\n"
                     f"  w = (s32[], f32[]) while(t0), condition=cond{i+1}, body=body{i+1}\n"
                     f"  x = f32[] get-tuple-element(w), index=1\n")
        else:
            inner = ("  cp = f32[] copy(v)\n  x = f32[] negate(cp)\n" if copy
                     else "  x = f32[] negate(v)\n")
        out.append(f"body{i} {{\n  p = (s32[], f32[]) parameter(0)\n"
                   f"  i = s32[] get-tuple-element(p), index=0\n"
                   f"  v = f32[] get-tuple-element(p), index=1\n{inner}"
                   f"  one = s32[] constant(1)\n  i1 = s32[] add(i, one)\n"
                   f"  ROOT t = (s32[], f32[]) tuple(i1, x)\n}}")
    out.append("ENTRY e {\n  v = f32[] parameter(0)\n  z = s32[] constant(0)\n"
               "  t = (s32[], f32[]) tuple(z, v)\n"
               "  w = (s32[], f32[]) while(t), condition=cond0, body=body0\n"
               "  ROOT r = f32[] get-tuple-element(w), index=1\n}")
    return "\n".join(out) + "\n"


def module(body):
    return f"HloModule m\n\nENTRY e {{\n{body}\n}}\n"


def inputs(work):
    """Writes the generated files; returns {name: path}."""
    rng = random.Random(22)
    huge = "f32[1152921504606846976]"
    files = {
        "empty.hlo": "",
        "fan40.hlo": fan_out(40),
        "fan70.hlo": fan_out(70),
        "chain30000.hlo": call_chain(30000),
        "loops200.hlo": nested_loops(200),
        # Deep enough that work growing with the square of the depth (phi minimization
        # peeling one loop per round did) runs past the timeout; linear work takes seconds.
        "loops100000.hlo": nested_loops(100000),
        "overflow_dims.hlo": module("  ROOT p = f32[9223372036854775807,2] parameter(0)"),
        "overflow_bytes.hlo": module("  ROOT p = f64[2305843009213693952] parameter(0)"),
        "huge_sum.hlo": module("\n".join(f"  p{i} = {huge} parameter({i})" for i in range(4)) +
                               f"\n  ROOT t = ({huge}, {huge}, {huge}, {huge}) tuple(p0, p1, p2, p3)"),
        "deep_tuple_shape.hlo": module("  ROOT p = " + "(" * 100000 + "f32[]" + ")" * 100000 +
                                       " parameter(0)"),
        "deep_braces.hlo": module("  ROOT c = f32[1] constant(" + "{" * 1000000 + "1" +
                                  "}" * 1000000 + ")"),
        "rank60000.hlo": module("  ROOT p = f32[" + ",".join(["1"] * 60000) + "] parameter(0)"),
        "rank65_layout.hlo": module("  ROOT p = f32[" + ",".join(["1"] * 65) + "]{" +
                                    ",".join(str(d) for d in range(64, -1, -1)) + "} parameter(0)"),
        "negative_layout.hlo": module("  ROOT p = f32[4,8]{-1,0} parameter(0)"),
        "literal_range.hlo": module("  ROOT c = s8[2] constant({127,300})"),
        "cycle.hlo": "HloModule m\nf {\n  p = f32[] parameter(0)\n  ROOT c = f32[] call(p), "
                     "to_apply=f\n}\nENTRY e {\n  p = f32[] parameter(0)\n  ROOT c = f32[] "
                     "call(p), to_apply=f\n}\n",
        "crlf.hlo": module("  ROOT p = f32[2] parameter(0)").replace("\n", "\r\n"),
        "long_name.hlo": module("  ROOT " + "n" * 10_000_000 + " = f32[] parameter(0)"),
        # Issue 34: numbers that were silently wrong, an argument too large to allocate.
        "f16_overflow.hlo": module("  ROOT c = f16[] constant(-65520)"),
        "trip_past_int64.hlo": "HloModule m\nc {\n  p = s32[] parameter(0)\n  ROOT t = pred[] "
                               "constant(true)\n}\nb {\n  ROOT p = s32[] parameter(0)\n}\n"
                               "ENTRY e {\n  z = s32[] constant(0)\n  ROOT w = s32[] while(z), "
                               "condition=c, body=b, backend_config={\"known_trip_count\":"
                               "{\"n\":\"100000000000000000000\"}}\n}\n",
        "arg_4tib.hlo": module("  p = f32[1099511627776] parameter(0)\n"
                               "  ROOT n = f32[1099511627776] negate(p)"),
        "small.hlo": module("  ROOT p = f32[2] parameter(0)"),
    }
    binary = {
        "random.bin": bytes(rng.getrandbits(8) for _ in range(1 << 16)),
        "nul.hlo": b"HloModule m\n\x00\x00ENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
        "bad_utf8.hlo": b"HloModule \xff\xfe\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = os.path.join(work, name)
        with open(paths[name], "w", newline="") as f:
            f.write(text)
    for name, data in binary.items():
        paths[name] = os.path.join(work, name)
        with open(paths[name], "wb") as f:
            f.write(data)
    paths["dir"] = os.path.join(work, "a_directory")
    os.makedirs(paths["dir"], exist_ok=True)
    paths["csv_empty_cells"] = os.path.join(work, "empty_cells.csv")
    with open(paths["csv_empty_cells"], "w") as f:
        f.write(",,\n,,\n")
    paths["csv_bom"] = os.path.join(work, "bom.csv")
    with open(paths["csv_bom"], "wb") as f:
        f.write(b"\xef\xbb\xbf0F0,0B0\n")
    paths["csv_zwsp"] = os.path.join(work, "zwsp.csv")
    with open(paths["csv_zwsp"], "wb") as f:
        f.write(b"0F0,0F\xe2\x80\x8b0\n")
    return paths


# ---- the cases -------------------------------------------------------------------------------


def cases(p):
    """(tool, args, expected exit statuses) for every probe."""
    fan, chain, loops = p["fan40.hlo"], p["chain30000.hlo"], p["loops200.hlo"]
    return [
        # Inputs that are not HLO, or not files.
        ("hlo-opt", ["/dev/zero"], {2}),
        ("hlo-run", ["/dev/zero"], {2}),
        ("hlo-opt", [p["dir"]], {2}),
        # XLA dump directories: an empty one, and one of files XLA does not write (issue 28).
        ("hlo-opt", ["--xla-dump=" + p["dir"]], {2}),
        ("hlo-opt", ["--xla-dump=" + os.path.dirname(p["dir"])], {2}),
        ("hlo-run", [p["dir"]], {2}),
        ("hlo-opt", [p["empty.hlo"]], {1}),
        ("hlo-opt", ["--split-input-file", p["empty.hlo"]], {1}),
        ("hlo-opt", [p["random.bin"]], {1}),
        ("hlo-opt", [p["nul.hlo"]], {1}),
        ("hlo-opt", [p["bad_utf8.hlo"]], {0, 1}),
        ("hlo-opt", [p["crlf.hlo"]], {0, 1}),
        ("hlo-opt", [p["long_name.hlo"]], {0}),
        # Sizes past int64, deep nesting, high ranks.
        ("hlo-opt", [p["overflow_dims.hlo"]], {1}),
        ("hlo-opt", [p["overflow_bytes.hlo"]], {1}),
        ("hlo-opt", ["--stats", p["huge_sum.hlo"]], {0}),
        ("hlo-run", [p["huge_sum.hlo"]], {3}),
        ("hlo-opt", [p["deep_tuple_shape.hlo"]], {1}),
        ("hlo-opt", [p["deep_braces.hlo"]], {1}),
        ("hlo-opt", [p["rank60000.hlo"]], {0}),
        ("hlo-run", ["--print-all", p["rank60000.hlo"]], {0}),
        ("hlo-opt", [p["rank65_layout.hlo"]], {0}),
        ("hlo-opt", [p["negative_layout.hlo"]], {1}),
        ("hlo-opt", [p["literal_range.hlo"]], {1}),
        ("hlo-run", [p["literal_range.hlo"]], {3}),
        ("hlo-opt", [p["cycle.hlo"]], {1}),
        # Exponential call graphs, deep call chains, nested loops.
        ("hlo-opt", [fan], {0}),
        ("hlo-opt", ["--passes=flatten-call-graph", fan], {1}),
        ("hlo-opt", ["--passes=flatten-call-graph", p["fan70.hlo"]], {1}),
        ("hlo-opt", ["--memory-report", fan], {1}),
        ("hlo-run", ["--max-steps=100000", fan], {3}),
        # Buffer mode stops the 2^40 calls at the step limit as value mode does. An explicit
        # limit: the default (10^8) cost about 10 s of a 30 s timeout and failed once on a
        # loaded machine, and a smaller one exercises the same check.
        ("hlo-run", ["--mode=buffer", "--max-steps=100000", fan], {3}),
        ("hlo-opt", [chain], {0}),
        ("hlo-run", [chain], {3}),
        ("hlo-run", ["--mode=buffer", chain], {3}),
        ("hlo-opt", ["--passes=copy-elision", "--report", loops], {0}),
        ("hlo-opt", ["--passes=copy-elision", "--report", p["loops100000.hlo"]], {0}),
        ("hlo-run", ["--max-steps=100000", loops], {3}),
        # Flag values that do not fit.
        ("hlo-opt", ["--memory-report", "--stage-regex=(", fan], {2}),
        ("hlo-opt", ["--memory-report", "--stage-regex=x", fan], {2}),
        ("hlo-run", ["--max-steps=-1", fan], {2}),
        ("hlo-gen", ["--hidden=9223372036854775807", "--heads=1"], {2}),
        ("hlo-gen", ["--hidden=1099511627776"], {2}),
        ("hlo-gen", ["--seq=4611686018427387904"], {2}),
        ("hlo-gen", ["--layers=1000000000"], {2}),
        ("hlo-gen", ["--microbatches=9223372036854775807"], {2}),
        ("hlo-gen", ["--layers=2", "--stages=2", "-o", "/dev/full"], {1, 2}),
        ("hlo-pipeline", ["--schedule=1f1b", "--ranks=4", "--microbatches=8",
                          "--forward-time=1e308,1e308,1e308,1e308"], {1}),
        ("hlo-pipeline", ["--schedule=1f1b", "--ranks=4", "--microbatches=8",
                          "--static-bytes=1,2"], {1}),
        ("hlo-pipeline", ["--schedule=1f1b", "--ranks=4", "--microbatches=8",
                          "--forward-time=nan"], {2}),
        ("hlo-pipeline", ["--schedule=csv:" + p["dir"]], {1}),
        ("hlo-pipeline", ["--schedule=csv:" + p["csv_empty_cells"]], {1}),
        ("hlo-pipeline", ["--schedule=csv:/dev/zero"], {1}),
        ("hlo-pipeline", ["--schedule=1f1b", "--ranks=4", "--microbatches=8",
                          "--from-hlo=/dev/zero,/dev/zero,/dev/zero,/dev/zero"], {1}),
        ("hlo-pipeline", ["--schedule=1f1b", "--ranks=4", "--microbatches=8",
                          "--from-hlo=" + ",".join([fan] * 4)], {0, 1}),
        # Issue 34: outputs that name an input (main() checks every input is unchanged).
        ("hlo-opt", [p["small.hlo"], "-o", p["small.hlo"]], {2}),
        ("hlo-opt", [p["small.hlo"], "--passes=copy-elision", "--report=" + p["small.hlo"]], {2}),
        ("hlo-opt", [p["small.hlo"], "--memory-report=" + p["small.hlo"]], {2}),
        ("hlo-opt", ["--stage-costs=" + p["small.hlo"], p["small.hlo"]], {2}),
        ("hlo-pipeline", ["--schedule=csv:" + p["csv_bom"], "--trace=" + p["csv_bom"]], {2}),
        ("hlo-pipeline", ["--schedule=csv:" + p["csv_bom"], "--dump-csv=" + p["csv_bom"]], {2}),
        # Numbers that were silently wrong; running out of memory is "module too large" (3).
        ("hlo-opt", [p["f16_overflow.hlo"]], {1}),
        ("hlo-run", [p["f16_overflow.hlo"]], {3}),
        ("hlo-opt", [p["trip_past_int64.hlo"]], {1}),
        ("hlo-run", ["--max-bytes=9223372036854775807", p["arg_4tib.hlo"]], {3}),
        ("hlo-run", [p["arg_4tib.hlo"]], {3}),
        # A CSV saved by a spreadsheet (byte-order mark); an invisible character in an action.
        ("hlo-pipeline", ["--schedule=csv:" + p["csv_bom"]], {0}),
        ("hlo-pipeline", ["--schedule=csv:" + p["csv_zwsp"]], {1}),
    ]


def check(tool, args, expected, tools_dir, timeout, verbose):
    """Runs one case; returns a list of problems (empty when it passed)."""
    exe = os.path.join(tools_dir, tool)
    start = time.monotonic()
    try:
        r = subprocess.run([exe] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout, preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return [f"ran past the {timeout} s timeout"]
    took = time.monotonic() - start
    problems = []
    if r.returncode < 0:
        problems.append(f"killed by signal {-r.returncode}")
    elif r.returncode not in DOCUMENTED[tool]:
        problems.append(f"exit {r.returncode} is not a documented status of {tool}")
    elif r.returncode not in expected:
        problems.append(f"exit {r.returncode}, expected {sorted(expected)}")
    err = r.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    prefix = f"{tool}: error: "
    for line in lines:
        if "error" in line.lower() and "error:" in line:
            if not (line.startswith(prefix) or LOCATED.match(line)):
                problems.append(f"error line without the prefix: {line[:200]!r}")
                break
    if r.returncode != 0 and lines and not (lines[0].startswith(prefix) or
                                            LOCATED.match(lines[0])):
        problems.append(f"first stderr line without an error prefix: {lines[0][:200]!r}")
    if verbose:
        print(f"  {took:6.2f} s  exit {r.returncode}  {tool} {' '.join(a[:60] for a in args)}")
    return problems


def snapshot(paths):
    """{name: (size, mtime_ns, inode)} of every generated regular file."""
    out = {}
    for name, path in paths.items():
        if os.path.isfile(path):
            st = os.stat(path)
            out[name] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


def changed(paths, before):
    """The generated files that a case replaced, rewrote or removed."""
    after = snapshot(paths)
    return sorted(name for name in before if after.get(name) != before[name])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tools-dir", required=True)
    ap.add_argument("--work-dir")
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=a.work_dir) as work:
        paths = inputs(work)
        failures = 0
        all_cases = cases(paths)
        for tool, args, expected in all_cases:
            # No tool ever writes over what it was given (issue 34).
            before = snapshot(paths)
            problems = check(tool, args, expected, a.tools_dir, a.timeout, a.verbose)
            problems += [f"changed the input {name}" for name in changed(paths, before)]
            if problems:
                failures += 1
                shown = " ".join(x if len(x) < 80 else x[:77] + "..." for x in args)
                print(f"FAIL: {tool} {shown}: " + "; ".join(problems))
        print(f"{len(all_cases) - failures} of {len(all_cases)} hostile-input cases passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

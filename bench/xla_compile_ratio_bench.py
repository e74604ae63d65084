#!/usr/bin/env python3
"""Time XLA itself: hloscope's load + memory report on the real XLA dumps of a pipelined JAX
step (testdata/dumps/Inputs/jax_pipeline) against the seconds XLA took to compile the same
module, as scripts/jax-pipeline-dump recorded them in each backend's timing.json.

usage: bench/xla_compile_ratio_bench.py [--hlo-opt=PATH] [--dumps=DIR] [--repetitions=N]
                                        [--quick] [--json=FILE]

Per after-optimization HloProto (one per backend directory and configuration, plain and
remat): `hlo-opt FILE --memory-report=/dev/null` run as a process (reading the proto, XLA's
buffer assignment inside it, the profile and the model of XLA's assignment beside it: what a
user waits for), the median wall time of N runs (XLA's compile seconds are wall time too:
jax's lower().compile() timed with perf_counter), beside that process's user + system time,
and the ratios hloscope / XLA of both (the CPU one is steadier on a shared machine, where
the wall time is mostly waiting for a core). The compile seconds are read from timing.json, never written
here: a dump made again gives its own.

Output: one Markdown table on stdout, the same figures as JSON with --json. Exit status 1 when
hlo-opt fails, 2 when a dump or its timing.json is missing or unreadable (the message names
the file).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DUMPS = ROOT / "testdata" / "dumps" / "Inputs" / "jax_pipeline"
# timing.json's configuration names and the jitted function each one compiled (the module name
# in XLA's dump file names).
CONFIGS = [("plain", "jit_pipelined_train_step"), ("remat", "jit_pipelined_train_step_remat")]


def usage_error(msg):
    print(f"xla_compile_ratio_bench: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_compile_seconds(timing_path, config):
    try:
        with open(timing_path) as f:
            timing = json.load(f)
    except OSError as e:
        usage_error(f"{timing_path}: cannot read: {e.strerror}")
    except json.JSONDecodeError as e:
        usage_error(f"{timing_path}:{e.lineno}:{e.colno}: error: not JSON: {e.msg}")
    try:
        seconds = timing["configs"][config]["compile_s"]
    except (KeyError, TypeError):
        usage_error(f"{timing_path}: no configs.{config}.compile_s")
    if not isinstance(seconds, (int, float)) or seconds <= 0:
        usage_error(f"{timing_path}: configs.{config}.compile_s is not a positive number: "
                    f"{seconds!r}")
    return float(seconds), timing.get("backend", "?")


def after_optimizations_proto(backend_dir, module):
    # XLA names it module_<id>.<module>.<backend prefix>after_optimizations.hlo.pb.
    found = sorted(p for p in backend_dir.glob(f"module_*.{module}.*after_optimizations.hlo.pb"))
    if len(found) != 1:
        usage_error(f"{backend_dir}: {len(found)} after-optimization .hlo.pb files of module "
                    f"{module} (want 1)")
    return found[0]


def run_once(argv):
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    stderr = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(f"xla_compile_ratio_bench: error: '{' '.join(argv)}' exited with {code}: "
              f"{stderr.strip()}", file=sys.stderr)
        sys.exit(1)
    return wall, usage.ru_utime + usage.ru_stime


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hlo-opt", default=None, help="default: hlo-opt on PATH")
    parser.add_argument("--dumps", default=str(DEFAULT_DUMPS),
                        help="directory of backend directories, each with timing.json")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one repetition")
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if args.repetitions < 1:
        usage_error(f"--repetitions={args.repetitions}: must be at least 1")
    hlo_opt = args.hlo_opt or shutil.which("hlo-opt")
    if hlo_opt is None or not os.access(hlo_opt, os.X_OK):
        usage_error(f"no hlo-opt at {hlo_opt or 'PATH'} (build the hlo-opt target, or pass "
                    "--hlo-opt)")
    dumps = pathlib.Path(args.dumps)
    backends = sorted(d for d in dumps.iterdir() if d.is_dir()) if dumps.is_dir() else []
    if not backends:
        usage_error(f"{dumps}: no backend directories")
    repetitions = 1 if args.quick else args.repetitions

    rows = []
    for backend_dir in backends:
        for config, module in CONFIGS:
            compile_s, backend = read_compile_seconds(backend_dir / "timing.json", config)
            proto = after_optimizations_proto(backend_dir, module)
            runs = [run_once([hlo_opt, str(proto), "--memory-report=/dev/null"])
                    for _ in range(repetitions)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rows.append({"backend_dir": backend_dir.name, "backend": backend, "config": config,
                         "file": proto.name, "hloscope_wall_s": wall, "hloscope_cpu_s": cpu,
                         "xla_compile_s": compile_s, "ratio": wall / compile_s,
                         "cpu_ratio": cpu / compile_s})

    print("| dump | config | hloscope load + memory report, wall ms | its CPU ms "
          "| XLA compile ms (timing.json) | hloscope wall / XLA | hloscope CPU / XLA |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['backend_dir']} ({r['backend']}) | {r['config']} "
              f"| {r['hloscope_wall_s'] * 1e3:.1f} | {r['hloscope_cpu_s'] * 1e3:.1f} "
              f"| {r['xla_compile_s'] * 1e3:.1f} | {r['ratio']:.3f} | {r['cpu_ratio']:.3f} |")
    print()
    print(f"Median of {repetitions} run(s) of `hlo-opt FILE --memory-report=/dev/null` per "
          "after-optimization .hlo.pb; XLA's compile time is jax's lower().compile() as "
          "scripts/jax-pipeline-dump measured it when it wrote the dump.")
    if args.json:
        # Whole or not at all: written beside the target, renamed into place.
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        tmp = f"{args.json}.tmp{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"repetitions": repetitions, "rows": rows}, f, indent=1)
        os.replace(tmp, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

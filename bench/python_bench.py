#!/usr/bin/env python3
"""The Python package's overhead: memory_report of the largest curated corpus module through
`import hloscope` (the report as Python objects) against the same work in-process in C++ (the
extension's memory_report_json: parse, flatten, profile and the CLI's JSON text, no Python
objects). Prints one Markdown row with both CPU times and their ratio (goal: <= 1.05).

usage: bench/python_bench.py --build-dir=DIR --corpus-dir=DIR [--repetitions=N] [--quick]
                             [--json=FILE]

--quick takes the smallest curated file of at least 10 KB and one repetition (a smoke test).
CPU time (time.process_time), best of N: the machines are shared.
"""
import argparse
import json
import os
import pathlib
import sys
import time


def best_cpu_seconds(fn, repetitions):
    best = None
    for _ in range(repetitions):
        start = time.process_time()
        fn()
        elapsed = time.process_time() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--corpus-dir", required=True)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()

    sys.path.insert(0, str(pathlib.Path(args.build_dir) / "python"))
    try:
        import hloscope
    except ImportError as e:
        print(f"python_bench: error: cannot import hloscope from {args.build_dir}/python "
              f"(build the _hloscope target with HLOSCOPE_PYTHON=ON): {e}", file=sys.stderr)
        return 1

    files = sorted(pathlib.Path(args.corpus_dir).glob("*.hlo"), key=lambda p: p.stat().st_size)
    if args.quick:
        path = next(p for p in files if p.stat().st_size >= 10_000)
        repetitions = 1
    else:
        path = files[-1]
        repetitions = args.repetitions
    module = hloscope.load(path)
    cpp = best_cpu_seconds(lambda: module._impl.memory_report_json([], ""), repetitions)
    python = best_cpu_seconds(lambda: module.memory_report(), repetitions)
    ratio = python / cpp if cpp > 0 else float("nan")
    print("| input | instructions | C++ in-process ms | Python ms | ratio (goal <= 1.05) |")
    print("|---|---|---|---|---|")
    print(f"| {path.name} | {len(module.instructions)} | {cpp * 1e3:.1f} | {python * 1e3:.1f} "
          f"| {ratio:.3f} |")
    print(f"\nmemory_report through `import hloscope` vs the same work in C++ in the same "
          f"process (CPU time, best of {repetitions}).")
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump({"input": path.name, "cpp_seconds": cpp, "python_seconds": python,
                       "ratio": ratio, "repetitions": repetitions}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

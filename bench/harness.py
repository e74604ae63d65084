#!/usr/bin/env python3
"""The driver behind bench/run (see `bench/run --help`): makes the inputs, runs hlo_bench once
per input in a child process, times `wc -l` on the same files, prints the Markdown table on
stdout and writes it as JSON. Logs go to stderr. Exit status 1 when any stage fails."""
import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
import tempfile

# Generated inputs: label, hlo-gen flags (instruction counts checked with `hlo-opt --stats`:
# 11,254 / 103,302 / 1,004,698).
GENERATED = [
    ("hlo-gen 10K", ["--unroll", "--layers=8", "--stages=4", "--microbatches=5"]),
    ("hlo-gen 100K", ["--unroll", "--layers=32", "--stages=4", "--microbatches=16"]),
    ("hlo-gen 1M", ["--unroll", "--layers=64", "--stages=4", "--microbatches=90"]),
]
SCALING_BASE = "hlo-gen 10K"
LARGEST_CORPUS_FILES = 5


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


def fail(msg):
    print(f"error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def up_to_date(target, *sources, stamp_text=None):
    if not os.path.exists(target):
        return False
    if any(os.path.getmtime(s) > os.path.getmtime(target) for s in sources):
        return False
    if stamp_text is not None:
        stamp = target + ".flags"
        if not os.path.exists(stamp) or open(stamp).read() != stamp_text:
            return False
    return True


def generate(hlo_gen, inputs_dir, label, flags):
    path = os.path.join(inputs_dir, "gen_" + label.split()[-1].lower() + ".hlo")
    stamp = " ".join(flags)
    if up_to_date(path, hlo_gen, stamp_text=stamp):
        log(f"{label}: {path} is up to date")
    else:
        log(f"{label}: hlo-gen {stamp} -o {path}")
        subprocess.run([hlo_gen, *flags, "-o", path], check=True)
        with open(path + ".flags", "w") as f:
            f.write(stamp)
    return path


def make_wide_while(inputs_dir, width=10_000):
    """A while loop whose state is a `width`-element tuple: half the elements pass through the
    body unchanged, half are negated. It shows whether the analyses stay linear in tuple width
    (a quadratic walk over tuple elements would dominate here)."""
    path = os.path.join(inputs_dir, f"wide_while_{width}.hlo")
    if os.path.exists(path):
        return path
    elems = ["s32[]"] + ["f32[8]"] * width
    shape = "(" + ", ".join(elems) + ")"
    body = [f"  p = {shape} parameter(0)",
            "  i = s32[] get-tuple-element(p), index=0",
            "  one = s32[] constant(1)",
            "  next = s32[] add(i, one)"]
    outs = ["next"]
    for k in range(1, width + 1):
        body.append(f"  e{k} = f32[8] get-tuple-element(p), index={k}")
        if k % 2 == 0:
            body.append(f"  n{k} = f32[8] negate(e{k})")
            outs.append(f"n{k}")
        else:
            outs.append(f"e{k}")
    body.append(f"  ROOT t = {shape} tuple({', '.join(outs)})")
    text = ["HloModule wide_while", "", "body {", *body, "}", "",
            "cond {", f"  p = {shape} parameter(0)",
            "  i = s32[] get-tuple-element(p), index=0",
            "  n = s32[] constant(10)",
            "  ROOT lt = pred[] compare(i, n), direction=LT", "}", "",
            "ENTRY main {", "  z = s32[] constant(0)", "  c = f32[8] parameter(0)",
            # Distinct initial values, so every element is a buffer of its own.
            *[f"  c{k} = f32[8] negate(c)" for k in range(1, width + 1)],
            f"  init = {shape} tuple(z, {', '.join(f'c{k}' for k in range(1, width + 1))})",
            f"  ROOT w = {shape} while(init), condition=cond, body=body", "}", ""]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(text))
    os.replace(path + ".tmp", path)
    return path


def make_concat(hlo_bench, inputs_dir, corpus_dir):
    path = os.path.join(inputs_dir, "concat.hlo")
    if up_to_date(path, hlo_bench):
        log(f"concatenation: {path} is up to date")
    else:
        log(f"concatenation: hlo_bench --make_concat={path}")
        subprocess.run([hlo_bench, f"--make_concat={path}", f"--corpus_dir={corpus_dir}"],
                       check=True, stdout=sys.stderr)
    return path


def corpus_files(corpus_dir):
    files = [os.path.join(corpus_dir, f) for f in sorted(os.listdir(corpus_dir))
             if f.endswith(".hlo")]
    if not files:
        fail(f"no *.hlo files in {corpus_dir} (set HLOSCOPE_CORPUS_DIR)")
    return files


def run_child(cmd):
    """Runs cmd with stdout sent to our stderr; returns (exit status, child's rusage)."""
    proc = subprocess.Popen(cmd, stdout=sys.stderr)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage


def wc_seconds(path, budget_bytes, runs):
    """CPU time (user + sys) of `wc -l` per read of the file: one wc process reads the file
    enough times to cover budget_bytes, so its start-up is spread thin; best of `runs`."""
    size = os.path.getsize(path)
    copies = max(1, math.ceil(budget_bytes / max(size, 1)))
    best = math.inf
    for _ in range(runs):
        proc = subprocess.Popen(["wc", "-l"] + [path] * copies, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            fail(f"wc -l {path} failed")
        best = min(best, (usage.ru_utime + usage.ru_stime) / copies)
    return best


def seconds(b):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]
    return b["cpu_time"] * scale


def bench_input(args, label, path, tmp):
    out = os.path.join(tmp, "out.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [args.hlo_bench, path, f"--label={label}", f"--corpus_dir={args.corpus_dir}",
           f"--benchmark_repetitions={args.repetitions}",
           f"--benchmark_min_time={args.min_time}",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    if args.stages:
        cmd.append(f"--stages={args.stages}")
    log(f"{label}: {' '.join(cmd)}")
    rc, usage = run_child(cmd)
    problems = []
    if rc != 0:
        problems.append(f"hlo_bench exited with status {rc}")
    data = {"benchmarks": [], "context": {}}
    if os.path.exists(out):
        with open(out) as f:
            data = json.load(f)
    best = {}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        stage = b["name"].split("/")[0]
        if b.get("error_occurred"):
            problems.append(f"stage {stage}: {b.get('error_message', 'failed')}")
            continue
        if stage not in best or b["cpu_time"] < best[stage]["cpu_time"]:
            best[stage] = b
    for stage in args.stage_list:
        if stage not in best and not any(p.startswith(f"stage {stage}:") for p in problems):
            problems.append(f"stage {stage}: no result")
    return best, usage.ru_maxrss * 1024, data.get("context", {}), problems


def machine(context):
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(),
            "mhz_per_cpu": context.get("mhz_per_cpu"),
            "load_avg_at_start": (context.get("load_avg") or [None])[0]}


def fmt_num(x, digits):
    return "—" if x is None else f"{x:,.{digits}f}"


def fmt_3(x):
    """At least 3 significant digits for small values, one decimal for the rest."""
    return f"{x:,.1f}" if x >= 100 else f"{x:.3g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--build-type", default="?")
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repetitions", type=int)
    ap.add_argument("--min-time", type=float)
    ap.add_argument("--stages", default="")
    args = ap.parse_args()
    if args.repetitions is None:
        args.repetitions = 1 if args.quick else 5
    if args.min_time is None:
        args.min_time = 0.01 if args.quick else 0.2
    args.hlo_bench = os.path.join(args.build_dir, "bench", "hlo_bench")
    hlo_gen = os.path.join(args.build_dir, "tools", "hlo-gen")
    for exe in (args.hlo_bench, hlo_gen):
        if not os.access(exe, os.X_OK):
            fail(f"{exe} is missing: build the hlo_bench and hlo-gen targets")
    all_stages = subprocess.run([args.hlo_bench, "--list_stages"], check=True,
                                capture_output=True, text=True).stdout.split()
    args.stage_list = [s for s in args.stages.split(",") if s] or all_stages
    for s in args.stage_list:
        if s not in all_stages:
            fail(f"unknown stage '{s}' (registered: {', '.join(all_stages)})")

    inputs_dir = os.path.join(args.build_dir, "bench", "inputs")
    os.makedirs(inputs_dir, exist_ok=True)
    files = corpus_files(args.corpus_dir)
    inputs = []  # (label, path, kind)
    if args.quick:
        inputs.append((GENERATED[0][0], generate(hlo_gen, inputs_dir, *GENERATED[0]), "gen"))
        # One small real file: the smallest curated file of at least 10 KB.
        small = sorted((f for f in files if os.path.getsize(f) >= 10_000), key=os.path.getsize)
        small = small[0] if small else files[0]
        inputs.append((os.path.basename(small)[:-4], small, "corpus"))
    else:
        for label, flags in GENERATED:
            inputs.append((label, generate(hlo_gen, inputs_dir, label, flags), "gen"))
        # Two widths: equal ns per instruction means the analyses are linear in tuple width.
        for width in (2_500, 10_000):
            inputs.append((f"while over a {width:,}-element tuple",
                           make_wide_while(inputs_dir, width), "wide"))
        for f in sorted(files, key=os.path.getsize, reverse=True)[:LARGEST_CORPUS_FILES]:
            inputs.append((os.path.basename(f)[:-4], f, "corpus"))
        inputs.append(("corpus concatenation", make_concat(args.hlo_bench, inputs_dir,
                                                           args.corpus_dir), "concat"))

    wc_budget, wc_runs = (20e6, 1) if args.quick else (200e6, 5)
    results, problems, context = [], [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, path, kind in inputs:
            best, child_rss, ctx, errs = bench_input(args, label, path, tmp)
            context = context or ctx
            problems += [f"{label}: {e}" for e in errs]
            wc = wc_seconds(path, wc_budget, wc_runs)
            any_b = next(iter(best.values()), None)
            entry = {"input": label, "kind": kind, "path": os.path.abspath(path),
                     "size_bytes": os.path.getsize(path),
                     "instructions": int(any_b["instructions"]) if any_b else None,
                     "modules": int(any_b["modules"]) if any_b else None,
                     "ir_bytes_per_instr": any_b["IR_bytes_per_instr"] if any_b else None,
                     "wc_l_seconds": wc, "process_peak_rss_bytes": child_rss, "stages": {}}
            for stage in args.stage_list:
                b = best.get(stage)
                if b is None:
                    continue
                t = seconds(b)
                rss = b.get("peak_rss_bytes", -1)
                entry["stages"][stage] = {
                    "cpu_seconds": t, "iterations": b["iterations"],
                    "ns_per_instr": t * 1e9 / max(b["instructions"], 1),
                    "mb_per_s": b["size_bytes"] / t / 1e6 if t > 0 else None,
                    "instr_per_s": b["instructions"] / t if t > 0 else None,
                    "peak_rss_bytes": rss if rss >= 0 else child_rss,
                    "peak_rss_is_process_wide": rss < 0,
                    "wc_ratio": t / wc if wc > 0 else None,
                }
            results.append(entry)

    base = next((r for r in results if r["input"] == SCALING_BASE), None)
    for r in results:
        for stage, s in r["stages"].items():
            b = base["stages"].get(stage) if base and r["kind"] == "gen" else None
            s["scaling_vs_10k"] = s["ns_per_instr"] / b["ns_per_instr"] if b else None

    # --- the table ---
    out = []
    out.append("| input | size MB | instructions | IR B/instr | `wc -l` ms | stage | CPU ms "
               "| ns/instr | MB/s | × `wc -l` | peak RSS MB | scaling |")
    out.append("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        first = True
        name = r["input"]
        if r["kind"] == "concat" and r["modules"]:
            name = f"corpus concatenation ({r['modules']:,} modules)"
        if not r["stages"]:
            out.append(f"| {name} | {r['size_bytes'] / 1e6:.1f} | | | | (failed) | | | | | | |")
        for stage, s in r["stages"].items():
            head = (f"| {name} | {fmt_3(r['size_bytes'] / 1e6)} | {r['instructions']:,} "
                    f"| {r['ir_bytes_per_instr']:.0f} | {fmt_3(r['wc_l_seconds'] * 1e3)} "
                    if first else "| | | | | ")
            first = False
            scaling = s["scaling_vs_10k"]
            out.append(head + f"| {stage} | {fmt_3(s['cpu_seconds'] * 1e3)} "
                       f"| {s['ns_per_instr']:,.1f} | {fmt_num(s['mb_per_s'], 0)} "
                       f"| {fmt_num(s['wc_ratio'], 1)} "
                       f"| {s['peak_rss_bytes'] / 1e6:,.0f}{'*' if s['peak_rss_is_process_wide'] else ''} "
                       f"| {fmt_num(scaling, 2)} |")
    m = machine(context)
    top = next((r for r in reversed(results) if r["kind"] == "gen"), None)
    notes = []
    if base and top and top is not base:
        summary = ", ".join(f"{st} {s['scaling_vs_10k']:.2f}" for st, s in top["stages"].items()
                            if s["scaling_vs_10k"] is not None)
        notes.append(f"Scaling ({top['input']} ns/instr ÷ {SCALING_BASE} ns/instr): {summary}.")
    load = m["load_avg_at_start"]
    notes.append(
        f"Times are CPU time (user + sys of the benchmark process; `wc -l` likewise), not wall "
        f"time, because the machine is shared: best of {args.repetitions} repetition(s), each "
        f"at least {args.min_time} s of CPU or, for dce, a fixed 2 to 100 iterations; "
        f"`wc -l` best of {wc_runs}. One core, {args.build_type} build, {m['cpu']} "
        f"({m['cpus']} CPUs), load average {fmt_num(load, 2)} at start, "
        f"{datetime.date.today().isoformat()}.")
    notes.append(
        "MB = 10^6 bytes of input text per CPU second (for every stage, so it compares with "
        "`wc -l`); × `wc -l` = stage time ÷ `wc -l` time on the same file (the floor). "
        "IR B/instr: in-memory IR bytes except metadata strings ÷ instructions (the "
        "concatenation's includes each small module's fixed cost). Peak RSS: the process's "
        "peak resident memory during that stage (peak reset before the stage's setup), so it "
        "includes the input text and, for verify/print/dce, the parsed modules; * marks the "
        "whole child process's peak where the reset was not allowed. Scaling: ns/instr ÷ the "
        f"same stage's ns/instr on {SCALING_BASE}. dce excludes re-parsing its input.")
    gen_flags = "; ".join(f"{label}: `hlo-gen {' '.join(flags)}`" for label, flags in GENERATED)
    notes.append(f"Generated inputs — {gen_flags}.")
    print("\n".join(out))
    print()
    for n in notes:
        print(n)
        print()
    sys.stdout.flush()

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"quick": args.quick, "build_dir": os.path.abspath(args.build_dir),
                   "build_type": args.build_type, "repetitions": args.repetitions,
                   "min_time_s": args.min_time, "time": "cpu", "machine": m,
                   "date": datetime.datetime.now().isoformat(timespec="seconds"),
                   "generated_flags": dict(GENERATED), "inputs": results,
                   "problems": problems, "notes": notes}, f, indent=1)
    log(f"wrote {args.json}")
    if problems:
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

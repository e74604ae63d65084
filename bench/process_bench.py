#!/usr/bin/env python3
"""Whole-process benchmark rows (bench/run runs it after the in-process table; see
`bench/run --help`): each hlo-opt command a user would type, run as a process on the same
inputs as the table, beside `wc -l` and `cat` on the same file. A user waits for the whole
process, so this counts what in-process CPU time leaves out: system time (page faults of a
fresh address space, reading the file), start-up and exit, and, for --split-input-file, the
wall time that --jobs spreads over the cores.

Per command: the median of N runs of wall, user and system time, peak RSS and minor page
faults, from os.wait4's rusage of the child. With --compare=OTHER_BUILD, each command runs in
both builds alternately (A B A B ...: drift of a shared machine hits both alike) and the rows
give both medians and B/A.

Output: one Markdown table on stdout (notes under it), the same figures as JSON. Exit status 1
when a command fails."""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time

from harness import fail, log, machine  # bench/harness.py, beside this file

# (name, hlo-opt arguments before the input; output goes to /dev/null). The memory report is
# written to /dev/null too (its file argument).
COMMANDS = [
    ("parse+verify", ["--stats"]),
    ("parse+verify+print", []),
    ("dce", ["--passes=dce"]),
    ("copy-elision", ["--passes=copy-elision"]),
    ("memory-profile", ["--memory-report=/dev/null"]),
]
# Goals of issue 24, checked on the largest generated input: system time at most this share
# of user time for these commands.
SYS_SHARE_GOAL = 0.25
SYS_SHARE_COMMANDS = ("parse+verify", "copy-elision", "memory-profile")
# The many-module input: this many copies of the largest curated file, `// -----` between.
CONCAT_COPIES = 50
JOBS_SPEEDUP_GOAL = 1.8


def run_once(argv, stdout_path=os.devnull):
    """Runs argv; returns its measurements (seconds, bytes, counts) or fails on a bad exit."""
    with open(stdout_path, "wb") as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        fail(f"'{' '.join(argv)}' exited with {code}")
    return {"wall": wall, "user": usage.ru_utime, "sys": usage.ru_stime,
            "rss": usage.ru_maxrss * 1024, "minflt": usage.ru_minflt}


def median_of(runs):
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def measure(variants, repetitions):
    """variants: {key: argv}. Runs them in turn, `repetitions` rounds; returns medians by key."""
    runs = {k: [] for k in variants}
    for _ in range(repetitions):
        for k, argv in variants.items():
            runs[k].append(run_once(argv))
    return {k: median_of(v) for k, v in runs.items()}


def make_concat(source, path):
    if os.path.exists(path) and os.path.getmtime(path) >= os.path.getmtime(source):
        return path
    log(f"many-module input: {CONCAT_COPIES} x {os.path.basename(source)} -> {path}")
    text = open(source, encoding="utf-8", errors="surrogateescape").read()
    if not text.endswith("\n"):
        text += "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("// -----\n".join([text] * CONCAT_COPIES))
    os.replace(tmp, path)
    return path


def ms(x):
    return f"{x * 1e3:,.1f}" if x < 100 else f"{x * 1e3:,.0f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", required=True, help="build tree with tools/hlo-opt (A)")
    ap.add_argument("--compare", metavar="OTHER_BUILD",
                    help="a second build tree (B), run interleaved with A")
    ap.add_argument("--corpus-dir", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--quick", action="store_true",
                    help="the 10K generated module only, one repetition")
    ap.add_argument("--repetitions", type=int)
    args = ap.parse_args()
    reps = args.repetitions or (1 if args.quick else 5)
    if reps < 1:
        fail("--repetitions must be at least 1")
    builds = {"A": args.build_dir}
    if args.compare:
        builds["B"] = args.compare
    tools = {}
    for key, d in builds.items():
        tools[key] = os.path.join(d, "tools", "hlo-opt")
        if not os.access(tools[key], os.X_OK):
            fail(f"{tools[key]} is missing: build the hlo-opt target in {d}")

    inputs_dir = os.path.join(args.build_dir, "bench", "inputs")
    names = ["gen_10k.hlo"] if args.quick else ["gen_10k.hlo", "gen_100k.hlo", "gen_1m.hlo"]
    inputs = []  # (label, path)
    for n in names:
        p = os.path.join(inputs_dir, n)
        if not os.path.exists(p):
            fail(f"{p} is missing: bench/harness.py makes it (run bench/run)")
        inputs.append((f"hlo-gen {n[4:-4].upper()}", p))
    corpus = sorted((os.path.join(args.corpus_dir, f) for f in os.listdir(args.corpus_dir)
                     if f.endswith(".hlo")), key=os.path.getsize)
    if not corpus:
        fail(f"no *.hlo files in {args.corpus_dir}")
    largest = corpus[-1]
    if not args.quick:
        inputs.append((os.path.basename(largest)[:-4], largest))

    rows = []
    for label, path in inputs:
        floors = measure({"wc -l": ["wc", "-l", path], "cat": ["cat", path]}, reps)
        for name, flags in COMMANDS:
            variants = {k: [t, *flags, path, "-o", os.devnull] for k, t in tools.items()}
            log(f"{label}: {name} x {reps}")
            got = measure(variants, reps)
            rows.append({"input": label, "path": os.path.abspath(path),
                         "size_bytes": os.path.getsize(path), "command": name,
                         "argv": ["hlo-opt", *flags, "FILE", "-o", "/dev/null"],
                         "results": got, "wc_l": floors["wc -l"], "cat": floors["cat"]})

    # Many modules: --jobs=1 against one job per core (and the same in B), where every build
    # has --jobs (a build from before it cannot be compared there).
    jobs_rows = []
    with_jobs = all("--jobs" in subprocess.run([t, "--help"], capture_output=True,
                                               text=True).stdout for t in tools.values())
    # Quick: a small file (the smallest of at least 10 KB), so the smoke test stays short.
    small = [f for f in corpus if os.path.getsize(f) >= 10_000] or corpus
    concat_source = small[0] if args.quick else largest
    concat = make_concat(concat_source, os.path.join(
        inputs_dir, f"many_modules_{os.path.basename(concat_source)}"))
    cores = os.cpu_count() or 1
    for jobs in ((1, cores) if with_jobs else ()):
        variants = {k: [t, "--split-input-file", f"--jobs={jobs}", concat, "-o", os.devnull]
                    for k, t in tools.items()}
        log(f"{CONCAT_COPIES} modules: --jobs={jobs} x {reps}")
        jobs_rows.append({"jobs": jobs, "results": measure(variants, reps)})

    # --- the table ---
    keys = list(builds)
    out = []
    if len(keys) == 1:
        out.append("| input | command | wall ms | user ms | sys ms | sys/user | peak RSS MB "
                   "| minor faults | wall × `wc -l` | wall × `cat` |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    else:
        out.append("| input | command | A wall ms | B wall ms | B/A wall | A user+sys ms "
                   "| B user+sys ms | B/A CPU | A faults | B faults | A RSS MB | B RSS MB |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    last = None
    for r in rows:
        head = f"| {r['input']} ({r['size_bytes'] / 1e6:.0f} MB) " if r["input"] != last else "| "
        last = r["input"]
        a = r["results"]["A"]
        if len(keys) == 1:
            out.append(
                head + f"| {r['command']} | {ms(a['wall'])} | {ms(a['user'])} | {ms(a['sys'])} "
                f"| {a['sys'] / max(a['user'], 1e-9):.2f} | {a['rss'] / 1e6:,.0f} "
                f"| {a['minflt']:,.0f} | {a['wall'] / max(r['wc_l']['wall'], 1e-9):.1f} "
                f"| {a['wall'] / max(r['cat']['wall'], 1e-9):.1f} |")
        else:
            b = r["results"]["B"]
            ca, cb = a["user"] + a["sys"], b["user"] + b["sys"]
            out.append(
                head + f"| {r['command']} | {ms(a['wall'])} | {ms(b['wall'])} "
                f"| {b['wall'] / max(a['wall'], 1e-9):.3f} | {ms(ca)} | {ms(cb)} "
                f"| {cb / max(ca, 1e-9):.3f} | {a['minflt']:,.0f} | {b['minflt']:,.0f} "
                f"| {a['rss'] / 1e6:,.0f} | {b['rss'] / 1e6:,.0f} |")
    out.append("")
    if not jobs_rows:
        out.append("(No --jobs rows: a build's hlo-opt has no --jobs.)")
    else:
        out.append("| " + f"{CONCAT_COPIES} × {os.path.basename(concat_source)}, "
                   "--split-input-file | " +
                   " | ".join(f"{k} wall ms | {k} user+sys ms" for k in keys) + " |")
        out.append("|---|" + "---:|---:|" * len(keys))
    for j in jobs_rows:
        out.append(f"| --jobs={j['jobs']} | " + " | ".join(
            f"{ms(j['results'][k]['wall'])} | {ms(j['results'][k]['user'] + j['results'][k]['sys'])}"
            for k in keys) + " |")

    # --- goals (issue 24), on build A ---
    notes = []
    top = [r for r in rows if r["input"] == inputs[len(names) - 1][0]]  # largest generated
    shares = {r["command"]: r["results"]["A"]["sys"] / max(r["results"]["A"]["user"], 1e-9)
              for r in top if r["command"] in SYS_SHARE_COMMANDS}
    for cmd, share in ({} if args.quick else shares).items():  # the goals are for 1M
        verdict = "met" if share <= SYS_SHARE_GOAL else "not met"
        notes.append(f"System time on {top[0]['input']}, {cmd}: {share:.0%} of user time "
                     f"(goal ≤ {SYS_SHARE_GOAL:.0%}: {verdict}).")
    if not args.quick and len(jobs_rows) == 2 and jobs_rows[1]["jobs"] > 1:
        speedup = jobs_rows[0]["results"]["A"]["wall"] / max(jobs_rows[1]["results"]["A"]["wall"],
                                                              1e-9)
        verdict = "met" if speedup >= JOBS_SPEEDUP_GOAL else "not met"
        notes.append(f"--jobs={jobs_rows[1]['jobs']} on {CONCAT_COPIES} modules: {speedup:.2f}x "
                     f"faster wall time than --jobs=1 (goal ≥ {JOBS_SPEEDUP_GOAL}x on 2 cores: "
                     f"{verdict}).")
        # Amdahl: with a serial share s of the --jobs=1 wall time, N jobs take s + (1 - s) / N
        # of it; solved for s from the two walls. It counts as serial whatever did not overlap
        # (reading, splitting, writing, exit, and cores that other load took).
        n = jobs_rows[1]["jobs"]
        serial = min(1.0, max(0.0, (n / speedup - 1) / (n - 1)))
        cpu1 = jobs_rows[0]["results"]["A"]["user"] + jobs_rows[0]["results"]["A"]["sys"]
        cpun = jobs_rows[1]["results"]["A"]["user"] + jobs_rows[1]["results"]["A"]["sys"]
        # Wall time over CPU time with one job: below 1 when other processes took the core.
        share = cpu1 / max(jobs_rows[0]["results"]["A"]["wall"], 1e-9)
        notes.append(f"Serial share of --jobs=1's wall time by Amdahl's law from the two walls: "
                     f"{serial:.0%}; CPU time (user+sys) with {n} jobs is "
                     f"{cpun / max(cpu1, 1e-9):.2f}x that of one job (above 1: work that parallel "
                     f"runs add, such as allocator contention). --jobs=1 got {share:.0%} of a core"
                     + (": other load held the cores, so these --jobs figures do not measure "
                        "scaling." if share < 0.9 else "."))
    m = machine({"load_avg": os.getloadavg()})  # harness.py's, with this run's load
    notes.append(f"Whole processes, median of {reps} run(s) each"
                 + (", A and B interleaved" if len(keys) > 1 else "")
                 + f"; A = {os.path.abspath(args.build_dir)}"
                 + (f", B = {os.path.abspath(args.compare)}" if args.compare else "")
                 + f". {m['cpu']} ({m['cpus']} CPUs), load average {m['load_avg_at_start']:.2f} "
                 f"at start, {datetime.date.today().isoformat()}. Wall time is sensitive to "
                 "other load on the machine; user, system and faults much less.")
    print("\n".join(out))
    print()
    for n in notes:
        print(n)
        print()
    sys.stdout.flush()
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"quick": args.quick, "builds": {k: os.path.abspath(v) for k, v in
                                                   builds.items()},
                   "repetitions": reps, "machine": m,
                   "date": datetime.datetime.now().isoformat(timespec="seconds"),
                   "rows": rows, "jobs": jobs_rows, "notes": notes}, f, indent=1)
    log(f"wrote {args.json}")


if __name__ == "__main__":
    main()

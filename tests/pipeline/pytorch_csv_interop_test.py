#!/usr/bin/env python3
"""CSV round trip with PyTorch's pipelining, both ways, for ctest `pytorch_csv_interop`.

usage: pytorch_csv_interop_test.py HLO_PIPELINE GOLDEN_DIR

PyTorch writes, we read: every schedule in testdata/pipeline/pytorch_golden in both of PyTorch's
_dump_csv formats (compute_only `pipeline_order`, with `nREDUCE_GRAD` and OVERLAP_F_B cells;
compute_comms `pipeline_order_with_comms`, with UNSHARD/RESHARD/REDUCE_GRAD) loads and simulates
in hlo-pipeline. We write, PyTorch reads: what --dump-csv writes passes the checks of
`_PipelineScheduleRuntime._load_csv(format="compute_comms")`, reimplemented below from
torch/distributed/pipelining/schedules.py at pytorch/pytorch commit
00722e648b740f91d0e71494baa17891749fd291 (`_Action.from_str`, `_validate_schedule`, the
`compute_comms` branch of `_prepare_schedule_with_comms`), plus its `_simulate_comms_compute`
progress check where PyTorch can run it (no FSDP actions, no OVERLAP_F_B).
"""
import csv
import os
import re
import subprocess
import sys
import tempfile

ACTION = re.compile(r"(\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|RECV_F|SEND_B|RECV_B)(\d*)")
KINDS = {"F", "I", "W", "UNSHARD", "RESHARD", "SEND_F", "RECV_F", "SEND_B", "RECV_B", "B",
         "OVERLAP_F_B", "REDUCE_GRAD"}
COMPUTE = {"F", "B", "I", "W", "OVERLAP_F_B"}


class LoadError(Exception):
    pass


def parse_action(text):
    """(stage, kind, microbatch, parts) or None, as _Action.from_str."""
    text = text.strip()
    if text == "":
        return None
    if text.startswith("(") and ")" in text:
        end = text.find(")")
        kind = text[end + 1:]
        if kind not in KINDS:
            raise LoadError(f"Invalid computation type {kind}")
        parts = [p for p in (parse_action(x) for x in text[1:end].split(";")) if p is not None]
        return (-1, kind, None, tuple(parts) if parts else None)
    m = ACTION.match(text)
    if not m:
        raise LoadError(f"Invalid action string: {text}")
    stage, kind, mb = m.groups()
    return (int(stage), kind, int(mb) if mb else None, None)


def validate(actions, ranks, stages, microbatches):
    """_validate_schedule: rank count, F before B/I, I before W, complete counts, one rank per
    stage (every action, communication included, names its stage's rank)."""
    if len(actions) != ranks:
        raise LoadError(f"expected {ranks} ranks, got {len(actions)}")
    seen = {s: {"F": set(), "B": set(), "I": set(), "W": set()} for s in range(stages)}
    home = {}

    def one(a, rank, step):
        s, kind, mb, _ = a
        if kind in ("F", "B", "I", "W") and s not in seen:
            raise LoadError(f"rank {rank} step {step}: stage {s} out of range")
        if kind == "F":
            seen[s]["F"].add(mb)
        elif kind in ("B", "I"):
            if mb not in seen[s]["F"]:
                raise LoadError(f"rank {rank} step {step}: {kind} of stage {s} mb {mb} before F")
            seen[s][kind].add(mb)
        elif kind == "W":
            if mb not in seen[s]["I"]:
                raise LoadError(f"rank {rank} step {step}: W of stage {s} mb {mb} before I")
            seen[s]["W"].add(mb)
        if s in home and home[s] != rank:
            raise LoadError(f"rank {rank} step {step}: stage {s} is also on rank {home[s]}")
        home.setdefault(s, rank)

    for rank in actions:
        for step, a in enumerate(actions[rank]):
            if a is None:
                continue
            for part in (a[3] if a[3] is not None else (a,)):
                one(part, rank, step)
    for s, kinds in seen.items():
        f, b, i, w = (len(kinds[k]) for k in "FBIW")
        if f != microbatches or i != w or b + (i + w) // 2 != microbatches:
            raise LoadError(f"stage {s}: F={f} B={b} I={i} W={w}, expected {microbatches}")
    return home


def load_csv(path, fmt, ranks, stages, microbatches):
    """_PipelineScheduleRuntime._load_csv up to the schedule it would run."""
    with open(path, newline="") as f:
        actions = {rank: [parse_action(c) for c in row] for rank, row in enumerate(csv.reader(f))}
    home = validate(actions, ranks, stages, microbatches)
    if fmt == "compute_comms":
        for rank, row in actions.items():
            for a in row:
                if a is None:
                    raise LoadError(f"Expected action to be not None, got {type(a)} (rank {rank})")
    else:
        for rank, row in actions.items():
            for i, a in enumerate(row):
                if a is not None and a[1] not in COMPUTE:
                    raise LoadError(f"communication action at rank {rank}, position {i}")
    return actions, home


def simulate_comms_compute(actions, home, stages):
    """_simulate_comms_compute: lockstep steps must keep making progress."""
    order = {r: [a for a in row if a is not None] for r, row in actions.items()}
    done = {r: set() for r in order}

    def key(a):
        return (a[0], a[1], a[2])

    def ready(a):
        s, kind, mb, _ = a
        prev = done[home[s]]
        if kind == "F":
            return s == 0 or (s, "RECV_F", mb) in prev or (s - 1, "F", mb) in prev
        if kind in ("I", "B"):
            return (s == stages - 1 or (s, "RECV_B", mb) in prev or (s + 1, "I", mb) in prev
                    or (s + 1, "B", mb) in prev)
        if kind == "W":
            return True
        if kind == "SEND_F":
            return (s, "F", mb) in prev
        if kind == "SEND_B":
            return (s, "I", mb) in prev or (s, "B", mb) in prev
        if kind == "RECV_F":
            return (s - 1, "SEND_F", mb) in done[home[s - 1]]
        if kind == "RECV_B":
            return (s + 1, "SEND_B", mb) in done[home[s + 1]]
        raise LoadError(f"Unsupported action type {a}")

    steps = 0
    while any(order.values()):
        progress = False
        idle = []
        for r in sorted(order):
            if order[r] and ready(order[r][0]):
                done[r].add(key(order[r].pop(0)))
                progress = True
            elif order[r]:
                idle.append(r)
        for r in idle:
            if order[r] and ready(order[r][0]):
                done[r].add(key(order[r].pop(0)))
        if not progress:
            raise LoadError("Schedule is not progressing")
        steps += 1
    return steps


def read_golden(path):
    configs, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("config "):
                p, m, v = map(int, line.split()[1:4])
                cur = {"p": p, "m": m, "v": v, "grid": {}, "comms": {}}
                configs.append(cur)
            elif cur is not None and line.split(" ", 1)[0] in ("grid", "comms"):
                tag, rest = line.split(" ", 1)
                rank, cells = rest.split(": ", 1)
                cur[tag][int(rank)] = cells
    return configs


def run(tool, *args):
    proc = subprocess.run([tool, *args], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join([tool, *args])} failed:\n{proc.stderr}")
    return proc.stdout


def write(path, rows):
    with open(path, "w") as f:
        for r in sorted(rows):
            f.write(rows[r] + "\n")


def main():
    tool, golden_dir = sys.argv[1], sys.argv[2]
    names = {"GPipe": "gpipe", "Interleaved1F1B": "interleaved:{v}", "LoopedBFS": "looped-bfs:{v}",
             "InterleavedZeroBubble": "interleaved-zb:{v}", "ZBVZeroBubble": "zb-v",
             "DualPipeV": "dualpipev"}
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "in.csv"), os.path.join(tmp, "out.csv")
        # The check can fail: an aligned grid with idle cells is refused as PyTorch refuses it.
        write(src, {0: "0F0,0SEND_F0,,0RECV_B0,0B0", 1: "1RECV_F0,1F0,1B0,1SEND_B0"})
        try:
            load_csv(src, "compute_comms", 2, 2, 1)
            raise AssertionError("an idle cell in a compute_comms CSV was accepted")
        except LoadError as e:
            assert "not None" in str(e), e
        for cls, spec in names.items():
            for c in read_golden(os.path.join(golden_dir, cls + ".golden")):
                p, m, v = c["p"], c["m"], c["v"]
                stages = p * v
                name = spec.format(v=v)
                for fmt in ("compute_only", "compute_comms"):
                    rows = c["grid"] if fmt == "compute_only" else c["comms"]
                    if not rows:
                        continue  # single-stage classes have no lowered form in the goldens
                    write(src, rows)
                    if fmt == "compute_only" and cls != "GPipe":
                        load_csv(src, fmt, p, stages, m)  # PyTorch's own file, as a sanity check
                    run(tool, f"--schedule=csv:{src}", f"--dump-csv={out}")
                    actions, home = load_csv(out, "compute_comms", p, stages, m)
                    if fmt == "compute_comms":
                        with open(src) as a, open(out) as b:
                            assert a.read() == b.read(), f"{cls} {p} {m} {v}: not written back as read"
                    plain = all(x[1] not in ("UNSHARD", "RESHARD", "REDUCE_GRAD", "OVERLAP_F_B")
                                for row in actions.values() for x in row)
                    if plain:
                        simulate_comms_compute(actions, home, stages)
                    checked += 1
                # Generated here and lowered as PyTorch lowers: the file PyTorch writes.
                if c["comms"]:
                    run(tool, f"--schedule={name}", f"--ranks={p}", f"--microbatches={m}",
                        "--recv=eager", "--fsdp-actions", f"--dump-csv={out}")
                    with open(out) as b:
                        got = b.read()
                    want = "".join(c["comms"][r] + "\n" for r in sorted(c["comms"]))
                    assert got == want, f"{cls} {p} {m} {v}: --recv=eager --fsdp-actions differs"
                    checked += 1
                # Our default lowering (RECV before use), as PyTorch would load and run it.
                run(tool, f"--schedule={name}", f"--ranks={p}", f"--microbatches={m}",
                    f"--dump-csv={out}")
                actions, home = load_csv(out, "compute_comms", p, stages, m)
                if cls != "DualPipeV":
                    simulate_comms_compute(actions, home, stages)
                checked += 1
    print(f"pytorch_csv_interop: {checked} files checked")
    assert checked > 400, checked


if __name__ == "__main__":
    main()

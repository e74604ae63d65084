"""hloscope from Python: XLA's HLO modules, their memory, copies and dataflow (docs/python.md).

    import hloscope
    m = hloscope.load("model.hlo")            # HLO text, an .hlo.pb, bytes, or jax's Compiled
    r = m.memory_report(memory_model="xla")   # the CLI's --memory-report, as objects
    r.peak_bytes, r.top_buffers.to_pandas()
    m.run_passes("copy-insertion,copy-elision").copy_report

Everything is computed by the C++ libraries (hloscope._hloscope); this file only shapes their
results. Errors are HloError (bad input: file, line, column or byte offset, and the CLI's
message) and UsageError (an option the CLI refuses).
"""
import csv
import io
import json
import os

from ._errors import HloError, UsageError
from . import _hloscope

__all__ = [
    "HloError", "UsageError", "load", "load_dump", "memory_report", "Module", "Computation",
    "Instruction", "MemoryReport", "PassResult", "DumpDirectory", "DumpModule", "Record",
    "Table", "simulate_pipeline", "PipelineSimulation", "write_schedule_csv",
    "compare_pipelines", "PipelineComparison", "memory_diff", "MemoryDiff", "OrderingAnswer",
    "RunComparison",
]


def _wrap(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return Table(value)
    return value


class Record:
    """A row of a report: the JSON report's fields as attributes (and as dict keys)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        try:
            return _wrap(self._data[name])
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field '{name}'") from None

    def __getitem__(self, name):
        return _wrap(self._data[name])

    def __contains__(self, name):
        return name in self._data

    def __dir__(self):
        return list(self._data)

    def __eq__(self, other):
        return isinstance(other, Record) and self._data == other._data

    def keys(self):
        return self._data.keys()

    def to_dict(self):
        """The fields as plain dicts, lists and Python ints (what the CLI's JSON holds)."""
        return self._data

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in self._data.items()
                           if not isinstance(v, (list, dict)))
        return f"{type(self).__name__}({fields})"


class Table(list):
    """A list of report rows (Records) that becomes a pandas DataFrame when pandas is there."""

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        return Table(item) if isinstance(index, slice) else _wrap(item)

    def __iter__(self):
        return (_wrap(x) for x in list.__iter__(self))

    def to_dicts(self):
        return [x._data if isinstance(x, Record) else x for x in list.__iter__(self)]

    def to_pandas(self):
        """A pandas.DataFrame, one row per item. Raises ImportError when pandas is missing."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError("to_pandas() needs pandas (Debian: apt-get install python3-pandas)") from e
        rows = self.to_dicts()
        if rows and not isinstance(rows[0], dict):
            return pandas.DataFrame({"value": rows})
        flat = [{k: v for k, v in r.items() if not isinstance(v, (list, dict))} for r in rows]
        return pandas.DataFrame(flat)


class Instruction(Record):
    """name, opcode, shape, operands (names), op_name, source_file, source_line, text."""


class Computation:
    """A computation: name, is_entry, instructions (in the module's text order)."""

    def __init__(self, data):
        self.name = data["name"]
        self.is_entry = data["is_entry"]
        self.instructions = [Instruction(i) for i in data["instructions"]]

    def __repr__(self):
        return f"Computation({self.name!r}, {len(self.instructions)} instructions)"


class MemoryReport(Record):
    """hlo-opt --memory-report --format=json as objects; shows its HTML page in Jupyter."""

    __slots__ = ("_comparison", "_html")

    def __init__(self, data, comparison):
        Record.__init__(self, data)
        object.__setattr__(self, "_comparison", comparison)
        object.__setattr__(self, "_html", None)

    def _repr_html_(self):
        return self.html()

    def html(self):
        """The self-contained HTML page hlo-opt --format=html writes (made on first use)."""
        if self._html is None:
            object.__setattr__(self, "_html", self._comparison.html())
        return self._html

    def to_json(self):
        """The report as JSON with integers as numbers (the CLI writes int64 as strings)."""
        return json.dumps(self._data, indent=2)

    def timeline(self):
        """The live bytes at every step, as hlo-opt --format=csv prints them: a Table of rows
        (module, step, instruction, stage, live_bytes, and the CLI's other columns: when with
        passes, host_bytes with host memory), integers as ints; .to_pandas() gives a
        DataFrame."""
        rows = []
        for row in csv.DictReader(io.StringIO(self._comparison.csv())):
            rows.append({k: (int(v) if v.lstrip("-").isdigit() else v) for k, v in row.items()})
        return Table(rows)


class PassResult:
    """What run_passes did: module (after the passes), changed, copy_report, summary."""

    def __init__(self, module, changed, copy_report, summary):
        self.module = module
        self.changed = changed
        self.copy_report = Record(copy_report) if copy_report is not None else None
        self.summary = summary

    def __repr__(self):
        return f"PassResult(changed={self.changed}, module={self.module.name!r})"


class Module:
    """A parsed and verified HLO module (load() makes one)."""

    def __init__(self, impl):
        self._impl = impl
        self._computations = None

    @property
    def name(self):
        return self._impl.name

    @property
    def label(self):
        """The input's name in messages (a file path, "<string>", "<bytes>")."""
        return self._impl.label

    @property
    def computations(self):
        if self._computations is None:
            self._computations = [Computation(c) for c in self._impl.computations()]
        return self._computations

    @property
    def entry(self):
        return next(c for c in self.computations if c.is_entry)

    @property
    def instructions(self):
        """Every instruction of every computation."""
        return [i for c in self.computations for i in c.instructions]

    def instruction(self, name):
        """The instruction called `name`; KeyError when there is none."""
        for c in self.computations:
            for i in c.instructions:
                if i.name == name:
                    return i
        raise KeyError(name)

    def verify(self):
        """Runs the verifier again; raises HloError (file:line:col) when it fails."""
        self._impl.verify()

    def print(self):
        """The module as HLO text (hlo-opt's printer)."""
        return self._impl.print()

    def __str__(self):
        return self.print()

    def __repr__(self):
        return f"<hloscope.Module {self.name!r} from {self.label}>"

    def memory_report(self, passes=None, **options):
        """hlo-opt --memory-report --format=json [--passes=PASSES] with the CLI's options.

        Each keyword is a flag of hlo-opt's memory report: memory_model="liveness" is
        --memory-model=liveness, count_tuple_tables=True is --count-tuple-tables, top=20 is
        --top=20. With passes, the result is the before/after comparison (before, after,
        saving_bytes, stages ...), as the CLI's JSON is.
        """
        data, comparison = self._impl.memory_report(_flag_args(options), passes or "")
        return MemoryReport(data, comparison)

    def run_passes(self, passes):
        """Runs a pass list ("copy-insertion,copy-elision") on a copy of the module."""
        text, changed, report, summary = self._impl.run_passes(passes)
        after = Module(_hloscope.load_bytes(text.encode(), f"{self.label} after {passes}"))
        return PassResult(after, changed, report, summary)

    def dataflow(self, bitcast_defines_value=False):
        """hlo-opt --print-dataflow --format=json: per computation, the values."""
        return Record(self._impl.dataflow(bitcast_defines_value=bitcast_defines_value))

    def buffers(self, bitcast_defines_value=False):
        """hlo-opt --print-buffers --format=json: the buffers with their values."""
        return Record(self._impl.buffers(bitcast_defines_value=bitcast_defines_value))

    def ordering_query(self, query, *, ssa_form=True, bitcast_defines_value=False):
        """hlo-opt --ordering-query=QUERY: one question to XLA's ordering, as a Record.

        query is the flag's value ("executes-before:a,b", "may-interfere:x{0},y",
        "uses-before-def:v,add:1" ...; analysis/ordering_query.h). The Record has query (as
        given), kind, line (hlo-opt's line), answer (a bool; execution-constraint's word as a
        str; for uses, the list of uses), reason (why a live range is not before, or None) and
        live_out (uses only). ssa_form=False asks of the union-form dataflow (--ssa-form=false).
        A malformed query raises UsageError, a name the module lacks HloError.
        """
        return self.ordering_queries([query], ssa_form=ssa_form,
                                     bitcast_defines_value=bitcast_defines_value)[0]

    def ordering_queries(self, queries, *, ssa_form=True, bitcast_defines_value=False):
        """Several ordering_query questions with one analysis: a Table, one Record each."""
        if isinstance(queries, str):
            raise TypeError("ordering_queries takes a list of queries (ordering_query takes one)")
        queries = list(queries)
        lines = self._impl.ordering_queries(queries, ssa_form=ssa_form,
                                            bitcast_defines_value=bitcast_defines_value)
        return Table([_ordering_answer(q, line) for q, line in zip(queries, lines)])

    def run(self, arguments=None, **options):
        """hlo-run: runs the module on the reference interpreter and returns its output.

        arguments: one per entry parameter, each nested lists of numbers/bools (a tuple
        parameter a Python tuple) or a str in HLO literal syntax (a line of hlo-run --inputs);
        None gives hlo-run's seeded random arguments. Each keyword is one of hlo-run's flags
        spelled with _: seed, mode ("value" or "buffer"), max_steps, max_bytes, rng_seed,
        host_io, elided_constants, custom_calls, mixed_precision, rng_default,
        rng_empty_range, replicas, bitcast_defines_value, assume_donated. The output is nested
        lists of int/float/bool/complex, a tuple for a tuple, None for a token; with replicas
        a list of each replica's. What the interpreter refuses raises HloError with its
        message (naming the keyword that would lift a limit); a bad option or argument
        raises UsageError.
        """
        return self._impl.run(_run_args(options), _argument_texts(arguments))

    def compare(self, other, arguments=None, **options):
        """hlo-run --compare: this module (mode_a, default "value") and other (mode_b, default
        "buffer") on the same arguments, as a Record: equal, difference (hlo-run's words for
        the first difference, or None), elements (compared, when equal), mode_a, mode_b,
        replicas. Options and arguments as run(); other may be anything load() reads."""
        if not isinstance(other, Module):
            other = load(other)
        return RunComparison(self._impl.compare(other._impl, _run_args(options),
                                                _argument_texts(arguments)))


class OrderingAnswer(Record):
    """One answer of Module.ordering_query: query, kind, line (hlo-opt's), answer, reason,
    live_out."""


class RunComparison(Record):
    """Module.compare's result: equal, difference, elements, mode_a, mode_b, replicas."""


# The answer part of each query's line, after "KIND(SUBJECT): " (analysis/ordering_query.h).
_BOOL_QUERIES = ("executes-before", "defined-before", "live-range-strictly-before",
                 "may-interfere", "uses-before-def")


def _ordering_answer(query, line):
    kind = query.split(":", 1)[0]
    answer_text = line.split("): ", 1)[1]
    record = {"query": query, "kind": kind, "line": line, "answer": None, "reason": None,
              "live_out": None}
    if kind in _BOOL_QUERIES:
        word, _, reason = answer_text.partition(" ")
        record["answer"] = word == "true"
        if reason:
            record["reason"] = reason[1:-1]  # " (why)" without its parentheses
    elif kind == "uses":
        record["live_out"] = answer_text.endswith(" (live out)")
        if record["live_out"]:
            answer_text = answer_text[:-len(" (live out)")]
        record["answer"] = [] if answer_text == "none" else answer_text.split(", ")
    else:
        record["answer"] = answer_text
    return OrderingAnswer(record)


def _run_args(options):
    options = dict(options)
    if isinstance(options.get("bitcast_defines_value"), bool):
        options["bitcast_defines_value"] = "true" if options["bitcast_defines_value"] else "false"
    return _flag_args(options)


def _literal_text(value):
    """A Python value in HLO literal syntax, for a parameter of any shape."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, complex):
        return f"({_literal_text(value.real)}, {_literal_text(value.imag)})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_literal_text(v) for v in value) + ")"
    if isinstance(value, list):
        return "{" + ", ".join(_literal_text(v) for v in value) + "}"
    raise UsageError(f"an argument holds {type(value).__name__!r}: give nested lists of bool, "
                     f"int, float or complex, a tuple for a tuple parameter, or HLO literal text")


def _argument_texts(arguments):
    if arguments is None:
        return None
    if isinstance(arguments, (str, bytes)) or not hasattr(arguments, "__iter__"):
        raise TypeError("arguments is a list with one value per entry parameter")
    return [_literal_text(a) for a in arguments]


def _flag_args(options):
    args = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args.append(f"{flag}={','.join(str(v) for v in value)}")
        else:
            args.append(f"{flag}={value}")
    return args


def load(source, *, input_format=None, name=None):
    """Reads one module: HLO text, a path (HLO text, .hlo.pb, .pbtxt), proto bytes, or
    anything with as_text() (jax's Lowered/Compiled). input_format forces "hlo", "pb" or
    "pbtxt" as hlo-opt --input-format does. Raises HloError for bad input."""
    if hasattr(source, "as_text") and not isinstance(source, (str, bytes)):
        source = source.as_text()
        name = name or "<as_text()>"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Module(_hloscope.load_bytes(bytes(source), name or "<bytes>", input_format))
    if isinstance(source, os.PathLike):
        return Module(_hloscope.load_file(os.fspath(source), input_format))
    if not isinstance(source, str):
        raise TypeError(f"hloscope.load takes HLO text, a path, bytes or an object with "
                        f"as_text(), not {type(source).__name__}")
    if "\n" in source or source.lstrip().startswith(("HloModule", "ENTRY")):
        return Module(_hloscope.load_bytes(source.encode(), name or "<string>", input_format))
    return Module(_hloscope.load_file(source, input_format))


def memory_report(module, passes=None, **options):
    """Module.memory_report for a Module or anything load() reads."""
    if not isinstance(module, Module):
        module = load(module)
    return module.memory_report(passes=passes, **options)


class MemoryDiff(Record):
    """hlo-opt --memory-diff BEFORE AFTER --format=json as objects (before, after,
    peak_delta_bytes, peak_buffers, copies, opcodes ...: analysis/memory/memory_diff.proto);
    shows the same HTML page as --format=html in Jupyter."""

    __slots__ = ("_html",)

    def __init__(self, data, html):
        Record.__init__(self, data)
        object.__setattr__(self, "_html", html)

    def _repr_html_(self):
        return self._html

    def html(self):
        """The self-contained HTML page hlo-opt --memory-diff --format=html writes."""
        return self._html

    def to_json(self):
        """The diff as JSON with integers as numbers (the CLI writes int64 as strings)."""
        return json.dumps(self._data, indent=2)


def memory_diff(before, after, **options):
    """hlo-opt --memory-diff BEFORE AFTER: what changed in memory between two modules (Modules
    or anything load() reads). Each keyword is a memory-report flag applied to both, as for
    Module.memory_report (memory_model="liveness", top=5 ...). A figure that saturates at the
    int64 maximum gives a RuntimeWarning (the CLI exits 1) and saturated=True."""
    if not isinstance(before, Module):
        before = load(before)
    if not isinstance(after, Module):
        after = load(after)
    data, html = _hloscope.memory_diff(before._impl, after._impl, _flag_args(options))
    return MemoryDiff(data, html)


class DumpModule(Record):
    """One compiled module of a dump: id, name, source, timestamp, origin, before, after,
    buffer_assignment, memory_usage_report (files: path, relative, kind ...), passes,
    other_files."""

    def load(self, which="after"):
        """The module "before" or "after" optimizations (a Module)."""
        if which not in ("before", "after"):
            raise ValueError("which is 'before' or 'after'")
        f = self._data[which]
        if f is None:
            raise HloError(f"module {self._data['name']} of the dump has no {which}_optimizations "
                           f"file", "dump")
        return Module(_hloscope.load_dump_file(f["path"]))


class DumpDirectory(Record):
    """An XLA dump directory (XLA_FLAGS=--xla_dump_to=DIR), as hlo-opt --xla-dump reads it."""

    @property
    def modules(self):
        return [DumpModule(m) for m in self._data["modules"]]

    def module(self, name):
        """The module called `name` (the last compiled, when several are); KeyError if none."""
        found = [m for m in self.modules if m.name == name]
        if not found:
            raise KeyError(name)
        return found[-1]

    def find(self, key):
        """The module with id `key` (or, failing that, the last compiled one named `key`), as
        hlo-opt --xla-dump=DIR --module=KEY picks it; KeyError if none."""
        for m in self.modules:
            if str(m.id) == str(key):
                return m
        return self.module(key)

    def memory_diff(self, before, after, which="after", **options):
        """hlo-opt --xla-dump=DIR --memory-diff=BEFORE,AFTER: the memory diff of two modules of
        the dump (by id or name), each "after" (or which="before") optimizations."""
        return memory_diff(self.find(before).load(which), self.find(after).load(which),
                           **options)


def load_dump(path):
    """Scans an XLA dump directory; raises HloError when it holds no module file."""
    return DumpDirectory(_hloscope.scan_dump(os.fspath(path)))


class PipelineSimulation(Record):
    """hlo-pipeline --schedule=NAME --json as a Record (schedule, ranks, microbatches,
    makespan, bubble, per-rank figures ...: the JSON's fields), with what hlo-pipeline's other
    outputs hold for the same run: csv (--dump-csv: PyTorch's CSV), trace (--trace: a Chrome
    trace, JSON text), grid (--grid) and grid_pytorch (--grid --grid-style=pytorch)."""

    __slots__ = ("csv", "trace", "_grids")

    def __init__(self, run):
        Record.__init__(self, json.loads(run["summary"]))
        object.__setattr__(self, "csv", run["csv"])
        object.__setattr__(self, "trace", run["trace"])
        object.__setattr__(self, "_grids", run)

    def grid(self, pytorch=False):
        """The step grid --grid prints, or with pytorch=True the compute-only order in
        PyTorch's pipeline_order layout (--grid --grid-style=pytorch). HloError when the schedule cannot be
        drawn as one."""
        key = "grid_pytorch" if pytorch else "grid"
        if self._grids[key + "_error"]:
            raise HloError(self._grids[key + "_error"], "pipeline")
        return self._grids[key]


def simulate_pipeline(schedule, **flags):
    """Simulates one pipeline schedule as hlo-pipeline --schedule=SCHEDULE --json does.

    schedule: a generator name ("1f1b", "interleaved:2", "zbv" ...) or "csv:PATH" (PyTorch's
    CSV, compute-only or with comms). Each keyword is one of hlo-pipeline's flags, spelled with
    "_": ranks=4, microbatches=8, forward_time=[1000, 1200], activation_bytes=..., no_comms=True.
    A bad flag raises UsageError with hlo-pipeline's message; a schedule that cannot run
    (deadlock, a CSV that does not match) raises HloError.
    """
    return PipelineSimulation(
        _hloscope.simulate_pipeline([f"--schedule={schedule}"] + _flag_args(flags)))


class PipelineComparison(Record):
    """hlo-pipeline --compare=NAMES --json as a Record (its schedules table, the JSON's
    fields), with each schedule that ran as a PipelineSimulation (None where it failed; its row
    says why)."""

    __slots__ = ("simulations",)

    def __init__(self, data, runs):
        Record.__init__(self, data)
        object.__setattr__(self, "simulations",
                           [PipelineSimulation(r) if r is not None else None for r in runs])


def compare_pipelines(schedules, **flags):
    """Simulates several schedules with the same flags, as hlo-pipeline --compare=A,B,... --json
    does. schedules: a list of names (or csv:PATH). A schedule that cannot run keeps its error
    in its row; the others still run."""
    if isinstance(schedules, str):
        schedules = [schedules]
    summary, runs = _hloscope.compare_pipelines(
        [f"--compare={','.join(schedules)}"] + _flag_args(flags))
    return PipelineComparison(json.loads(summary), runs)


def write_schedule_csv(simulation, path):
    """Writes the simulated schedule as PyTorch's CSV (hlo-pipeline --dump-csv=PATH)."""
    with open(path, "w") as f:
        f.write(simulation.csv)

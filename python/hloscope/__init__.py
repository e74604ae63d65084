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
import json
import os

from ._errors import HloError, UsageError
from . import _hloscope

__all__ = [
    "HloError", "UsageError", "load", "load_dump", "memory_report", "Module", "Computation",
    "Instruction", "MemoryReport", "PassResult", "DumpDirectory", "DumpModule", "Record",
    "Table", "simulate_pipeline", "PipelineSimulation", "write_schedule_csv",
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


def load_dump(path):
    """Scans an XLA dump directory; raises HloError when it holds no module file."""
    return DumpDirectory(_hloscope.scan_dump(os.fspath(path)))


class PipelineSimulation(Record):
    """hlo-pipeline --schedule=NAME --json as a Record (schedule, ranks, microbatches,
    makespan, bubble, per-rank figures ...: the JSON's fields), with the simulated schedule as
    PyTorch's CSV (what --dump-csv writes)."""

    __slots__ = ("csv",)

    def __init__(self, data, csv):
        Record.__init__(self, data)
        object.__setattr__(self, "csv", csv)


def simulate_pipeline(schedule, **flags):
    """Simulates one pipeline schedule as hlo-pipeline --schedule=SCHEDULE --json does.

    schedule: a generator name ("1f1b", "interleaved:2", "zbv" ...) or "csv:PATH" (PyTorch's
    CSV, compute-only or with comms). Each keyword is one of hlo-pipeline's flags, spelled with
    "_": ranks=4, microbatches=8, forward_time=[1000, 1200], activation_bytes=..., no_comms=True.
    A bad flag raises UsageError with hlo-pipeline's message; a schedule that cannot run
    (deadlock, a CSV that does not match) raises HloError.
    """
    summary, csv = _hloscope.simulate_pipeline([f"--schedule={schedule}"] + _flag_args(flags)
                                               + ["--json"])
    return PipelineSimulation(json.loads(summary), csv)


def write_schedule_csv(simulation, path):
    """Writes the simulated schedule as PyTorch's CSV (hlo-pipeline --dump-csv=PATH)."""
    with open(path, "w") as f:
        f.write(simulation.csv)

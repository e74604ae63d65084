"""hloscope: every function, every error, and the CLI's figures on corpus modules."""
import json
import os
import pathlib
import sys
import threading

import pytest

import hloscope
from conftest import cli_error, run_cli, same_as_cli

DUS = "openxla_xla__xla_service_gpu_gpu_copy_insertion_test.cc__DUSBitcastNoCopy.hlo"
WHILE = "openxla_xla__xla_service_memory_space_assignment_memory_space_assignment_test.cc__WhileInPlaceBuffer.hlo"
PIPELINED = "openxla_xla__xla_backends_gpu_tests_collective_pipeline_parallelism_test.cc__JaxExampleWithDecomposedCycle.hlo"
BERT = "wenboqian_GraphHelper__src_HLO_pbtxt_baseline_bert_1.hlo"
DUMP_PB = "xla_dumps/NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0003.jit__unnamed_wrapped_function_.sm_9.0_gpu_after_optimizations.hlo.pb"

SMALL = """HloModule small

ENTRY main {
  p = f32[4,8] parameter(0), metadata={op_name="jit(f)/add" source_file="model.py" source_line=12}
  q = f32[4,8] parameter(1)
  ROOT a = f32[4,8] add(p, q), metadata={op_name="jit(f)/add" source_file="model.py" source_line=13}
}
"""


# --- load ---------------------------------------------------------------------------------

def test_load_text_gives_instructions_with_metadata():
    m = hloscope.load(SMALL)
    assert m.name == "small"
    assert [c.name for c in m.computations] == ["main"]
    assert m.entry.name == "main"
    a = m.instruction("a")
    assert a.opcode == "add"
    assert a.shape.startswith("f32[4,8]")
    assert a.operands == ["p", "q"]
    assert a.op_name == "jit(f)/add"
    assert a.source_file == "model.py"
    assert a.source_line == 13 and type(a.source_line) is int
    assert m.instruction("q").source_line is None
    assert [i.name for i in m.instructions] == ["p", "q", "a"]
    with pytest.raises(KeyError):
        m.instruction("nothing")


def test_load_path_str_pathlike_and_bytes_agree(corpus):
    path = corpus / DUS
    by_str = hloscope.load(str(path))
    by_path = hloscope.load(path)
    by_bytes = hloscope.load(path.read_bytes())
    assert by_str.label == str(path)
    assert by_bytes.label == "<bytes>"
    assert by_str.print() == by_path.print() == by_bytes.print()
    assert len(by_str.instructions) == len(by_bytes.instructions) > 10


def test_load_as_text_object():
    class Compiled:  # what jax.stages.Compiled offers
        def as_text(self):
            return SMALL

    m = hloscope.load(Compiled())
    assert m.name == "small" and m.label == "<as_text()>"


def test_load_proto_file_and_bytes(corpus):
    path = corpus / DUMP_PB
    from_file = hloscope.load(path)
    from_bytes = hloscope.load(path.read_bytes(), name="dump.hlo.pb")
    assert from_file.name == from_bytes.name
    assert from_file.print() == from_bytes.print()
    assert from_bytes.label == "dump.hlo.pb (as HLO text)"


def test_print_round_trips():
    m = hloscope.load(SMALL)
    again = hloscope.load(m.print())
    assert again.print() == m.print()
    assert str(m) == m.print()
    m.verify()  # a loaded module verifies


def test_load_wrong_type():
    with pytest.raises(TypeError, match="HLO text, a path, bytes"):
        hloscope.load(42)


# --- errors -------------------------------------------------------------------------------

def test_parse_error_has_position_and_cli_message(tmp_path, hlo_opt):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT p = f32[2] parameter(0)\n  x = bogus\n}\n")
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(bad)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 4, 7)
    assert e.value.kind == "parse"
    assert str(e.value).splitlines()[0] == cli_error(hlo_opt, bad)


def test_parse_error_in_a_string_names_string():
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load("HloModule m\nENTRY e {\n  ROOT x = bogus\n}\n")
    assert e.value.file == "<string>" and e.value.line == 3


def test_verifier_error_has_position():
    text = "HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT a = f32[3] add(p, p)\n}\n"
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(text)
    assert e.value.line == 4 and e.value.file == "<string>"


def test_missing_file_is_read_error(tmp_path):
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(tmp_path / "absent.hlo")
    assert e.value.kind == "read"
    assert "absent.hlo" in e.value.message


def test_truncated_proto_names_byte_offset(corpus):
    data = (corpus / DUMP_PB).read_bytes()[:5000]
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(data)
    assert e.value.offset is not None and e.value.offset <= 5000
    assert "<bytes>" in e.value.message


def test_mlir_gets_the_clis_note(tmp_path, hlo_opt):
    mlir = "module @m {\n func.func @main() { stablehlo.constant }\n}\n"
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(mlir)
    assert "as_text(dialect=\"hlo\")" in e.value.message
    assert e.value.line == 1


def test_unknown_input_format():
    with pytest.raises(hloscope.UsageError, match="unknown input format 'xml'"):
        hloscope.load(SMALL, input_format="xml")


def test_bad_memory_option_is_the_clis_usage_error(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    with pytest.raises(hloscope.UsageError) as e:
        m.memory_report(memory_model="bogus")
    cli = cli_error(hlo_opt, corpus / DUS, "--memory-report", "--memory-model=bogus")
    assert cli == f"hlo-opt: error: {e.value.message}"
    with pytest.raises(hloscope.UsageError, match="unknown option '--no-such-flag=1'"):
        m.memory_report(no_such_flag=1)


def test_profile_error_names_the_keyword_where_the_cli_names_its_flag(tmp_path, hlo_opt):
    # The library names the option (dim_value), which is the keyword here; hlo-opt its flag.
    text = "HloModule u\nENTRY e {\n  ROOT p = f32[?,4] parameter(0)\n}\n"
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(text).memory_report()
    assert e.value.kind == "memory_report"
    assert e.value.message.endswith("unbounded dynamic dimension; size it with dim_value=N")
    assert "--dim-value" not in e.value.message
    path = tmp_path / "u.hlo"
    path.write_text(text)
    cli = cli_error(hlo_opt, path, "--memory-report")
    assert cli.endswith("unbounded dynamic dimension; size it with --dim-value=N")
    assert hloscope.load(text).memory_report(dim_value=3).peak_bytes == 48


def test_unknown_pass_is_the_clis_usage_error(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    with pytest.raises(hloscope.UsageError) as e:
        m.run_passes("nope")
    assert cli_error(hlo_opt, corpus / DUS, "--passes=nope") == f"hlo-opt: error: {e.value.message}"
    with pytest.raises(hloscope.UsageError):
        m.memory_report(passes="nope")


# --- memory report: the same figures as the CLI -------------------------------------------

@pytest.mark.parametrize("name", [DUS, WHILE, PIPELINED, BERT])
def test_memory_report_equals_cli_json(corpus, hlo_opt, name):
    m = hloscope.load(corpus / name)
    r = m.memory_report()
    cli = run_cli(hlo_opt, corpus / name, "--memory-report", "--format=json")
    same_as_cli(r.to_dict(), cli)
    assert r.peak_bytes == int(cli["peak_bytes"]) and type(r.peak_bytes) is int
    assert hloscope.memory_report(corpus / name).to_dict() == r.to_dict()


def test_memory_report_limit_warnings_and_donation_equal_cli(corpus, hlo_opt):
    # Issue 33: memory_limit and warnings as fields, and assume_donated's comparison.
    m = hloscope.load(corpus / BERT)
    r = m.memory_report(memory_limit="1GiB")
    cli = run_cli(hlo_opt, corpus / BERT, "--memory-report", "--format=json", "--memory-limit=1GiB")
    same_as_cli(r.to_dict(), cli)
    assert r.memory_limit.bytes == 1 << 30
    row = r.memory_limit.modules[0]
    assert row.verdict in ("over", "fits") and type(row.margin_bytes) is int
    assert row.text.startswith("over by" if row.verdict == "over" else "fits with")
    assert r.warnings == cli["warnings"] and all(isinstance(w, str) for w in r.warnings)
    assert m.memory_report().memory_limit is None
    d = hloscope.load(corpus / DUS).memory_report(assume_donated="all", passes="copy-elision")
    cli = run_cli(hlo_opt, corpus / DUS, "--memory-report", "--format=json", "--assume-donated=all",
                  "--passes=copy-elision")
    same_as_cli(d.to_dict(), cli)
    assert d.passes == "--passes=copy-elision --assume-donated=all"


@pytest.mark.parametrize("options,flags", [
    ({"memory_model": "liveness", "schedule": "list", "top": 3},
     ["--memory-model=liveness", "--schedule=list", "--top=3"]),
    ({"timeline": "whole-program", "count_tuple_tables": True},
     ["--timeline=whole-program", "--count-tuple-tables"]),
    ({"bitcast_defines_value": "true", "memory_model": "xla"},
     ["--bitcast-defines-value=true", "--memory-model=xla"]),
])
def test_memory_report_options_equal_cli(corpus, hlo_opt, options, flags):
    m = hloscope.load(corpus / WHILE)
    cli = run_cli(hlo_opt, corpus / WHILE, "--memory-report", "--format=json", *flags)
    same_as_cli(m.memory_report(**options).to_dict(), cli)


def test_memory_report_stages_and_pipeline_schedule_equal_cli(corpus, hlo_opt):
    m = hloscope.load(corpus / PIPELINED)
    r = m.memory_report(stage_by="module", pipeline_schedule="1f1b", microbatches=4)
    cli = run_cli(hlo_opt, corpus / PIPELINED, "--memory-report", "--format=json",
                  "--stage-by=module", "--pipeline-schedule=1f1b", "--microbatches=4")
    same_as_cli(r.to_dict(), cli)
    assert r.pipeline.schedule == "1f1b" and r.pipeline.microbatches == 4
    assert len(r.stages) >= 1 and type(r.stages[0].peak_bytes) is int


TWO_STAGES_ONE_OFFLOADED = (pathlib.Path(__file__).resolve().parents[2] / "testdata" / "analysis"
                            / "memory" / "report_ux" / "Inputs" / "two_stages_one_offloaded.hlo")


def test_memory_report_stages_split_device_and_host_as_cli(hlo_opt):
    # Worked by hand in testdata/analysis/memory/report_ux/stage_host_split.test.
    flags = dict(memory_model="liveness", stage_regex=r"/stage_(\d+)/", memory_limit="7KiB")
    r = hloscope.load(TWO_STAGES_ONE_OFFLOADED).memory_report(**flags)
    cli = run_cli(hlo_opt, TWO_STAGES_ONE_OFFLOADED, "--memory-report", "--format=json",
                  "--memory-model=liveness", r"--stage-regex=/stage_(\d+)/", "--memory-limit=7KiB")
    same_as_cli(r.to_dict(), cli)
    zero, one = r.stages
    assert (zero.peak_bytes, zero.device_peak_bytes, zero.host_peak_bytes) == (8192, 4096, 4096)
    assert (zero.device_peak_instruction, zero.host_peak_instruction) == ("a", "h")
    assert (one.peak_bytes, one.device_peak_bytes, one.host_peak_bytes) == (8192, 8192, 0)
    assert [v.verdict for v in r.memory_limit.stages] == ["fits", "over"]
    assert r.memory_limit.stages[0].peak_bytes == 4096


def test_memory_report_with_passes_equals_cli(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    r = m.memory_report(passes="copy-insertion,copy-elision")
    cli = run_cli(hlo_opt, corpus / DUS, "--passes=copy-insertion,copy-elision",
                  "--memory-report", "--format=json")
    same_as_cli(r.to_dict(), cli)
    assert r.before.peak_bytes - r.after.peak_bytes == r.saving_bytes


def test_memory_report_with_xla_assignment_from_proto(corpus, hlo_opt):
    m = hloscope.load(corpus / DUMP_PB)
    r = m.memory_report()
    cli = run_cli(hlo_opt, corpus / DUMP_PB, "--memory-report", "--format=json")
    same_as_cli(r.to_dict(), cli)
    assert r.modules[0].xla_buffer_assignment is not None


def test_memory_report_fields_and_html(corpus):
    r = hloscope.load(corpus / DUS).memory_report(top=4)
    assert len(r.top_buffers) <= 4
    b = r.top_buffers[0]
    assert type(b.bytes) is int and b.bytes > 0
    assert {"instruction", "shape", "kind", "op_name", "category"} <= set(b.keys())
    html = r._repr_html_()
    assert html.lstrip().lower().startswith("<!doctype html")
    assert r.peak_instruction in html
    assert json.loads(r.to_json())["peak_bytes"] == r.peak_bytes
    with pytest.raises(AttributeError, match="no field 'nothing'"):
        r.nothing


def test_to_pandas_with_and_without_pandas(corpus, monkeypatch):
    r = hloscope.load(corpus / DUS).memory_report()
    import importlib.util
    if importlib.util.find_spec("pandas") is not None:
        df = r.top_buffers.to_pandas()
        assert list(df["bytes"]) == [b.bytes for b in r.top_buffers]
    # Without pandas (as on a machine without python3-pandas): a clear ImportError.
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="python3-pandas"):
        r.top_buffers.to_pandas()


def test_analyses_release_the_gil_and_agree(corpus):
    m = hloscope.load(corpus / BERT)
    expected = m.memory_report().to_dict()
    results = []
    threads = [threading.Thread(target=lambda: results.append(m.memory_report().to_dict()))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 3


def test_parse_and_memory_report_let_other_threads_run(corpus):
    # A thread counting in Python only advances while the extension has released the GIL: the
    # main thread is inside one C++ call the whole time.
    largest = max(corpus.glob("*.hlo"), key=lambda p: p.stat().st_size)
    text = largest.read_bytes()
    counted = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counted[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = counted[0]
        m = hloscope._hloscope.load_bytes(text, "largest")
        during_parse = counted[0] - before
        before = counted[0]
        m.memory_report_json([], "")
        during_report = counted[0] - before
    finally:
        stop.set()
        counter.join()
    assert during_parse > 1000 and during_report > 1000, (during_parse, during_report)


# --- passes, dataflow, buffers ------------------------------------------------------------

def test_run_passes_copy_report_equals_cli(corpus, hlo_opt, tmp_path):
    m = hloscope.load(corpus / DUS)
    result = m.run_passes("copy-insertion,copy-elision")
    out = tmp_path / "report.json"
    run_cli_text = tmp_path / "after.hlo"
    import subprocess
    done = subprocess.run([str(hlo_opt), str(corpus / DUS), "--passes=copy-insertion,copy-elision",
                           f"--report={out}", "-o", str(run_cli_text)], capture_output=True)
    assert done.returncode == 0, done.stderr
    # The same document, its opportunities' text naming Python's keywords where the CLI names
    # its flags (support/option_spelling.h, issue 31).
    cli = json.loads(out.read_text())
    for o in cli.get("opportunities", []):
        o["text"] = o["text"].replace("--assume-donated=", "assume_donated=").replace(
            "--passes=", "passes=")
    assert any("assume_donated=0,1 passes=copy-elision" in o["text"]
               for o in cli["opportunities"])
    same_as_cli(result.copy_report.to_dict(), cli)
    assert result.module.print() == run_cli_text.read_text()
    assert result.changed is True
    copies = result.copy_report.copies
    assert copies and all(type(c.bytes) is int for c in copies)
    assert "copy-insertion on" in result.summary
    # The copies kept for parameters that are not donated, as one what-if (issue 33), as
    # hlo-opt's JSON has it (compared above) and its --report hint.
    opportunities = result.copy_report.to_dict()["opportunities"]
    assert [(o["kind"], o["parameters"]) for o in opportunities] == [("donation", [0, 1])]
    # The hint names where Python lists them, not hlo-opt's flag (issue 31).
    assert ("1 opportunity (768.0 MiB of copies per step): copy_report.opportunities lists it"
            in result.summary)
    # The module itself is left as loaded.
    assert m.print() == hloscope.load(corpus / DUS).print()


def test_run_passes_without_report():
    result = hloscope.load(SMALL).run_passes("dce")
    assert result.copy_report is None and result.changed is False


def test_dataflow_and_buffers_equal_cli(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    same_as_cli(m.dataflow().to_dict(),
                run_cli(hlo_opt, corpus / DUS, "--print-dataflow", "--format=json"))
    same_as_cli(m.buffers().to_dict(),
                run_cli(hlo_opt, corpus / DUS, "--print-buffers", "--format=json"))
    same_as_cli(m.dataflow(bitcast_defines_value=True).to_dict(),
                run_cli(hlo_opt, corpus / DUS, "--print-dataflow", "--format=json",
                        "--bitcast-defines-value=true"))


# --- dump directories ---------------------------------------------------------------------

def test_load_dump(tmp_path, corpus):
    name = "module_0003.jit__unnamed_wrapped_function_.sm_9.0_gpu_after_optimizations.hlo.pb"
    os.symlink(corpus / DUMP_PB, tmp_path / name)
    (tmp_path / "module_0003.jit__unnamed_wrapped_function_.before_optimizations.txt").write_text(
        SMALL)
    d = hloscope.load_dump(tmp_path)
    assert len(d.modules) == 1
    mod = d.module("jit__unnamed_wrapped_function_")
    assert mod.id == 3 and mod.after.kind == "after_optimizations"
    assert mod.load("before").name == "small"
    assert mod.load("after").name == hloscope.load(corpus / DUMP_PB).name
    with pytest.raises(KeyError):
        d.module("absent")
    with pytest.raises(ValueError):
        mod.load("during")


def test_load_dump_errors(tmp_path):
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load_dump(tmp_path)
    assert e.value.kind == "dump"
    with pytest.raises(hloscope.HloError):
        hloscope.load_dump(tmp_path / "absent")
    (tmp_path / "module_0001.m.before_optimizations.txt").write_text(SMALL)
    with pytest.raises(hloscope.HloError, match="no after_optimizations"):
        hloscope.load_dump(tmp_path).modules[0].load("after")


# --- more error paths ---------------------------------------------------------------------

def test_xla_assignment_of_another_module_is_the_clis_error(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    with pytest.raises(hloscope.HloError) as e:
        m.memory_report(xla_buffer_assignment=corpus / DUMP_PB)
    assert e.value.kind == "memory_report"
    assert cli_error(hlo_opt, corpus / DUS, "--memory-report",
                     f"--xla-buffer-assignment={corpus / DUMP_PB}") == e.value.message
    assert "does not match module 'bitcast_fusion'" in e.value.message


def test_xla_assignment_file_missing(corpus, hlo_opt):
    m = hloscope.load(corpus / DUS)
    with pytest.raises(hloscope.HloError) as e:
        m.memory_report(xla_buffer_assignment="/nonexistent/assignment.txt")
    assert e.value.kind == "read"
    assert cli_error(hlo_opt, corpus / DUS, "--memory-report",
                     "--xla-buffer-assignment=/nonexistent/assignment.txt") == \
        f"hlo-opt: error: {e.value.message}"


def test_forced_input_format_reads_a_proto_as_text(corpus, hlo_opt):
    with pytest.raises(hloscope.HloError) as e:
        hloscope.load(corpus / DUMP_PB, input_format="hlo")
    assert e.value.kind == "parse" and e.value.line == 2 and e.value.column == 1
    assert str(e.value).splitlines()[0] == cli_error(hlo_opt, corpus / DUMP_PB,
                                                     "--input-format=hlo")


# --- pipeline schedules: the same figures as hlo-pipeline ---------------------------------

@pytest.mark.parametrize("schedule,flags", [
    ("1f1b", {"ranks": 4, "microbatches": 8}),
    ("interleaved:2", {"ranks": 2, "microbatches": 4, "forward_time": [1000, 1500],
                       "activation_bytes": 1048576}),
    ("gpipe", {"ranks": 3, "microbatches": 6, "no_comms": True, "static_bytes": 10,
               "memory_limit": 12}),
])
def test_simulate_pipeline_equals_hlo_pipeline(hlo_pipeline, schedule, flags):
    import subprocess
    sim = hloscope.simulate_pipeline(schedule, **flags)
    args = [f"--schedule={schedule}"] + hloscope._flag_args(flags) + ["--json"]
    done = subprocess.run([str(hlo_pipeline), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sim.to_dict() == json.loads(done.stdout)
    assert type(sim.ranks) is int and sim.makespan > 0


def test_pipeline_csv_round_trip(tmp_path, hlo_pipeline):
    import subprocess
    sim = hloscope.simulate_pipeline("1f1b", ranks=2, microbatches=4)
    cli_csv = tmp_path / "cli.csv"
    done = subprocess.run([str(hlo_pipeline), "--schedule=1f1b", "--ranks=2", "--microbatches=4",
                           f"--dump-csv={cli_csv}"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert sim.csv == cli_csv.read_text()
    path = tmp_path / "ours.csv"
    hloscope.write_schedule_csv(sim, path)
    again = hloscope.simulate_pipeline(f"csv:{path}")
    assert again.makespan == sim.makespan and again.per_rank == sim.per_rank


def test_pipeline_errors(tmp_path, hlo_pipeline):
    with pytest.raises(hloscope.UsageError, match="--ranks is required"):
        hloscope.simulate_pipeline("1f1b", microbatches=4)
    with pytest.raises(hloscope.UsageError) as e:
        hloscope.simulate_pipeline("no-such-schedule", ranks=2, microbatches=4)
    import subprocess
    done = subprocess.run([str(hlo_pipeline), "--schedule=no-such-schedule", "--ranks=2",
                           "--microbatches=4"], capture_output=True, text=True)
    assert done.stderr.splitlines()[0] == f"hlo-pipeline: error: {e.value.message}"
    with pytest.raises(hloscope.UsageError, match="not grid, grid_pytorch, trace"):
        hloscope.simulate_pipeline("1f1b", ranks=2, microbatches=4, grid=True)
    with pytest.raises(hloscope.UsageError, match="compare_pipelines takes several"):
        hloscope.simulate_pipeline("1f1b", ranks=2, microbatches=4, compare="gpipe")
    with pytest.raises(hloscope.UsageError, match="simulate_pipeline takes one"):
        hloscope.compare_pipelines(["gpipe"], schedule="1f1b", ranks=2, microbatches=4)
    bad = tmp_path / "bad.csv"
    bad.write_text("0F0,1F0\nnot a schedule\n")
    with pytest.raises(hloscope.HloError) as e:
        hloscope.simulate_pipeline(f"csv:{bad}")
    assert e.value.kind == "pipeline"


def run_pipeline_cli(hlo_pipeline, *args, expect=0):
    import subprocess
    done = subprocess.run([str(hlo_pipeline), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == expect, done.stderr
    return done.stdout


@pytest.mark.parametrize("schedule,flags", [
    ("1f1b", {"ranks": 4, "microbatches": 8}),
    ("interleaved:2", {"ranks": 2, "microbatches": 4}),
    ("zbv", {"ranks": 2, "microbatches": 4}),
])
def test_pipeline_grids_and_trace_equal_hlo_pipeline(tmp_path, hlo_pipeline, schedule, flags):
    sim = hloscope.simulate_pipeline(schedule, **flags)
    args = [f"--schedule={schedule}"] + hloscope._flag_args(flags) + ["--json"]
    out = run_pipeline_cli(hlo_pipeline, *args, "--grid")
    assert sim.grid() and out == sim.grid() + run_pipeline_cli(hlo_pipeline, *args)
    out = run_pipeline_cli(hlo_pipeline, *args, "--grid", "--grid-style=pytorch")
    assert sim.grid(pytorch=True) and out.startswith(sim.grid(pytorch=True))
    trace = tmp_path / "trace.json"
    run_pipeline_cli(hlo_pipeline, *args, f"--trace={trace}")
    assert sim.trace == trace.read_text()
    assert json.loads(sim.trace)["traceEvents"]


def test_compare_pipelines_equals_hlo_pipeline(tmp_path, hlo_pipeline):
    flags = {"ranks": 2, "microbatches": 4, "forward_time": [1000, 1500]}
    c = hloscope.compare_pipelines(["1f1b", "gpipe", "interleaved:2"], **flags)
    cli = json.loads(run_pipeline_cli(hlo_pipeline, "--compare=1f1b,gpipe,interleaved:2",
                                      *hloscope._flag_args(flags), "--json"))
    assert c.to_dict() == cli
    assert [s.makespan for s in c.simulations] == [
        hloscope.simulate_pipeline(n, **flags).makespan for n in ("1f1b", "gpipe", "interleaved:2")]
    # A schedule that cannot run keeps its error in its row; the others still run (exit 1).
    bad = tmp_path / "bad.csv"
    bad.write_text("0F0,1F0\nnot a schedule\n")
    c = hloscope.compare_pipelines(["1f1b", f"csv:{bad}"], **flags)
    cli = json.loads(run_pipeline_cli(hlo_pipeline, f"--compare=1f1b,csv:{bad}",
                                      *hloscope._flag_args(flags), "--json", expect=1))
    assert c.to_dict() == cli
    assert c.simulations[0] is not None and c.simulations[1] is None


# --- memory diff: the same figures as hlo-opt --memory-diff -------------------------------

def test_memory_diff_equals_cli(tmp_path, corpus, hlo_opt):
    before = corpus / DUS
    after = tmp_path / "after.hlo"
    after.write_text(hloscope.load(before).run_passes("copy-elision").module.print())
    d = hloscope.memory_diff(before, after, top=5)
    same_as_cli(d.to_dict(), run_cli(hlo_opt, "--memory-diff", before, after, "--top=5",
                                     "--format=json"), "memory_diff")
    assert type(d.before.peak_bytes) is int
    assert d.html().startswith("<!DOCTYPE html>") and d._repr_html_() == d.html()
    # Modules and paths alike; options as the memory report's.
    again = hloscope.memory_diff(hloscope.load(before), hloscope.load(after), top=5)
    assert again.to_dict() == d.to_dict()
    liveness = hloscope.memory_diff(before, after, memory_model="liveness")
    same_as_cli(liveness.to_dict(), run_cli(hlo_opt, "--memory-diff", before, after,
                                            "--memory-model=liveness", "--format=json"))


def test_memory_diff_errors(corpus, hlo_opt):
    with pytest.raises(hloscope.UsageError) as e:
        hloscope.memory_diff(corpus / DUS, corpus / DUS, memory_model="best")
    assert cli_error(hlo_opt, "--memory-diff", corpus / DUS, corpus / DUS,
                     "--memory-model=best") == f"hlo-opt: error: {e.value.message}"
    with pytest.raises(hloscope.HloError) as e:
        hloscope.memory_diff(corpus / DUS, "/nonexistent/after.hlo")
    assert e.value.kind == "read"


def test_dump_directory_memory_diff_equals_cli(tmp_path, corpus, hlo_opt):
    for i, name in ((1, DUS), (2, WHILE)):
        (tmp_path / f"module_000{i}.m{i}.sm_9.0_gpu_after_optimizations.txt").write_text(
            (corpus / name).read_text())
    d = hloscope.load_dump(tmp_path)
    assert d.find(1).name == "m1" and d.find("2").name == "m2" and d.find("m2").id == 2
    with pytest.raises(KeyError):
        d.find(7)
    diff = d.memory_diff(1, "m2", top=3)
    same_as_cli(diff.to_dict(), run_cli(hlo_opt, f"--xla-dump={tmp_path}", "--memory-diff=1,m2",
                                        "--top=3", "--format=json"), "dump memory_diff")


def test_memory_report_timeline_equals_cli_csv(corpus, hlo_opt):
    import csv as csv_module
    import subprocess
    for name, passes in ((DUS, None), (WHILE, "copy-elision")):
        r = hloscope.load(corpus / name).memory_report(passes=passes)
        args = [str(hlo_opt), str(corpus / name), "--memory-report", "--format=csv"]
        if passes:
            args.append(f"--passes={passes}")
        done = subprocess.run(args, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        cli = list(csv_module.DictReader(done.stdout.splitlines()))
        rows = r.timeline()
        assert len(rows) == len(cli) > 0
        assert [{k: str(v) for k, v in row.items()} for row in rows.to_dicts()] == cli
        assert type(rows[0].live_bytes) is int and rows[0].step == 0
        if passes is None:
            assert max(row.live_bytes for row in rows) == r.peak_bytes

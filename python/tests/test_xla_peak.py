"""XLA's own peak and per-memory-space totals (XlaAssignmentComparison fields 10-15,
analysis/memory/memory_report.proto) reach Python through the memory report of a dump that
carries XLA's buffer assignment: under xla_buffer_assignment, as Python ints, equal to the
CLI's JSON."""
import pytest

import hloscope
from conftest import run_cli

TRAIN_STEP = ("xla_dumps/NVIDIA_JAX-Toolbox__maxtext_fsdp4__module_0016.jit_train_step."
              "sm_9.0_gpu_after_optimizations.hlo.pb")
PEAK_FIELDS = ["has_xla_peak", "xla_peak_bytes", "has_xla_peak_unpadded",
               "xla_peak_unpadded_bytes", "xla_peak_unpadded_unknown", "xla_memory_spaces"]


@pytest.fixture(scope="module")
def reports(corpus, hlo_opt):
    python = hloscope.load(corpus / TRAIN_STEP).memory_report()
    cli = run_cli(hlo_opt, corpus / TRAIN_STEP, "--memory-report", "--format=json")
    return python.modules[0].xla_buffer_assignment, cli["modules"][0]["xla_buffer_assignment"]


def test_xla_peak_fields_equal_the_clis(reports):
    xla, cli = reports
    assert xla is not None
    for field in PEAK_FIELDS:
        assert field in xla, field
    assert xla.has_xla_peak is True and xla.has_xla_peak_unpadded is True
    assert xla.xla_peak_unpadded_unknown == ""
    assert type(xla.xla_peak_bytes) is int and xla.xla_peak_bytes == int(cli["xla_peak_bytes"])
    assert xla.xla_peak_unpadded_bytes == int(cli["xla_peak_unpadded_bytes"])
    spaces = xla.xla_memory_spaces.to_dicts()
    assert spaces == [{k: int(v) for k, v in s.items()} for s in cli["xla_memory_spaces"]]
    assert all(type(v) is int for s in spaces for v in s.values())


def test_xla_peak_figures_agree_with_each_other(reports):
    xla, _ = reports
    # Padding only adds bytes; the peak is at most every allocation at once.
    assert 0 < xla.xla_peak_unpadded_bytes <= xla.xla_peak_bytes
    total = next(t.xla_bytes for t in xla.totals if t.kind == "total")
    assert sum(s.total_bytes for s in xla.xla_memory_spaces) == total
    assert xla.xla_peak_bytes <= total
    for s in xla.xla_memory_spaces:
        assert 0 <= s.indefinite_bytes <= s.total_bytes and s.allocations > 0


def test_text_module_has_no_xla_peak(corpus):
    # A module read as HLO text has no heap traces: no XLA assignment, so no peak.
    m = hloscope.load(hloscope.load(corpus / TRAIN_STEP).print())
    assert m.memory_report().modules[0].xla_buffer_assignment is None


def test_modeled_xla_peak_only_when_asked_for_or_beside_xlas(corpus, hlo_opt):
    # Our model's peak as XLA counts it lays the whole module out: a plain report of a text
    # module leaves it out; xla_peak=True (hlo-opt --xla-peak) asks for it, with the CLI's
    # figure; beside XLA's own assignment (the .hlo.pb) it is there unasked, equal to XLA's.
    text = hloscope.load(corpus / TRAIN_STEP).print()
    plain = hloscope.load(text).memory_report().modules[0]
    assert not plain.has_modeled_xla_peak and plain.modeled_xla_peak_unknown == ""
    asked = hloscope.load(text).memory_report(xla_peak=True).modules[0]
    assert asked.has_modeled_xla_peak and isinstance(asked.modeled_xla_peak_bytes, int)
    beside = hloscope.load(corpus / TRAIN_STEP).memory_report()
    xla = beside.modules[0].xla_buffer_assignment
    assert beside.modules[0].has_modeled_xla_peak
    assert beside.modules[0].modeled_xla_peak_bytes == xla.xla_peak_bytes

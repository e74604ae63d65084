"""The real XLA dumps of a pipelined JAX step (testdata/dumps/Inputs/jax_pipeline) through
`import hloscope`: one after-optimization HloProto per backend loaded from its .hlo.pb, and the
memory report's peak figures equal to hlo-opt's for the same file (and pinned, so that a change
to either shows)."""
import pathlib

import pytest

import hloscope
from conftest import run_cli, same_as_cli

DUMPS = pathlib.Path(__file__).resolve().parents[2] / "testdata" / "dumps" / "Inputs" / "jax_pipeline"
GPU_PLAIN = DUMPS / "gpu_h200" / "module_5967.jit_pipelined_train_step.sm_9.0a_gpu_after_optimizations.hlo.pb"
CPU_REMAT = DUMPS / "cpu" / "module_0020.jit_pipelined_train_step_remat.cpu_after_optimizations.hlo.pb"


@pytest.mark.parametrize("path,peak,instruction,act_bytes", [
    (GPU_PLAIN, 12222527, "while.29", 139269),
    (CPU_REMAT, 10158143, "while.5", 40965),
])
def test_peak_figures_equal_the_clis(hlo_opt, path, peak, instruction, act_bytes):
    module = hloscope.load(path)
    report = module.memory_report()
    cli = run_cli(hlo_opt, path, "--memory-report", "--format=json")
    same_as_cli(report.to_dict(), cli)
    assert report.peak_bytes == int(cli["peak_bytes"]) == peak
    assert report.peak_instruction == cli["peak_instruction"] == instruction
    stage = report.stages[0]
    assert stage.activation_source == "stash"
    assert stage.activation_bytes_per_microbatch == act_bytes
    assert stage.peak_bytes == peak


def test_xla_assignment_beside_ours_equals_the_clis(hlo_opt):
    # The proto carries XLA's own buffer assignment: the report puts it beside the model's, as
    # the CLI does, and the per-kind totals are XLA's to the byte (the model's temp allocation
    # equals XLA's: testdata/dumps/jax_pipeline_memory.test).
    report = hloscope.load(GPU_PLAIN).memory_report()
    cli = run_cli(hlo_opt, GPU_PLAIN, "--memory-report", "--format=json")
    totals = {t.kind: (t.ours_bytes, t.xla_bytes) for t in report.modules[0].xla_buffer_assignment.totals}
    assert totals == {t["kind"]: (int(t["ours_bytes"]), int(t["xla_bytes"]))
                      for t in cli["modules"][0]["xla_buffer_assignment"]["totals"]}
    assert totals["total"] == (12226708, 12226708)
    for ours, xla in totals.values():
        assert ours == xla

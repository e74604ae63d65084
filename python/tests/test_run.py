"""Module.run and Module.compare: hlo-run over the reference interpreter (eval/), with its
options as keywords, the outputs as plain Python values, refusals as HloError with the
interpreter's message (the keyword that lifts a limit named as Python spells it)."""
import math
import subprocess

import pytest

import hloscope
from conftest import run_text

KINDS = """HloModule kinds

ENTRY e {
  p = f32[2,3] parameter(0)
  q = s32[] parameter(1)
  b = pred[2] parameter(2)
  u = u64[2] parameter(3)
  c = c64[2] parameter(4)
  n = f32[2,3] negate(p)
  qq = s32[] multiply(q, q)
  nb = pred[2] not(b)
  cc = c64[2] multiply(c, c)
  ROOT t = (f32[2,3], s32[], pred[2], u64[2], c64[2]) tuple(n, qq, nb, u, cc)
}
"""

ADD = """HloModule add

ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT r = f32[4] add(a, b)
}
"""

LOOP = """HloModule loop

body {
  x = f32[] parameter(0)
  ROOT n = f32[] negate(x)
}

cond {
  y = f32[] parameter(0)
  ROOT c = pred[] convert(y)
}

ENTRY e {
  one = f32[] constant(1)
  ROOT w = f32[] while(one), condition=cond, body=body
}
"""

RNG = """HloModule rng

ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[3] rng(lo, hi), distribution=rng_uniform
}
"""


def cli_value(printed):
    """hlo-run's printed array (`f32[4] {1, 2.5, ...}`) as Python floats."""
    body = printed.split(" ", 1)[1].strip()
    return [float(x) for x in body.strip("{}").split(",")]


def test_given_arguments_of_every_kind_give_exact_values():
    m = hloscope.load(KINDS)
    out = m.run([[[1, 2.5, -3], [0.125, math.inf, 7]], -4, [True, False], [2**64 - 1, 3],
                 [1 + 2j, -1j]])
    assert out == ([[-1.0, -2.5, 3.0], [-0.125, -math.inf, -7.0]], 16, [False, True],
                   [2**64 - 1, 3], [(1 + 2j) ** 2, -1 + 0j])
    assert type(out) is tuple and type(out[1]) is int and type(out[2][0]) is bool
    assert type(out[0][0][0]) is float and type(out[4][0]) is complex
    # HLO literal text (a line of hlo-run --inputs) is taken as it is, and buffer mode agrees.
    text = ["{{1,2,3},{4,5,6}}", "3", "{true, true}", "{1, 2}", "{(0, 1), (2, 0)}"]
    assert m.run(text, mode="buffer") == m.run(text) == (
        [[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]], 9, [False, False], [1, 2], [-1 + 0j, 4 + 0j])
    # NaN travels both ways.
    nan = m.run([[[math.nan] * 3] * 2, 0, [True, True], [0, 0], [0j, 0j]])[0]
    assert all(math.isnan(x) for row in nan for x in row)


def test_seeded_arguments_are_hlo_runs(tmp_path, hlo_run):
    path = tmp_path / "add.hlo"
    path.write_text(ADD)
    m = hloscope.load(path)
    for seed in (0, 7):
        assert m.run(seed=seed) == cli_value(run_text(hlo_run, path, f"--seed={seed}"))
        assert m.run(seed=seed, mode="buffer") == m.run(seed=seed)
    assert m.run(seed=0) != m.run(seed=7)
    # With replicas, each replica's output (replica R: seed + R, as hlo-run gives them).
    replicas = m.run(seed=3, replicas=2)
    assert replicas == [m.run(seed=3), m.run(seed=4)]


def test_refusals_are_hlo_errors_naming_the_keyword(tmp_path, hlo_run):
    for text, options, keyword, flag in [(LOOP, {"max_steps": 50}, "max_steps", "--max-steps"),
                                         (RNG, {}, "rng_seed=N", "--rng-seed=N")]:
        path = tmp_path / "m.hlo"
        path.write_text(text)
        with pytest.raises(hloscope.HloError) as e:
            hloscope.load(path).run(**options)
        assert e.value.kind == "run"
        assert e.value.message.endswith(f"({keyword})")
        cli = run_text(hlo_run, path, *(f"--{k.replace('_', '-')}={v}" for k, v in options.items()),
                       ok=False)
        assert cli == "hlo-run: error: " + e.value.message[:-len(keyword) - 2] + f"({flag})"
    # The option lifts it, as on the CLI.
    assert len(hloscope.load(RNG).run(rng_seed=5)) == 3


@pytest.mark.parametrize("options", [{"mode": "bogus"}, {"max_steps": "many"}, {"nope": 1}])
def test_bad_option_is_hlo_runs_usage_error(tmp_path, hlo_run, options):
    path = tmp_path / "add.hlo"
    path.write_text(ADD)
    with pytest.raises(hloscope.UsageError) as e:
        hloscope.load(path).run(**options)
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in options.items()]
    assert run_text(hlo_run, path, *flags, ok=False) == f"hlo-run: error: {e.value}"


@pytest.mark.parametrize("options", [{"inputs": "args.txt"}, {"compare": True},
                                     {"print_all": True}, {"jobs": 2}])
def test_cli_only_options_are_refused(options):
    with pytest.raises(hloscope.UsageError, match="takes hlo-run's run options"):
        hloscope.load(ADD).run(**options)


@pytest.mark.parametrize("arguments, message", [
    ([[1, 2, 3, 4]], "1 arguments for 2 entry parameters"),
    ([[1, 2, 3], [1, 2, 3, 4]], r"argument 0 \(f32\[4\]\): .*dimension 0 of f32\[4\] has 4 elements, found '}' after 3"),
    ([[1, 2, 3, 4], [object()] * 4], "an argument holds 'object'"),
])
def test_bad_arguments_are_usage_errors(arguments, message):
    with pytest.raises(hloscope.UsageError, match=message):
        hloscope.load(ADD).run(arguments)
    with pytest.raises(TypeError):
        hloscope.load(ADD).run("{1, 2, 3, 4}")


def test_token_and_dynamic_outputs():
    # A token is None; a bounded dynamic array gives the elements inside its size.
    m = hloscope.load("""HloModule tok

ENTRY e {
  p = f32[4] parameter(0)
  t = token[] after-all()
  n = s32[] constant(3)
  d = f32[<=4] set-dimension-size(p, n), dimensions={0}
  ROOT r = (f32[<=4], token[]) tuple(d, t)
}
""")
    assert m.run([[1, 2, 3, 4]]) == ([1.0, 2.0, 3.0], None)


def test_bad_donation_is_hlo_runs_message(tmp_path, hlo_run):
    path = tmp_path / "add.hlo"
    path.write_text(ADD)
    with pytest.raises(hloscope.UsageError) as e:
        hloscope.load(path).run(assume_donated="9")
    assert run_text(hlo_run, path, "--assume-donated=9", ok=False) == f"hlo-run: error: {e.value}"


def test_run_leaves_the_module_as_loaded():
    m = hloscope.load(ADD)
    before = m.print()
    assert m.run([[1, 2, 3, 4], [4, 3, 2, 1]], mode="buffer", assume_donated="all") == [5.0] * 4
    assert m.print() == before


def test_compare_as_hlo_run(tmp_path, hlo_run):
    a = tmp_path / "a.hlo"
    a.write_text(ADD)
    b = tmp_path / "b.hlo"
    b.write_text(ADD.replace("add(a, b)", "subtract(a, b)"))
    m = hloscope.load(a)
    same = m.compare(m.run_passes("copy-insertion").module, seed=2)
    assert isinstance(same, hloscope.RunComparison)
    assert (same.equal, same.difference, same.elements) == (True, None, 4)
    assert (same.mode_a, same.mode_b) == ("value", "buffer")
    differ = m.compare(b, seed=2, mode_a="buffer")
    assert differ.equal is False and differ.elements is None
    done = subprocess.run([str(hlo_run), "--compare", "--seed=2", "--mode-a=buffer", a, b],
                          capture_output=True, text=True)
    assert done.returncode == 1  # hlo-run's "outputs differ"
    assert done.stdout == f"outputs differ: {a} (buffer) vs {b} (buffer): {differ.difference}\n"
    # Given arguments: a + b and a - b agree where b is zero.
    assert m.compare(b, [[1, 2, 3, 4], [0, 0, 0, 0]]).equal


def test_compare_refusals_are_the_interpreters():
    with pytest.raises(hloscope.HloError, match=r"runs rng only with a seed .*\(rng_seed=N\)$"):
        hloscope.load(RNG).compare(hloscope.load(RNG))
    assert hloscope.load(RNG).compare(hloscope.load(RNG), rng_seed=1).equal


def test_compare_refuses_other_parameters():
    with pytest.raises(hloscope.HloError, match="cannot compare: the entry parameters differ"):
        hloscope.load(ADD).compare(hloscope.load(ADD.replace("f32[4]", "f32[5]")))

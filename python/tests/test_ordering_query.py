"""Module.ordering_query / ordering_queries: hlo-opt --ordering-query's questions and answers
(analysis/ordering_query.h) as Records, and its errors as UsageError / HloError."""
import pytest

import hloscope
from conftest import ROOT, run_text

WHILE = ROOT / "testdata" / "xla" / "ordering" / "values_in_while_computations.hlo"
ASYNC = ROOT / "testdata" / "xla" / "ordering" / "ordering_between_async_op_and_its_wrapped.hlo"

# One query of each kind, with answers of each form: true, false with a reason, a constraint
# word, uses with and without live out, uses-before-def.
QUERIES = [
    "executes-before:constant,add",
    "executes-before:add,constant",
    "execution-constraint:constant,add",
    "defined-before:while,add",
    "live-range-strictly-before:constant,while",
    "live-range-strictly-before:negate,while",
    "may-interfere:constant,while",
    "may-interfere:negate,while",
    "uses:while",
    "uses:add",
    "uses-before-def:add,add:1",
    "uses-before-def:while,add:1",
]


def cli_lines(path, queries, *flags):
    args = [f"--ordering-query={q}" for q in queries]
    return run_text(HLO_OPT, path, *flags, *args).splitlines()


@pytest.fixture(autouse=True)
def _hlo_opt(hlo_opt):
    global HLO_OPT
    HLO_OPT = hlo_opt


def test_every_query_kind_answers_as_the_cli():
    m = hloscope.load(WHILE)
    table = m.ordering_queries(QUERIES)
    assert [r.line for r in table] == cli_lines(WHILE, QUERIES)
    for query in QUERIES:  # one at a time: the same Record
        assert m.ordering_query(query) == table[QUERIES.index(query)]


def test_answers_are_python_values():
    m = hloscope.load(WHILE)
    r = m.ordering_query("executes-before:constant,add")
    assert isinstance(r, hloscope.OrderingAnswer)
    assert (r.query, r.kind, r.answer, r.reason, r.live_out) == (
        "executes-before:constant,add", "executes-before", True, None, None)
    assert m.ordering_query("executes-before:add,constant").answer is False
    r = m.ordering_query("live-range-strictly-before:constant,while")
    assert r.answer is False
    assert r.reason == "read by add operand 0 {} not before while{} (phi)"
    assert m.ordering_query("live-range-strictly-before:negate,while").reason is None
    assert m.ordering_query("execution-constraint:constant,add").answer == "run-before-start"
    r = m.ordering_query("uses:while")
    assert (list(r.answer), r.live_out) == (["add operand 1 {}"], False)
    r = m.ordering_query("uses:add")
    assert (list(r.answer), r.live_out) == ([], True)
    assert m.ordering_query("uses-before-def:add,add:1").answer is True


def test_async_op_and_its_wrapped_op_are_the_same():
    m = hloscope.load(ASYNC)
    queries = ["execution-constraint:dynamic-update-slice-start,dynamic-update-slice.1",
               "executes-before:dynamic-update-slice.1,dynamic-update-slice-done"]
    table = m.ordering_queries(queries)
    assert [r.answer for r in table] == ["is-same", False]
    assert [r.line for r in table] == cli_lines(ASYNC, queries)


def test_union_form_as_the_cli():
    m = hloscope.load(WHILE)
    queries = ["uses:constant", "uses-before-def:add,negate:0"]
    table = m.ordering_queries(queries, ssa_form=False)
    assert [r.line for r in table] == cli_lines(WHILE, queries, "--ssa-form=false")
    assert len(table[0].answer) == 5
    # A position with several values answers nothing: HloError with the CLI's message, the
    # option spelled as the method.
    with pytest.raises(hloscope.HloError) as e:
        m.ordering_query("uses:body_param", ssa_form=False)
    cli = run_text(HLO_OPT, WHILE, "--ssa-form=false", "--ordering-query=uses:body_param", ok=False)
    assert cli == "hlo-opt: error: " + e.value.message.replace("ordering_query", "--ordering-query", 1)
    assert e.value.message.startswith("ordering_query 'uses:body_param': body_param{} holds 2 values")
    assert e.value.kind == "analysis"


@pytest.mark.parametrize("query", [
    "executes-after:constant,add",      # unknown query
    "executes-before",                  # no arguments
    "execution-constraint:constant",    # too few
    "defined-before:while{0,x},add",    # a bad index
    "may-interfere:while{0,add",        # an unclosed brace
])
def test_malformed_query_is_a_usage_error_worded_as_the_cli(query):
    m = hloscope.load(WHILE)
    with pytest.raises(hloscope.UsageError) as e:
        m.ordering_query(query)
    assert isinstance(e.value, ValueError)
    message = str(e.value)
    assert message.startswith(f"option 'ordering_query' in '{query}': ")
    cli = run_text(HLO_OPT, WHILE, f"--ordering-query={query}", ok=False)
    assert cli == "hlo-opt: error: " + message.replace("'ordering_query'", "'--ordering-query'", 1)


@pytest.mark.parametrize("query", [
    "executes-before:constant,nothere",  # an instruction the module lacks
    "uses:add{0}",                       # an index its shape lacks
    "uses-before-def:add,add:7",         # an operand past its operands
])
def test_names_the_module_lacks_are_hlo_errors(query):
    m = hloscope.load(WHILE)
    with pytest.raises(hloscope.HloError) as e:
        m.ordering_queries(["executes-before:constant,add", query])  # nothing is answered
    assert e.value.message.startswith(f"ordering_query '{query}': ")
    cli = run_text(HLO_OPT, WHILE, f"--ordering-query={query}", ok=False)
    assert cli == "hlo-opt: error: " + e.value.message.replace("ordering_query", "--ordering-query", 1)


def test_bitcast_defines_value_as_the_cli(tmp_path):
    path = tmp_path / "bitcast.hlo"
    path.write_text("""HloModule bitcast

ENTRY e {
  p = f32[4] parameter(0)
  b = f32[2,2] bitcast(p)
  ROOT n = f32[2,2] negate(b)
}
""")
    m = hloscope.load(path)
    alias = m.ordering_query("uses:b")
    defines = m.ordering_query("uses:b", bitcast_defines_value=True)
    assert alias.line == "uses(p{}): n operand 0 {}"  # the bitcast's value is p's
    assert defines.line == "uses(b{}): n operand 0 {}"
    assert defines.line == cli_lines(path, ["uses:b"], "--bitcast-defines-value=true")[0]
    assert alias.line == cli_lines(path, ["uses:b"])[0]


def test_ordering_queries_takes_a_list():
    m = hloscope.load(WHILE)
    with pytest.raises(TypeError):
        m.ordering_queries("uses:add")
    assert list(m.ordering_queries([])) == []

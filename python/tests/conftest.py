"""Where the tests find the corpus and the hlo-opt they compare with.

The ctest entry (python/CMakeLists.txt) and scripts/test set HLOSCOPE_HLO_OPT and
HLOSCOPE_CORPUS_DIR; run by hand from the repository root, the defaults are build/tools/hlo-opt
and ../shared/corpus.
"""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def corpus():
    path = pathlib.Path(os.environ.get("HLOSCOPE_CORPUS_DIR", ROOT.parent / "shared" / "corpus"))
    if not path.is_dir():
        pytest.fail(f"the corpus is not at {path}: set HLOSCOPE_CORPUS_DIR")
    return path


@pytest.fixture(scope="session")
def hlo_opt():
    path = pathlib.Path(os.environ.get("HLOSCOPE_HLO_OPT", ROOT / "build" / "tools" / "hlo-opt"))
    if not path.is_file():
        pytest.fail(f"hlo-opt is not at {path}: build it, or set HLOSCOPE_HLO_OPT")
    return path


def run_cli(hlo_opt, *args):
    """hlo-opt's output as parsed JSON (the tests compare the Python objects with it)."""
    done = subprocess.run([str(hlo_opt), *map(str, args)], capture_output=True, text=True, errors="replace")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cli_error(hlo_opt, *args):
    """The first line hlo-opt prints on stderr for a failing command."""
    done = subprocess.run([str(hlo_opt), *map(str, args)], capture_output=True, text=True, errors="replace")
    assert done.returncode != 0
    return done.stderr.splitlines()[0]


def same_as_cli(python_value, cli_value, where="report"):
    """Asserts the Python report equals the CLI's JSON: int64 fields are strings in the JSON
    (proto3's mapping) and ints in Python; a sub-report the JSON leaves out is None."""
    if isinstance(python_value, dict):
        assert isinstance(cli_value, dict), where
        for key, value in python_value.items():
            if key not in cli_value:
                assert value is None or value == [] or value == {}, f"{where}.{key}: {value!r}"
                continue
            same_as_cli(value, cli_value[key], f"{where}.{key}")
        extra = set(cli_value) - set(python_value)
        assert not extra, f"{where}: the CLI has fields Python lacks: {extra}"
    elif isinstance(python_value, list):
        assert isinstance(cli_value, list) and len(python_value) == len(cli_value), where
        for k, (p, c) in enumerate(zip(python_value, cli_value)):
            same_as_cli(p, c, f"{where}[{k}]")
    elif isinstance(python_value, bool):
        assert python_value == cli_value, where
    elif isinstance(python_value, int):
        assert type(python_value) is int, where
        assert python_value == int(cli_value), f"{where}: {python_value} != {cli_value}"
    elif isinstance(python_value, float):
        assert python_value == pytest.approx(float(cli_value)), where
    else:
        assert python_value == cli_value, f"{where}: {python_value!r} != {cli_value!r}"


@pytest.fixture(scope="session")
def hlo_run(hlo_opt):
    """hlo-run beside hlo-opt (HLOSCOPE_HLO_RUN to override)."""
    path = pathlib.Path(os.environ.get("HLOSCOPE_HLO_RUN", hlo_opt.parent / "hlo-run"))
    if not path.is_file():
        pytest.fail(f"hlo-run is not at {path}: build it, or set HLOSCOPE_HLO_RUN")
    return path


def run_text(tool, *args, ok=True):
    """A tool's stdout (ok) or the first line of its stderr (not ok), as text."""
    done = subprocess.run([str(tool), *map(str, args)], capture_output=True, text=True, errors="replace")
    assert (done.returncode == 0) == ok, (done.returncode, done.stderr)
    return done.stdout if ok else done.stderr.splitlines()[0]


@pytest.fixture(scope="session")
def hlo_pipeline(hlo_opt):
    """hlo-pipeline beside hlo-opt (HLOSCOPE_HLO_PIPELINE to override)."""
    path = pathlib.Path(os.environ.get("HLOSCOPE_HLO_PIPELINE", hlo_opt.parent / "hlo-pipeline"))
    if not path.is_file():
        pytest.fail(f"hlo-pipeline is not at {path}: build it, or set HLOSCOPE_HLO_PIPELINE")
    return path

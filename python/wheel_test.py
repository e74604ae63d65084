#!/usr/bin/env python3
"""Packaging test of `import hloscope`: builds a wheel offline the way users do
(`pip wheel --no-build-isolation --no-index .`, with Debian's setuptools and wheel), installs it
into a fresh virtual environment that sees nothing of this machine's site-packages, and imports
it there from another directory: the extension, the pure-Python package, the type stubs and
py.typed must all be in the wheel, and the installed package must work.

The extension is the one the CMake build made (HLOSCOPE_PYTHON_EXTENSION tells setup.py to
package it rather than build another), and the wheel is built from a copy of the files pip
needs, so the test writes nothing into the source tree.

Usage: wheel_test.py PYTHON SOURCE_DIR EXTENSION WORK_DIR
Exit status 0 when every check passes.
"""
import pathlib
import shutil
import subprocess
import sys
import zipfile

SMALL = """HloModule small

ENTRY main {
  p = f32[4,8] parameter(0)
  ROOT n = f32[4,8] negate(p)
}
"""

# Run inside the venv, from WORK_DIR: the installed package, not the source tree or build/.
CHECK = """
import pathlib, sys
import hloscope
here = pathlib.Path(hloscope.__file__).resolve().parent
assert "site-packages" in str(here), here
for name in ("__init__.pyi", "py.typed"):
    assert (here / name).is_file(), name
m = hloscope.load(sys.argv[1])
r = m.memory_report()
assert m.name == "small" and type(r.peak_bytes) is int and r.peak_bytes == 256, r.peak_bytes
try:
    hloscope.load("HloModule broken\\nENTRY e {\\n")
except hloscope.HloError as e:
    assert e.line is not None
else:
    raise AssertionError("a broken module loaded")
print("imported", hloscope.__file__)
"""


def run(*args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(map(str, args))} exited {done.returncode}\n"
                 f"{done.stdout}\n{done.stderr}")
    return done.stdout


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    python, source, extension, work = (pathlib.Path(a) for a in sys.argv[1:])
    shutil.rmtree(work, ignore_errors=True)
    tree = work / "src"
    (tree / "python").mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(source / name, tree / name)
    shutil.copytree(source / "python" / "hloscope", tree / "python" / "hloscope")

    wheels = work / "wheels"
    run(python, "-m", "pip", "wheel", "--no-build-isolation", "--no-index", "--no-deps",
        "-w", wheels, tree, env={"HLOSCOPE_PYTHON_EXTENSION": str(extension),
                                 "PATH": "/usr/bin:/bin", "HOME": str(work)})
    found = list(wheels.glob("hloscope-*.whl"))
    if len(found) != 1:
        sys.exit(f"FAIL: expected one hloscope wheel in {wheels}, found {found}")
    names = zipfile.ZipFile(found[0]).namelist()
    for wanted in ("hloscope/__init__.py", "hloscope/__init__.pyi", "hloscope/py.typed",
                   "hloscope/_errors.py"):
        if wanted not in names:
            sys.exit(f"FAIL: {wanted} is not in {found[0].name}: {names}")
    if not any(n.startswith("hloscope/_hloscope") and n.endswith(".so") for n in names):
        sys.exit(f"FAIL: no extension in {found[0].name}: {names}")

    venv = work / "venv"
    run(python, "-m", "venv", venv)
    venv_python = venv / "bin" / "python"
    run(venv_python, "-m", "pip", "install", "--no-index", "--no-deps", found[0],
        env={"PATH": "/usr/bin:/bin", "HOME": str(work)})
    module = work / "small.hlo"
    module.write_text(SMALL)
    print(run(venv_python, "-c", CHECK, module, cwd=work, env={"HOME": str(work)}), end="")
    print("PASS")


if __name__ == "__main__":
    main()

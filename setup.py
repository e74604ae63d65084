"""Builds hloscope._hloscope with CMake for pip (pyproject.toml): `pip install
--no-build-isolation .` configures build-python/ (or $HLOSCOPE_PYTHON_BUILD_DIR: an existing
build tree keeps its configuration), builds the extension target only and puts it in the
package. No download: CMake finds Debian's packages.

HLOSCOPE_PYTHON_EXTENSION=PATH packages an extension built already (the CMake target
_hloscope) instead of building one: the wheel test (python/wheel_test.py) uses it."""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        prebuilt = os.environ.get("HLOSCOPE_PYTHON_EXTENSION")
        if prebuilt:
            shutil.copy2(prebuilt, target)
            return
        build_dir = pathlib.Path(os.environ.get("HLOSCOPE_PYTHON_BUILD_DIR", ROOT / "build-python"))
        jobs = os.environ.get("HLOSCOPE_JOBS", str(os.cpu_count() or 1))
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DHLOSCOPE_PYTHON=ON",
            # The interpreter pip runs under is the one the extension is for.
            "-DPython3_EXECUTABLE=" + sys.executable,
        ]
        # A build tree configured already keeps its build type (HLOSCOPE_PYTHON_BUILD_DIR=build
        # reuses a developer's build); a new one is Release.
        if not (build_dir / "CMakeCache.txt").exists():
            configure.append("-DCMAKE_BUILD_TYPE=" + os.environ.get("HLOSCOPE_BUILD_TYPE", "Release"))
        if shutil.which("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", jobs, "--target", "_hloscope"],
                       check=True)
        built = next((build_dir / "python" / "hloscope").glob("_hloscope*.so"))
        shutil.copy2(built, target)


setup(ext_modules=[Extension("hloscope._hloscope", sources=[])],
      cmdclass={"build_ext": CMakeBuild})

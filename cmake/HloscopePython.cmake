# HLOSCOPE_PYTHON: the pybind11 extension `import hloscope` (python/, docs/python.md). On by
# default when Debian's python3-dev and pybind11-dev are there; asking for it without them is
# an error naming the packages.
# Debian's python3 (the one with python3-pybind11), not a pyenv or virtualenv shim.
if(NOT DEFINED Python3_EXECUTABLE)
  set(Python3_EXECUTABLE "${HLOSCOPE_PYTHON3_EXECUTABLE}")
endif()
find_package(Python3 3.9 QUIET COMPONENTS Interpreter Development.Module)
if(Python3_FOUND)
  # pybind11's config uses the Python3 found above (not its own, older, FindPythonLibsNew).
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 2.6 CONFIG QUIET)
endif()
if(Python3_FOUND AND pybind11_FOUND)
  set(_hloscope_python_default ON)
else()
  set(_hloscope_python_default OFF)
endif()
# Build trees configured before this option held the Python interpreter's path under this name
# (now HLOSCOPE_PYTHON3_EXECUTABLE): drop that value so the default below applies.
if(HLOSCOPE_PYTHON MATCHES "/")
  unset(HLOSCOPE_PYTHON CACHE)
endif()
option(HLOSCOPE_PYTHON "Build the Python package (python/)" ${_hloscope_python_default})
if(HLOSCOPE_PYTHON)
  if(NOT Python3_FOUND)
    hloscope_missing("Python 3 headers (Development.Module)" python3-dev "-DHLOSCOPE_PYTHON=OFF")
  endif()
  if(NOT pybind11_FOUND)
    hloscope_missing("pybind11 (CMake config)" pybind11-dev "-DHLOSCOPE_PYTHON=OFF")
  endif()
  # The extension is a shared object that links the static libraries of every layer.
  set(CMAKE_POSITION_INDEPENDENT_CODE ON)
endif()

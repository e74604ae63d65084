# Build types: the usual four plus Sanitize (ASan + UBSan, every finding fatal).

get_property(_hloscope_multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
if(NOT _hloscope_multi_config AND NOT CMAKE_BUILD_TYPE)
  # Optimised code keeps the corpus tests fast; debug info keeps backtraces readable.
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()
set_property(CACHE CMAKE_BUILD_TYPE PROPERTY STRINGS
             Debug Release RelWithDebInfo MinSizeRel Sanitize)

# -fno-sanitize-recover=all turns every UBSan report into a failure, so ctest sees it.
# -O0: CI builds these targets a second time, and with ASan+UBSan instrumentation -O0 compiles
# about 2.4x faster than -O1 (memory_profile.cc: 24 s vs 57 s). The parser is the exception
# (hlo/CMakeLists.txt keeps -O1 for it): the robustness tests parse whole corpus modules
# thousands of times, and at -O0 they run several times longer. -g1 (line tables, no variable
# info) is what a report's backtrace needs and compiles faster than -g.
set(HLOSCOPE_SANITIZE_FLAGS
    "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -O0 -g1")
# project() has already created these cache entries, empty, when the build type is Sanitize
# (CMake does so for any build type it does not know), so a plain set(... CACHE) would keep
# them empty: fill them while they are empty, and leave a value the user set alone.
macro(_hloscope_sanitize_default var value)
  if(NOT ${var})
    set(${var} "${value}" CACHE STRING "Flags for CMAKE_BUILD_TYPE=Sanitize" FORCE)
  endif()
  mark_as_advanced(${var})
endmacro()
_hloscope_sanitize_default(CMAKE_CXX_FLAGS_SANITIZE "${HLOSCOPE_SANITIZE_FLAGS}")
foreach(kind EXE SHARED MODULE)
  _hloscope_sanitize_default(CMAKE_${kind}_LINKER_FLAGS_SANITIZE "-fsanitize=address,undefined")
endforeach()

# --- libFuzzer ---------------------------------------------------------------------------
option(HLOSCOPE_FUZZ "Build the libFuzzer targets in tests/fuzz (needs clang++-14)" OFF)
if(HLOSCOPE_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR
      "hloscope: HLOSCOPE_FUZZ=ON needs clang (libFuzzer); this build uses "
      "${CMAKE_CXX_COMPILER_ID}. Install the Debian packages 'clang-14 libclang-rt-14-dev' and "
      "configure a fresh build directory with -DCMAKE_CXX_COMPILER=clang++-14 (scripts/fuzz does).")
  endif()
  # Everything (the parser above all) gets coverage instrumentation and the sanitizers, so
  # libFuzzer is guided by the code under test; only the fuzz targets link the fuzzer main.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=address,undefined)
endif()

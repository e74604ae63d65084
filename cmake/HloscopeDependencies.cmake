# Every external dependency of hloscope, each from a Debian 12 package (no vendored copies,
# nothing downloaded at build time). scripts/lib/common.sh installs the same list.
include(HloscopeRequire)

hloscope_require(absl libabsl-dev CONFIG)
hloscope_require(fmt libfmt-dev CONFIG)
hloscope_require(GTest libgtest-dev)
hloscope_require(benchmark libbenchmark-dev CONFIG)

# FindProtobuf (module mode; Debian 12 ships no protobuf CMake config) treats protoc as
# optional, so check the compiler separately: it comes from another package.
hloscope_require(Protobuf libprotobuf-dev)
if(NOT Protobuf_PROTOC_EXECUTABLE OR NOT EXISTS "${Protobuf_PROTOC_EXECUTABLE}")
  hloscope_missing("protoc (the protobuf compiler)" protobuf-compiler)
endif()

# Debian 12's libre2-dev has only a pkg-config file; a newer re2 may bring a CMake config.
find_package(re2 CONFIG QUIET)
hloscope_require_pkgconfig(re2::re2 re2 libre2-dev)

# --- test tools: lit, FileCheck and not from llvm-14-tools --------------------------------
# Debian's python3 (which llvm-14-tools depends on) first, not a pyenv or virtualenv shim.
hloscope_require_program(HLOSCOPE_PYTHON3_EXECUTABLE python3 "Python 3 (runs lit)"
                         NAMES python3 PATHS /usr/bin)
set(HLOSCOPE_LLVM_BIN_DIR /usr/lib/llvm-14/bin)
set(HLOSCOPE_LIT /usr/lib/llvm-14/build/utils/lit/lit.py CACHE FILEPATH
    "lit.py (or a lit executable script) that runs the tests under testdata/")
if(NOT EXISTS "${HLOSCOPE_LIT}")
  hloscope_missing("lit (looked for ${HLOSCOPE_LIT})" llvm-14-tools "-DHLOSCOPE_LIT=/path/to/lit.py")
endif()
hloscope_require_program(HLOSCOPE_FILECHECK llvm-14-tools "LLVM FileCheck"
                         NAMES FileCheck FileCheck-14 PATHS ${HLOSCOPE_LLVM_BIN_DIR})
hloscope_require_program(HLOSCOPE_NOT llvm-14-tools "LLVM 'not'"
                         NAMES not PATHS ${HLOSCOPE_LLVM_BIN_DIR})

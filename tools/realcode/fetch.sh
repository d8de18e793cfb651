#!/usr/bin/env bash
# Installs the pinned third-party packages whose kernels make up the real-code corpus
# into the git-ignored scratch folder .scratch/realcode/pkgs. Nothing from there is ever
# committed: only this script, the kernel list and the summaries are.
#
#   nvidia-cutlass 4.2.0.0: CUTLASS C++ headers (include/cutlass, include/cute), the tools/util
#   headers and the examples (Hopper warp-specialized GEMMs, ping-pong, FMHA, distributed GEMM).
#   The CUDA toolkit's own headers (cooperative_groups, libcu++) come from /usr/local/cuda.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
scratch="$root/.scratch/realcode"
pkgs="$scratch/pkgs"
CUTLASS_VERSION=4.2.0.0

if [[ -f "$pkgs/.installed-$CUTLASS_VERSION" ]]; then
  echo "realcode: packages already installed in $pkgs"
  exit 0
fi
mkdir -p "$scratch"
# --no-deps: only the headers and examples are needed, not the Python runtime (cuda-python, ...).
nice -n 19 python3 -m pip install --quiet --disable-pip-version-check --no-deps \
  --target "$pkgs" "nvidia-cutlass==$CUTLASS_VERSION"
test -d "$pkgs/cutlass_library/source/include/cute" || { echo "realcode: no CUTLASS headers in the wheel" >&2; exit 1; }
touch "$pkgs/.installed-$CUTLASS_VERSION"
echo "realcode: installed nvidia-cutlass $CUTLASS_VERSION into $pkgs"

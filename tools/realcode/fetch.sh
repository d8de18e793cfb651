#!/usr/bin/env bash
# Installs the pinned third-party packages whose kernels make up the real-code corpus
# into the git-ignored scratch folder .scratch/realcode/pkgs. Nothing from there is ever
# committed: only this script, the kernel list and the summaries are.
#
#   nvidia-cutlass 4.2.0.0: CUTLASS C++ headers (include/cutlass, include/cute), the tools/util
#   headers and the examples (Hopper warp-specialized GEMMs, ping-pong, FMHA, distributed GEMM).
#   flashinfer-python 0.7.4: FlashInfer's CUDA headers (data/include/flashinfer), of which the
#   corpus uses the communication kernels (comm/: vLLM's custom all-reduce, TensorRT-LLM's
#   all-reduces, PCIe IPC collectives) and the Hopper attention kernels (attention/mla_hopper.cuh,
#   attention/hopper/), built with the CUTLASS and CCCL the wheel vendors (data/cutlass, data/cccl).
#   nvidia-nvshmem-cu13 3.8.0: NVSHMEM's device headers (include/nvshmem.h, nvshmemx.h and
#   non_abi/device: put-with-signal, wait_until, device barriers).
#   The CUDA toolkit's own headers (cooperative_groups, libcu++) come from /usr/local/cuda.
#   triton 3.9.0, tilelang 0.1.15 and nvidia-cutlass-dsl 4.8.1 (with their dependencies, torch
#   among them: the CuTe DSL part compiles the grouped GEMM torch vendors) in a venv, for the
#   generated part of the corpus (generated.txt): $FENCELINE_REALCODE_PYTHON names an existing
#   Python that has them; otherwise the venv is made in the corpus folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# FENCELINE_REALCODE_DIR moves the corpus (packages and PTX) to a shared folder.
scratch="${FENCELINE_REALCODE_DIR:-$root/.scratch/realcode}"
pkgs="$scratch/pkgs"
CUTLASS_VERSION=4.2.0.0
FLASHINFER_VERSION=0.7.4
NVSHMEM_VERSION=3.8.0

# install <package> <version> <folder> <file that must exist afterwards>
install() {
  local folder="$scratch/$3"
  if [[ -f "$folder/.installed-$2" ]]; then
    echo "realcode: $1 $2 already installed in $folder"
    return
  fi
  # --no-deps: only the C++/CUDA sources are needed, not the Python runtime (torch, cuda-python...).
  nice -n 19 python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$folder" "$1==$2"
  test -e "$folder/$4" || { echo "realcode: $4 missing from the $1 wheel" >&2; exit 1; }
  touch "$folder/.installed-$2"
  echo "realcode: installed $1 $2 into $folder"
}

mkdir -p "$scratch"
install nvidia-cutlass "$CUTLASS_VERSION" pkgs cutlass_library/source/include/cute
install flashinfer-python "$FLASHINFER_VERSION" pkgs-flashinfer \
  flashinfer/data/include/flashinfer/comm/vllm_custom_all_reduce.cuh
install nvidia-nvshmem-cu13 "$NVSHMEM_VERSION" pkgs-nvshmem nvidia/nvshmem/include/nvshmem.h

TRITON_VERSION=3.9.0
TILELANG_VERSION=0.1.15
CUTEDSL_VERSION=4.8.1
python=${FENCELINE_REALCODE_PYTHON:-$scratch/venv/bin/python}
has_compilers() {
  "$python" -c "import importlib.metadata as m; import sys; \
sys.exit(m.version('triton') != '$TRITON_VERSION' or m.version('tilelang') != '$TILELANG_VERSION' \
or m.version('nvidia-cutlass-dsl') != '$CUTEDSL_VERSION')" 2>/dev/null
}
if has_compilers; then
  echo "realcode: triton $TRITON_VERSION, tilelang $TILELANG_VERSION and nvidia-cutlass-dsl $CUTEDSL_VERSION found in $python"
elif [[ -n "${FENCELINE_REALCODE_PYTHON:-}" ]]; then
  echo "realcode: $python lacks triton==$TRITON_VERSION, tilelang==$TILELANG_VERSION or nvidia-cutlass-dsl==$CUTEDSL_VERSION" >&2
  exit 1
else
  python3 -m venv "$scratch/venv"
  nice -n 19 "$scratch/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "triton==$TRITON_VERSION" "tilelang==$TILELANG_VERSION" "nvidia-cutlass-dsl==$CUTEDSL_VERSION"
  echo "realcode: installed triton $TRITON_VERSION, tilelang $TILELANG_VERSION and nvidia-cutlass-dsl $CUTEDSL_VERSION into $scratch/venv"
fi

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

# Session 10's fresh set (kernels.txt and generated.txt lines tagged set=fresh10; docs/real-code.md,
# "Session 10: a fresh corpus, first look"). Source distributions are unpacked into
# $scratch/src/<name>-<version>: `pip download --no-binary :all:` prepares an sdist's metadata,
# which runs its setup.py and fails here (they import torch or need nvcc settings); with
# --no-clean pip leaves the unpacked tree behind, which is all the corpus needs.
sdist() {
  local dest="$scratch/src/$1-$2"
  if [[ -f "$dest/.unpacked" ]]; then
    echo "realcode: $1 $2 already unpacked in $dest"
    return
  fi
  local tmp
  tmp=$(mktemp -d "$scratch/sdist.XXXXXX")
  TMPDIR="$tmp" nice -n 19 python3 -m pip download --quiet --disable-pip-version-check --no-clean \
    --no-deps --no-binary :all: --no-build-isolation -d "$tmp" "$1==$2" >"$tmp/pip.log" 2>&1 || true
  local tree
  tree=$(find "$tmp" -mindepth 2 -maxdepth 2 -type d -path '*pip-download-*' | head -1)
  [[ -n "$tree" && -e "$tree/$3" ]] || { echo "realcode: $1 $2: no unpacked sdist with $3 (see $tmp/pip.log)" >&2; exit 1; }
  rm -rf "$dest"
  mkdir -p "$scratch/src"
  mv "$tree" "$dest"
  rm -rf "$tmp"
  touch "$dest/.unpacked"
  echo "realcode: unpacked $1 $2 into $dest"
}
sdist vllm 0.33.0 csrc/custom_all_gather_reduce_scatter.cuh
sdist flash-attn 2.8.3.post2 csrc/flash_attn/src/flash_fwd_launch_template.h
sdist mamba-ssm 2.3.2.post1 csrc/selective_scan/selective_scan_fwd_kernel.cuh
sdist transformer-engine-torch 2.20.2 common_headers/common/cast/mxfp8/quantize_mxfp8.cuh
sdist deepspeed 0.19.8 csrc/quantization/quant_reduce.cu
# CUB outside the toolkit: CCCL 2.8 (CUB 2.8.2) from NVIDIA's header wheel.
install nvidia-cuda-cccl-cu12 12.9.27 pkgs-cccl nvidia/cuda_cccl/include/cub/agent/agent_radix_sort_onesweep.cuh
# Python packages whose projects wrote Triton or CuTe DSL kernels, without their dependencies
# (the venv above has torch, triton and the CuTe DSL), for tools/realcode/{triton3p,cutedsl3p}.
fresh="$scratch/pkgs-fresh"
FRESH_PY=(quack-kernels==0.6.5 flash-attn-4==4.0.0b36 fla-core==0.6.0 liger-kernel==0.8.5
          torchao==0.18.0 einops==0.8.1 packaging==25.0)
if [[ -f "$fresh/.installed-session10" ]]; then
  echo "realcode: ${FRESH_PY[*]} already installed in $fresh"
else
  nice -n 19 "$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$fresh" "${FRESH_PY[@]}"
  touch "$fresh/.installed-session10"
  echo "realcode: installed ${FRESH_PY[*]} into $fresh"
fi

# Issue 29's last look (tools/realcode/lastlook.txt; units tagged set=lastlook, never checked
# before all model changes): natten's and xformers' sdists (CUTLASS 3 Hopper kernels, built with
# their own third_party/cutlass) and gemlite's (Triton), unpacked like the fresh set's; the
# sageattention (Triton) and nvidia-cudnn-frontend (.cu sources in the wheel) wheels installed
# without dependencies into pkgs-lastlook/, for tools/realcode/triton3p and kernels.txt.
sdist natten 0.21.7 csrc/include/natten/cuda/fna_hopper/fna_forward.cuh
sdist xformers 0.0.35 xformers/csrc/sparse24/sparse24_gemm_sm90.cu
sdist gemlite 0.6.0.post2 gemlite/triton_kernels/gemm_splitK_kernels.py
last="$scratch/pkgs-lastlook"
LAST_PY=(sageattention==1.0.6 nvidia-cudnn-frontend==1.32.0)
if [[ -f "$last/.installed-lastlook" ]]; then
  echo "realcode: ${LAST_PY[*]} already installed in $last"
else
  nice -n 19 "$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$last" "${LAST_PY[@]}"
  touch "$last/.installed-lastlook"
  echo "realcode: installed ${LAST_PY[*]} into $last"
fi

#!/usr/bin/env bash
# Compiles the translation units of kernels.txt to PTX (sm_90a unless the line says `arch=...`;
# `set=...` and `project=...` words are tags that run.py reads),
# one at a time at the lowest CPU priority, and caches the PTX in $FENCELINE_REALCODE_DIR/ptx
# (default .scratch/realcode/ptx; a PTX newer than its source and built from the same
# kernels.txt line is kept; headers are not tracked: use --force). Then times ptxas on each PTX:
# the peer against which run.py measures the checker. Writes <name>.ptx, <name>.nvcc.log and
# <name>.times (nvcc_s ptxas_s). Last, runs the generators of generated.txt (Triton, TileLang:
# tools/realcode/<generator>/generate.py) for the entries whose PTX is missing or older than the
# generator's folder, with $FENCELINE_REALCODE_PYTHON (default: the venv fetch.sh made).
#   tools/realcode/build.sh [--force] [name...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# FENCELINE_REALCODE_DIR moves the corpus (packages and PTX) to a shared folder.
scratch="${FENCELINE_REALCODE_DIR:-$root/.scratch/realcode}"
cutlass="$scratch/pkgs/cutlass_library/source"
flashinfer="$scratch/pkgs-flashinfer/flashinfer/data/include"
nvshmem="$scratch/pkgs-nvshmem/nvidia/nvshmem"
ptxdir="$scratch/ptx"
cuda_bin=${CUDA_BIN:-/usr/local/cuda/bin}
force=0
if [[ "${1:-}" == "--force" ]]; then force=1; shift; fi
only=("$@")

[[ -d "$cutlass/include/cute" ]] || { echo "build.sh: run tools/realcode/fetch.sh first" >&2; exit 1; }
mkdir -p "$ptxdir"

# Session 10's fresh set: @src/ = unpacked sdists (fetch.sh), @cccl = CCCL 2.8's include folder,
# @torch = the corpus venv's torch/include (for sources that include torch or c10 headers),
# @pyinc = this Python's C headers (torch's extension headers include Python.h).
# Issue 29's last look: @lastlook = the wheels fetch.sh installed into pkgs-lastlook.
sdists="$scratch/src"
lastlook="$scratch/pkgs-lastlook"
cccl="$scratch/pkgs-cccl/nvidia/cuda_cccl/include"
torch_inc=$(ls -d "$scratch"/venv/lib/python3*/site-packages/torch/include 2>/dev/null | head -1 || true)
pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
expand() {
  local s=${1//@cutlass/$cutlass}; s=${s//@flashinfer/$flashinfer}; s=${s//@nvshmem/$nvshmem}
  s=${s//@src/$sdists}; s=${s//@cccl/$cccl}; s=${s//@torch/$torch_inc}; s=${s//@pyinc/$pyinc}
  s=${s//@lastlook/$lastlook}
  echo "${s//@tus/$here/tus}"
}
now() { date +%s.%N; }

while read -r name src extra; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if (( ${#only[@]} )) && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  src=$(expand "$src")
  flags=()
  arch=sm_90a  # an `arch=sm_100a` word in the list overrides the target
  for f in $extra; do
    if [[ "$f" == arch=* ]]; then arch=${f#arch=}
    elif [[ "$f" == set=* || "$f" == project=* ]]; then continue  # tags for run.py
    else flags+=("$(expand "$f")"); fi
  done
  ptx="$ptxdir/$name.ptx"
  # Cached when the PTX is newer than the source and was built from the same kernels.txt line.
  line="$name $src $arch ${flags[*]}"
  if (( !force )) && [[ -s "$ptx" && "$ptx" -nt "$src" && "$(cat "$ptxdir/$name.line" 2>/dev/null)" == "$line" ]]; then
    echo "build.sh: $name: cached"
    continue
  fi
  echo "build.sh: $name: nvcc $(basename "$src")"
  t0=$(now)
  # The line's own flags come first, so that its -I folders (a library's vendored CUTLASS or
  # CCCL) take precedence over the wheel's CUTLASS.
  nice -n 19 "$cuda_bin/nvcc" -ptx -lineinfo -std=c++17 -gencode=arch=compute_${arch#sm_},code=$arch \
    --expt-relaxed-constexpr "${flags[@]}" -I"$cutlass/include" -I"$cutlass/tools/util/include" \
    -I"$cutlass/examples/common" -I"$here/tus" -o "$ptx.tmp" "$src" \
    >"$ptxdir/$name.nvcc.log" 2>&1 || { cat "$ptxdir/$name.nvcc.log" >&2; exit 1; }
  t1=$(now)
  mv "$ptx.tmp" "$ptx"
  echo "$line" >"$ptxdir/$name.line"
  echo "build.sh: $name: ptxas"
  nice -n 19 "$cuda_bin/ptxas" -arch="$arch" -o /dev/null "$ptx" >>"$ptxdir/$name.nvcc.log" 2>&1 \
    || { echo "build.sh: $name: ptxas failed (see $ptxdir/$name.nvcc.log)" >&2; }
  t2=$(now)
  echo "$(echo "$t1 - $t0" | bc) $(echo "$t2 - $t1" | bc)" >"$ptxdir/$name.times"
  echo "build.sh: $name: nvcc $(cut -d' ' -f1 "$ptxdir/$name.times")s, ptxas $(cut -d' ' -f2 "$ptxdir/$name.times")s"
done <"$here/kernels.txt"

# The generated part of the corpus, one generator run per generator (it imports its compiler once).
python=${FENCELINE_REALCODE_PYTHON:-$scratch/venv/bin/python}
declare -A pending=()
while read -r name generator _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  if (( ${#only[@]} )) && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  ptx="$ptxdir/$name.ptx"
  # A missing PTX makes find fail: that is "no newer file", not an error of the script.
  newest=$(find "$here/$generator" -name '*.py' -newer "$ptx" 2>/dev/null | head -1 || true)
  if (( !force )) && [[ -s "$ptx" && -z "$newest" ]]; then
    echo "build.sh: $name: cached"
    continue
  fi
  pending[$generator]+=" $name"
done <"$here/generated.txt"
for generator in "${!pending[@]}"; do
  [[ -x "$python" ]] || { echo "build.sh: no Python with $generator at $python (run fetch.sh or set FENCELINE_REALCODE_PYTHON)" >&2; exit 1; }
  echo "build.sh: $generator:${pending[$generator]}"
  # shellcheck disable=SC2086  # the names are words
  nice -n 19 "$python" "$here/$generator/generate.py" --out "$ptxdir" ${pending[$generator]} \
    2> >(grep -v -e UserWarning -e warn_once >&2)
done

#!/usr/bin/env bash
# Growth of `fenceline check` with the size of one function (issue 11: at most 2.2x per doubling
# of the unrolled body). Compiles bench/inputs/unrolled_ring.cu with nvcc -ptx -lineinfo at
# UNROLL = N, 2N, 4N (default N = 64; cached in OUTDIR, default build/bench-growth), times
# `fenceline check -j 1` on each (best of R runs by CPU time, user + system), and prints the
# size, instructions checked, times and the growth factor per doubling. A benchmark, not a test.
#   bench/unroll_growth.sh [-f FENCELINE] [-n N] [-r R] [-o OUTDIR] [-d DOUBLINGS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fenceline=build/fenceline
base=64
repeats=3
doublings=2
outdir=build/bench-growth
while getopts "f:n:r:o:d:" opt; do
  case $opt in
    f) fenceline=$OPTARG ;;
    n) base=$OPTARG ;;
    r) repeats=$OPTARG ;;
    o) outdir=$OPTARG ;;
    d) doublings=$OPTARG ;;
    *) sed -n 2,8p "$0" >&2; exit 2 ;;
  esac
done
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$outdir"

# cpu_seconds CMD...: least user+system CPU seconds over `repeats` runs of CMD.
cpu_seconds() {
  local best="" t user sys cpu
  for ((i = 0; i < repeats; i++)); do
    t=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1 )
    read -r user sys <<<"$t"
    cpu=$(echo "$user + $sys" | bc -l)
    if [[ -z "$best" ]] || (( $(echo "$cpu < $best" | bc -l) )); then best=$cpu; fi
  done
  echo "$best"
}

printf "%8s %10s %13s %10s %10s\n" UNROLL "PTX bytes" instructions "CPU s" growth
previous=""
unroll=$base
for ((d = 0; d <= doublings; d++)); do
  ptx="$outdir/unrolled_ring_$unroll.ptx"
  if [[ ! -s "$ptx" || "$ptx" -ot "$here/inputs/unrolled_ring.cu" ]]; then
    nice -n 19 "$nvcc" -ptx -lineinfo -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
      -DUNROLL="$unroll" -o "$ptx" "$here/inputs/unrolled_ring.cu"
  fi
  instructions=$("$fenceline" check -j 1 --format json "$ptx" 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["instructions"])')
  cpu=$(cpu_seconds "$fenceline" check -j 1 "$ptx")
  growth=$([[ -n "$previous" ]] && echo "scale=2; $cpu / $previous" | bc -l || echo "-")
  printf "%8d %10d %13d %10.3f %10s\n" "$unroll" "$(stat -c %s "$ptx")" "$instructions" "$cpu" "$growth"
  previous=$cpu
  unroll=$((unroll * 2))
done

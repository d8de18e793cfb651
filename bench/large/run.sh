#!/usr/bin/env bash
# The large-input benchmark (docs/performance.md, "Large inputs"): one PTX
# module of about MEGABYTES MB (default 100) made of copies of the tests'
# kernels (nvcc -ptx -lineinfo -arch=sm_90a of tests/checks, tests/corpus,
# tests/primitives; see make_large_ptx.py), checked by `fenceline check -j 1`
# (all checks, JSON to /dev/null). Prints size, kernels, wall and CPU time,
# MB/s (CPU) and peak resident memory. Not a test: run by hand.
#   bench/large/run.sh [-f FENCELINE] [-o WORKDIR] [MEGABYTES]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fenceline="$root/build/fenceline"
work="$root/build/bench-large"
while getopts "f:o:" opt; do
  case $opt in
    f) fenceline=$OPTARG ;;
    o) work=$OPTARG ;;
    *) echo "usage: $0 [-f FENCELINE] [-o WORKDIR] [MEGABYTES]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
megabytes=${1:-100}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)

large="$work/large-${megabytes}mb.ptx"
if [ ! -s "$large" ]; then
  mkdir -p "$work/ptx"
  for cu in "$root"/tests/checks/*/*.cu "$root"/tests/corpus/*.cu "$root"/tests/primitives/*.cu; do
    ptx="$work/ptx/$(basename "$(dirname "$cu")")_$(basename "$cu" .cu).ptx"
    [ -s "$ptx" ] || "$nvcc" -ptx -lineinfo -arch=sm_90a -I"$root/include" -o "$ptx" "$cu" 2>/dev/null || rm -f "$ptx"
  done
  python3 "$root/bench/large/make_large_ptx.py" "$large" "$megabytes" "$work"/ptx/*.ptx
fi

status=0
/usr/bin/time -f "%e %U %S %M" "$fenceline" check -j 1 --format json -o /dev/null "$large" 2> "$work/stderr.txt" || status=$?
# /usr/bin/time writes its line last on stderr.
read -r wall user sys rss <<< "$(tail -1 "$work/stderr.txt")"
mb=$(echo "$(stat -c %s "$large") / 1000000" | bc -l)
cpu=$(echo "$user + $sys" | bc -l)
printf "input %.1f MB (%s kernels)\nexit status %s: %s\nwall %.1f s, cpu %.1f s, %.1f MB/s (cpu), peak RSS %.0f MB\n" \
  "$mb" "$(grep -c '\.entry' "$large")" "$status" "$(grep -v '^[0-9.]* [0-9.]* [0-9.]* [0-9]*$\|^Command exited' "$work/stderr.txt" | tail -1)" \
  "$wall" "$cpu" "$(echo "$mb / $cpu" | bc -l)" "$(echo "$rss / 1024" | bc -l)"

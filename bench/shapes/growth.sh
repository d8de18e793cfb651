#!/usr/bin/env bash
# Growth of `fenceline check` per doubling of the shapes that were exponential (issue 35;
# bench/shapes/make_shape.py: tempering chains over loaded state words, sorting networks,
# predicated shuffle reductions, thousands of registers). For each shape, sizes N, 2N, 4N, ...:
# the instructions the checker executes (valgrind --tool=callgrind, deterministic on a loaded
# machine), the CPU seconds and peak memory of a plain run, and the growth of the instruction
# count per doubling of the function's instructions (the target: at most 2.2x). A benchmark,
# not a test.
#   bench/shapes/growth.sh [-f FENCELINE] [-d DOUBLINGS] [-o OUTDIR] [SHAPE[:N] ...]
# Default shapes and first sizes: tempering:64 sortnet:16 shuffle:64 registers:1024 comm:256
# (comm: many generic accesses, bulk stores and flag hand-offs in one function, issue 33).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fenceline=build/fenceline
doublings=3
outdir=build/bench-shapes
while getopts "f:d:o:" opt; do
  case $opt in
    f) fenceline=$OPTARG ;;
    d) doublings=$OPTARG ;;
    o) outdir=$OPTARG ;;
    *) sed -n 2,9p "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
shapes=("$@")
[[ ${#shapes[@]} -gt 0 ]] || shapes=(tempering:64 sortnet:16 shuffle:64 registers:1024 comm:256)
mkdir -p "$outdir"

printf "%-10s %7s %9s %13s %15s %8s %8s %7s\n" shape N "PTX bytes" instructions "Ir (callgrind)" "CPU s" "peak MB" growth
for spec in "${shapes[@]}"; do
  shape=${spec%%:*}
  size=${spec#*:}
  [[ "$size" == "$spec" ]] && size=64
  previous=""
  for ((d = 0; d <= doublings; d++)); do
    ptx="$outdir/${shape}_$size.ptx"
    python3 "$here/make_shape.py" "$shape" "$size" > "$ptx"
    instructions=$("$fenceline" check -j 1 --format json "$ptx" 2>/dev/null |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["stats"]["instructions"])')
    nice -n 19 valgrind --tool=callgrind --callgrind-out-file="$outdir/callgrind.out" \
      "$fenceline" check -j 1 "$ptx" >/dev/null 2>"$outdir/callgrind.log" || true
    ir=$(grep -o 'Collected : [0-9]*' "$outdir/callgrind.log" | grep -o '[0-9]*$')
    /usr/bin/time -f "%U %S %M" -o "$outdir/time.txt" "$fenceline" check -j 1 "$ptx" >/dev/null 2>&1 || true
    read -r user sys rss < <(tail -1 "$outdir/time.txt")
    cpu=$(echo "$user + $sys" | bc -l)
    # per doubling of the instructions checked (a sorting network of 2N keys has 4x the instructions)
    growth=$([[ -n "$previous" ]] && python3 -c "import math; print(f'{($ir / $previous) ** (1 / math.log2($instructions / $previous_instructions)):.2f}')" || echo "-")
    printf "%-10s %7d %9d %13d %15d %8.2f %8.1f %7s\n" "$shape" "$size" "$(stat -c %s "$ptx")" "$instructions" \
      "$ir" "$cpu" "$(echo "$rss / 1024" | bc -l)" "$growth"
    previous=$ir
    previous_instructions=$instructions
    size=$((size * 2))
  done
done

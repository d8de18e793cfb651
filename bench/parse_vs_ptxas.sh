#!/usr/bin/env bash
# Times ptxas and `fenceline check` on the same PTX files and prints the ratio
# (see docs/performance.md). Usage:
#   bench/parse_vs_ptxas.sh [-f FENCELINE] [-a ARCH] [-r REPEATS] FILE.ptx...
# Defaults: build/fenceline, sm_90a, 3 repeats (the fastest run counts).
# Times are wall clock and user+system CPU from bash's `time`; on a busy
# machine trust the CPU column.
set -euo pipefail

fenceline=build/fenceline
arch=sm_90a
repeats=3
while getopts "f:a:r:" opt; do
  case $opt in
    f) fenceline=$OPTARG ;;
    a) arch=$OPTARG ;;
    r) repeats=$OPTARG ;;
    *) echo "usage: $0 [-f FENCELINE] [-a ARCH] [-r REPEATS] FILE.ptx..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: $0 [-f FENCELINE] [-a ARCH] [-r REPEATS] FILE.ptx..." >&2; exit 2; }
ptxas=${PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}

# best_time CMD...: runs CMD `repeats` times; prints "wall cpu" of the run with the least CPU.
best_time() {
  local best_wall="" best_cpu="" t wall cpu
  for ((i = 0; i < repeats; i++)); do
    t=$( { TIMEFORMAT='%R %U %S'; time "$@" > /dev/null 2>&1; } 2>&1 | tail -1 )
    read -r wall user sys <<< "$t"
    cpu=$(echo "$user + $sys" | bc -l)
    if [ -z "$best_cpu" ] || (( $(echo "$cpu < $best_cpu" | bc -l) )); then best_cpu=$cpu; best_wall=$wall; fi
  done
  echo "$best_wall $best_cpu"
}

printf "%-28s %9s %13s %13s %17s %17s %8s %8s\n" file MB "ptxas wall s" "ptxas cpu s" "fenceline wall s" "fenceline cpu s" "cpu x" "MB/s"
for file in "$@"; do
  mb=$(echo "$(stat -c %s "$file") / 1000000" | bc -l)
  read -r pw pc <<< "$(best_time "$ptxas" -arch="$arch" "$file" -o /dev/null)"
  # exit 1 (findings) is fine; 2 is not.
  "$fenceline" check "$file" > /dev/null 2>&1 || [ $? -eq 1 ] || { echo "fenceline failed on $file" >&2; exit 2; }
  read -r fw fc <<< "$(best_time "$fenceline" check "$file")"
  ratio=$(echo "if ($fc > 0) $pc / $fc else 0" | bc -l)
  rate=$(echo "if ($fc > 0) $mb / $fc else 0" | bc -l)
  printf "%-28s %9.2f %13.2f %13.2f %17.3f %17.3f %8.1f %8.1f\n" "$(basename "$file")" "$mb" "$pw" "$pc" "$fw" "$fc" "$ratio" "$rate"
done

#!/usr/bin/env bash
# The device run of the lab experiments for issue 30's new classes (last-block:
# acquire-missing / release-missing on a ticket; counter-reset), as committed in
# results/h100/issue30/ (the H100 the device lent). Run from the repository root: bash lab/run-issue30.sh
# B=path/to/fenceline-lab picks the binary; OUT the folder (default results/h100/issue30).
set -o pipefail
B=${B:-build/lab/fenceline-lab}
OUT=${OUT:-results/h100/issue30}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1; shift
  echo "== $B $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 280 "$B" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
}

run last-block --iterations 50 --budget-seconds 40 --seed 1 --experiments last-block
run counter-reset --iterations 50 --budget-seconds 30 --seed 1 --experiments counter-reset
run counter-reset-long --iterations 20 --budget-seconds 30 --seed 2 --experiments counter-reset \
  --param counter-reset.timeout_us=5000 --param counter-reset.rounds=200

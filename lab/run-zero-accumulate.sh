#!/usr/bin/env bash
# The device run of the zero-accumulate experiment (a tile zeroed, then added into with
# floating-point atomics under a lock raised without a release; session 26), as committed in
# results/<device>/zero-accumulate/. Run from the repository root: bash lab/run-zero-accumulate.sh
# B=path/to/fenceline-lab picks the binary; OUT the folder (default results/h200/zero-accumulate).
set -o pipefail
B=${B:-build/lab/fenceline-lab}
OUT=${OUT:-results/h200/zero-accumulate}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1; shift
  echo "== $B $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 280 "$B" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
}

run zero-accumulate --iterations 200 --budget-seconds 40 --seed 1 --experiments zero-accumulate
run zero-accumulate-w1 --iterations 200 --budget-seconds 20 --seed 2 --experiments zero-accumulate \
  --param zero.words_per_thread=1 --param zero.rounds=256
run zero-accumulate-w32 --iterations 100 --budget-seconds 20 --seed 3 --experiments zero-accumulate \
  --param zero.words_per_thread=32 --param zero.rounds=16

#!/usr/bin/env bash
# The H200 run of the issue-13 experiments (bulk-store-reuse, proxy-global,
# elected-arrive, mbarrier-init-fence), as committed in results/h200/newchecks/.
# One batched device call: B = the fenceline-lab binary (built off the GPU
# machine with the CUDA 13 toolkit, sm_90a, static cudart), OUT = where the logs
# and JSON go. Run from the repository root: bash lab/run-newchecks-h200.sh
set -o pipefail
B=${B:-build-lab/lab/fenceline-lab}
OUT=${OUT:-results/h200/newchecks}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1; shift
  echo "== $B $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 280 "$B" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
}

run newchecks --iterations 100 --budget-seconds 200 --seed 1 \
  --experiments bulk-store-reuse,proxy-global,elected-arrive,mbarrier-init-fence
# Knobs that may widen a window: more rounds per launch for the pair hand-off,
# one CTA per SM for the elected arrive (less contention), more CTAs per SM
# for the re-initialized barrier.
run knobs --iterations 20 --budget-seconds 60 --seed 2 \
  --experiments proxy-global,elected-arrive,mbarrier-init-fence --variants unfixed,divergent,store-unfixed \
  --param proxy-global.rounds=8000 --param elected-arrive.ctas_per_sm=1 --param elected-arrive.rounds=8000 \
  --param mbarrier-init-fence.ctas_per_sm=16

#!/usr/bin/env bash
# The device run of the cluster-exit experiment (a CTA of a two-CTA cluster exits while its peer
# still reads its shared memory and arrives on its mbarrier; issue 30 shape 13, SGLang #32907), as
# committed in results/<device>/cluster-exit/. Run from the repository root:
#   bash lab/run-cluster-exit.sh
# B=path/to/fenceline-lab picks the binary; OUT the folder (default results/h200/cluster-exit).
# Each variant runs in its own process: a fault loses the CUDA context, so a variant that faults
# ends its own invocation only.
set -o pipefail
B=${B:-build/lab/fenceline-lab}
OUT=${OUT:-results/h200/cluster-exit}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1; shift
  echo "== $B $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 120 "$B" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
  echo "exit status: $?" | tee -a "$OUT/lab.log"
}

for delay in 2000 0 20000; do
  for v in cluster-sync fixed unfixed; do
    run "$v-delay$delay" --experiments cluster-exit --variants "$v" --iterations 300 --budget-seconds 20 \
      --param cluster-exit.delay_ns=$delay
  done
done
# Without the occupancy padding: several CTAs per SM, no newcomer forced onto the exited CTA's SM.
for v in fixed unfixed; do
  run "$v-smem0" --experiments cluster-exit --variants "$v" --iterations 300 --budget-seconds 20 \
    --param cluster-exit.smem_kb=0
done

#!/usr/bin/env bash
# Device run for issue 17 (session 3, second call): the GEMM's other fixed variants at 10x
# one unfixed A phase, A/B/A with the memory co-runner, 8x2 same-stage, incident configuration.
set -uo pipefail
D=.gpu/fix2
export LD_LIBRARY_PATH=$D
mkdir -p "$OUT/json"
log=$OUT/run.log
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$log"
run() { local name=$1; shift; echo "== $* --json $OUT/json/$name.json" | tee -a "$log"; timeout 150 "$@" --json "$OUT/json/$name.json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"; }
G="--experiments gemm --param gemm.warps=8x2 --param gemm.schedule=same-stage --param gemm.stress=1"
run gemm-a1 $D/lab-main $G --budget-seconds 30 --variants unfixed --param gemm.runs=150000
for v in producer-fence generic-fence lib-consumers lane0-fence; do
  run gemm-b-$v $D/lab-main $G --budget-seconds 118 --variants $v --param gemm.runs=1500000
done
run gemm-a2 $D/lab-main $G --budget-seconds 30 --variants unfixed --param gemm.runs=150000
echo "== done $(date -u +%FT%TZ)" | tee -a "$log"

#!/usr/bin/env bash
# Issue 17, session 4, call 4: top-up runs of the five fixed variants that call 2/3's time
# budgets stopped short of 1.5M (one A phase is 150,048 runs), same configuration as call 3,
# then one unfixed A phase.
set -uo pipefail
D=.gpu/g17
export LD_LIBRARY_PATH=$D
mkdir -p "$OUT" /tmp/j
log=$OUT/run.log
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$log"
run() { local name=$1; shift; echo "== $* --json /tmp/j/$name.json" | tee -a "$log"; timeout 60 "$@" --json "/tmp/j/$name.json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"; }
G="--experiments gemm --param gemm.warps=8x2 --param gemm.schedule=same-stage --param gemm.stress=1 --param gemm.stress_blocks=264"
run top-consumer-fence $D/lab-main $G --budget-seconds 16 --variants consumer-fence --param gemm.runs=${1:-100000}
run top-producer-fence $D/lab-main $G --budget-seconds 16 --variants producer-fence --param gemm.runs=100000
run top-generic-fence $D/lab-main $G --budget-seconds 20 --variants generic-fence --param gemm.runs=150000
run top-lane0-fence $D/lab-main $G --budget-seconds 22 --variants lane0-fence --param gemm.runs=180000
run top-lib-consumers $D/lab-main $G --budget-seconds 20 --variants lib-consumers --param gemm.runs=150000
run top-unfixed $D/lab-main $G --budget-seconds 20 --variants unfixed --param gemm.runs=150000
echo "== done $(date -u +%FT%TZ)" | tee -a "$log"

#!/usr/bin/env bash
# Device run for issues 16 and 17 (session 3): the lab built from `fenceline check --fix`
# output, then the GEMM's fixed variants at 10x the unfixed A-phase runs.
set -uo pipefail
D=.gpu/fix
export LD_LIBRARY_PATH=$D
mkdir -p "$OUT/json"
log=$OUT/run.log
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$log"
run() { local name=$1; shift; echo "== $* --json $OUT/json/$name.json" | tee -a "$log"; timeout 200 "$@" --json "$OUT/json/$name.json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"; }
# Issue 16: the unfixed and elected-fence variants carry the fences --fix wrote (lab-fixed);
# the same variants of the unmodified lab (lab-main) as the control, same run.
run fix-variants $D/lab-fixed --experiments proxy-war,proxy-war-tma,mp-l1 --variants unfixed,elected-fence,fixed --iterations 10 --budget-seconds 100 --seed 1
run fix-control $D/lab-main --experiments proxy-war,proxy-war-tma,mp-l1 --variants unfixed,elected-fence --iterations 2 --budget-seconds 40 --seed 1
# Issue 17: A/B/A with the memory co-runner, 8x2 same-stage; fixed variants at 10x the A phase.
G="--experiments gemm --budget-seconds 190 --param gemm.warps=8x2 --param gemm.schedule=same-stage --param gemm.stress=1"
run gemm-a1 $D/lab-main $G --variants unfixed --param gemm.runs=150000
run gemm-b-lib-producer $D/lab-main $G --variants lib-producer --param gemm.runs=1500000
run gemm-b-consumer-fence $D/lab-main $G --variants consumer-fence --param gemm.runs=1500000
run gemm-a2 $D/lab-main $G --variants unfixed --param gemm.runs=150000
echo "== done $(date -u +%FT%TZ)" | tee -a "$log"

#!/usr/bin/env bash
# Runs every GPU test and benchmark of the device primitives on one GPU, in one go (a lent
# GPU is short of time, not of work): `bench/gpu/run_h200.sh OUT_DIR [BUILD_DIR]`.
# OUT_DIR receives primitives.log (all output), barrier-bench.json, pipeline-bench.json,
# nvidia-smi.txt and the SASS of the barrier kernels' synchronization instructions.
set -u
out=${1:?usage: run_h200.sh OUT_DIR [BUILD_DIR]}
build=${2:-build-prim}
mkdir -p "$out"
log="$out/primitives.log"
: > "$log"
nvidia-smi > "$out/nvidia-smi.txt" 2>&1
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
status=0
step() {  # step SECONDS NAME COMMAND...: a watchdog on every program
  local limit=$1 name=$2
  shift 2
  echo "== $name: $*" | tee -a "$log"
  timeout "$limit" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc" | tee -a "$log"
  [ "$rc" -eq 0 ] || status=1
}
step 60 grid-barrier "$build/tests/gpu/grid_barrier_test"
step 30 multi-gpu-barrier "$build/tests/gpu/multi_gpu_barrier_test"
# The lab's proxy-war stress (one CTA per SM, 32 KB stages, 64 conflicted reads per lane).
step 120 tma-pipeline "$build/tests/gpu/tma_pipeline_test" --bytes 1e11
step 90 barrier-bench "$build/bench/gpu/barrier_bench" --driver "$driver" --json "$out/barrier-bench.json"
step 60 pipeline-bench "$build/bench/gpu/pipeline_bench" --driver "$driver" --json "$out/pipeline-bench.json"
cuobjdump -sass "$build/bench/gpu/barrier_bench" 2>/dev/null |
  grep -E 'Function|MEMBAR|FENCE|CCTL|ATOM|ERRBAR|LDG|LD\.|BAR\.' > "$out/barrier-bench-sass.txt"
exit $status

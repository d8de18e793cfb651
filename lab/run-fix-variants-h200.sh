#!/usr/bin/env bash
# Issue 31 on the H200: broken, hand-fixed and auto-fixed variants side by side.
#   B  = the ordinary fenceline-lab (cmake -DFENCELINE_CUDA=ON, build-lab/lab/fenceline-lab)
#   BF = the one lab/fix-variants.sh builds from the unfixed sources after
#        `fenceline check --fix` (build-lab-fixed/build/lab/fenceline-lab)
# Both built off the GPU machine (CUDA 13, sm_90a, static cudart). In BF the `unfixed`
# variant is the auto-fixed kernel; its `fixed` rows are the hand-fixed kernels again
# (a control: --fix must not touch them). OUT gets the logs and JSON.
# Run from the repository root: bash lab/run-fix-variants-h200.sh
set -o pipefail
B=${B:-build-lab/lab/fenceline-lab}
BF=${BF:-build-lab-fixed/build/lab/fenceline-lab}
OUT=${OUT:-results/h200/fix-variants}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME BINARY ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1 bin=$2; shift 2
  echo "== $bin $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 280 "$bin" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
}

EXPERIMENTS=mp-l1,proxy-war,proxy-war-tma,proxy-raw,proxy-raw-tma,bulk-store-reuse
# Broken and hand-fixed (the ordinary build), then auto-fixed (the --fix build's unfixed).
run broken-and-hand-fixed "$B" --iterations 10 --budget-seconds 120 --seed 1 \
  --experiments "$EXPERIMENTS" --variants unfixed,fixed
run auto-fixed "$BF" --iterations 10 --budget-seconds 120 --seed 1 \
  --experiments "$EXPERIMENTS" --variants unfixed,fixed
# The incident's GEMM in the configuration where the unfixed one reproduces at about 1e-2
# (docs/lab.md, runs 10-12: the memory kernel at two blocks per SM, the 16-warp 8x2 shape):
# corrupted runs, then latency, of the auto-fixed kernel against the hand-written consumer
# fence (the maintainers' one-line fix) and the unfixed one.
G=(--experiments gemm --budget-seconds 280 --param gemm.stress=1 --param gemm.stress_blocks=264 --param gemm.warps=8x2)
run gemm-broken "$B" "${G[@]}" --variants unfixed --param gemm.runs=150048
run gemm-hand-fixed "$B" "${G[@]}" --variants consumer-fence --param gemm.runs=1500000
run gemm-auto-fixed "$BF" "${G[@]}" --variants unfixed --param gemm.runs=1500000
run gemm-latency-broken-and-hand-fixed "$B" --experiments gemm-latency --variants unfixed,consumer-fence \
  --budget-seconds 100 --param gemm.warps=8x2
run gemm-latency-auto-fixed "$BF" --experiments gemm-latency --variants unfixed,consumer-fence --budget-seconds 100 \
  --param gemm.warps=8x2

#!/usr/bin/env bash
# The GEMM experiment's H200 run, as committed in results/h200/ (gemm.json, gemm.log):
# the SASS order of the unfixed hand-off, every variant's correctness and repeatability in
# the incident's configuration as A/B/A (unfixed, each fixed variant, unfixed again), the
# stress knobs on the unfixed variant (back-to-back, co-running memory kernel, stages,
# tile width, K, no swizzle) with a fixed control, the latency of every variant (CUDA
# graphs, interleaved, medians), then the grid-barrier bench and its 10^6-episode stress
# test for each design. One call of a lent GPU; everything goes to $OUT.
# Usage: B=dir/with/binaries OUT=dir bash lab/run-gemm-h200.sh
#   B holds fenceline-lab, barrier_bench and grid_barrier_test (default build-lab/...).
#   RUNS_UNFIXED / RUNS_FIXED / RUNS_OTHER scale the repeatability runs (defaults below).
#   PHASES picks the parts, in order (default: all of them):
#     sass smoke aba knobs latency aba-no-swizzle stress pinned shapes shape-knobs aba-shape labbarrier barrier
#   (shapes: SHAPES, SHAPES_FIXED, SHAPES_LATENCY list warps:schedule pairs, below)
#   (the first committed run was "sass smoke aba knobs latency barrier"; the second
#   "sass smoke latency aba-no-swizzle stress pinned labbarrier barrier": results/h200/).
set -uo pipefail
OUT=${OUT:-results/h200/gemm-raw}
LAB=${LAB:-${B:+$B/fenceline-lab}}
LAB=${LAB:-build-lab/lab/fenceline-lab}
BENCH=${BENCH:-${B:+$B/barrier_bench}}
BENCH=${BENCH:-build-lab/bench/gpu/barrier_bench}
GRIDTEST=${GRIDTEST:-${B:+$B/grid_barrier_test}}
GRIDTEST=${GRIDTEST:-build-lab/tests/gpu/grid_barrier_test}
RUNS_UNFIXED=${RUNS_UNFIXED:-30000}
RUNS_FIXED=${RUNS_FIXED:-300000}
RUNS_OTHER=${RUNS_OTHER:-60000}
PHASES=${PHASES:-sass smoke aba knobs latency aba-no-swizzle stress pinned shapes shape-knobs aba-shape labbarrier barrier}
want() { case " $PHASES " in *" $1 "*) return 0 ;; esac; return 1; }
mkdir -p "$OUT" "$OUT/json"
log=$OUT/gemm.log
: > "$log"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), driver $driver" | tee -a "$log"

n=0
lab() {  # lab NAME ARGS...: one fenceline-lab invocation, table to the log, JSON to json/NN-NAME.json
  local name=$1; shift
  n=$((n + 1))
  local json; json=$(printf '%s/json/%02d-%s.json' "$OUT" "$n" "$name")
  echo "== $LAB $* --json $json" | tee -a "$log"
  timeout 200 "$LAB" "$@" ${SW[@]+"${SW[@]}"} --json "$json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"
}

# 1. SASS of the unfixed kernel (96-column tiles): where the arrive sits among the
#    ldmatrix loads (LDSM) and their first use (HMMA): the default 4x2 shape, its pinned
#    release (gemm.schedule=pinned) and the 16-warp 8x2 shape.
if want sass; then
  : > "$OUT/gemm-sass.txt"
  # gemmUnfixed<GemmShape<96, 4, 2, same_stage>>, <…, pinned>, <96, 8, 2, same_stage>
  for f in _ZN3lab4gemm11gemmUnfixedINS0_9GemmShapeILi96ELi4ELi2ELNS0_8ScheduleE0EEEEEvNS0_6ParamsE \
      _ZN3lab4gemm11gemmUnfixedINS0_9GemmShapeILi96ELi4ELi2ELNS0_8ScheduleE1EEEEEvNS0_6ParamsE \
      _ZN3lab4gemm11gemmUnfixedINS0_9GemmShapeILi96ELi8ELi2ELNS0_8ScheduleE0EEEEEvNS0_6ParamsE; do
    echo "== $f" >> "$OUT/gemm-sass.txt"
    cuobjdump -sass -fun "$f" "$LAB" 2>/dev/null | grep -E 'LDSM|SYNCS|HMMA|WARPSYNC|FENCE|BAR' | head -70 >> "$OUT/gemm-sass.txt"
  done
  echo "== SASS: $(grep -c LDSM "$OUT/gemm-sass.txt") LDSM, $(grep -c SYNCS "$OUT/gemm-sass.txt") SYNCS lines" | tee -a "$log"
fi

# 1b. Smoke test (two fixed variants, 96 runs, both swizzles): a GEMM that is wrong or
#     times out ends the GEMM part here (the grid-barrier part still runs); if only the
#     swizzled layout is wrong, the rest runs without the swizzle (gemm.swizzle=0), as the
#     log then says. (The unfixed variant is no smoke test: its first run may be wrong.)
SW=()
gemm_ok=1
if want smoke; then
lab smoke --experiments gemm --variants producer-fence,lib-producer --param gemm.runs=96 --watchdog-seconds 20
lab smoke-no-swizzle --experiments gemm --variants producer-fence,lib-producer --param gemm.runs=96 --param gemm.swizzle=0 \
  --watchdog-seconds 20
smoke_ok() { grep -A3 "json/0$1-" "$log" | grep -E '^gemm ' | grep -c ' ok '; }
if [ "$(smoke_ok 1)" != 2 ]; then
  if [ "$(smoke_ok 2)" = 2 ]; then SW=(--param gemm.swizzle=0); echo "== swizzled GEMM failed its smoke test: swizzle=0 from here" | tee -a "$log"
  else gemm_ok=0; echo "== GEMM failed its smoke test: GEMM part skipped" | tee -a "$log"; fi
fi
fi
if [ $gemm_ok = 1 ]; then  # (the GEMM part ends at "fi  # gemm_ok")

# 2. A/B/A in the incident's configuration (M=4096 N=896 K=1024, 128x96x32, 7 stages,
#    one CTA per SM): unfixed, every fixed variant, unfixed again.
if want aba; then
lab aba-unfixed-1 --experiments gemm --variants unfixed --param gemm.runs=$RUNS_UNFIXED --budget-seconds 400
for v in lib-producer consumer-fence; do
  lab aba-$v --experiments gemm --variants $v --param gemm.runs=$RUNS_FIXED --budget-seconds 400
done
for v in producer-fence lib-consumers lane0-fence generic-fence; do
  lab aba-$v --experiments gemm --variants $v --param gemm.runs=$RUNS_OTHER --budget-seconds 400
done
lab aba-unfixed-2 --experiments gemm --variants unfixed --param gemm.runs=$RUNS_UNFIXED --budget-seconds 400
fi

# 3. Stress knobs on the unfixed variant (a fixed control beside the strongest ones).
k=(--experiments gemm --budget-seconds 400)
if want knobs; then
lab knob-back-to-back "${k[@]}" --variants unfixed,lib-producer --param gemm.mode=back-to-back --param gemm.runs=20000
lab knob-memory-stress "${k[@]}" --variants unfixed,lib-producer --param gemm.stress=1 --param gemm.runs=20000
lab knob-stages-4 "${k[@]}" --variants unfixed --param gemm.stages=4 --param gemm.runs=20000
lab knob-stages-2 "${k[@]}" --variants unfixed --param gemm.stages=2 --param gemm.runs=20000
lab knob-tile-128 "${k[@]}" --variants unfixed --param gemm.tile_n=128 --param gemm.runs=20000
lab knob-k-8192 "${k[@]}" --variants unfixed --param gemm.k=8192 --param gemm.runs=4000
lab knob-no-swizzle "${k[@]}" --variants unfixed,lib-producer --param gemm.swizzle=0 --param gemm.runs=20000
fi

# 4. Latency: every variant, CUDA graphs of 20 GEMMs, 41 interleaved rounds, medians.
if want latency; then
lab latency --experiments gemm-latency --budget-seconds 100
lab latency-again --experiments gemm-latency --budget-seconds 100
lab latency-no-swizzle --experiments gemm-latency --budget-seconds 100 --param gemm.swizzle=0
fi

# 4b. A/B/A without the swizzle (4-way bank-conflicted ldmatrix: slower loads), where the
#     unfixed GEMM went wrong in the first run's knob sweep: every variant.
if want aba-no-swizzle; then
ns=(--experiments gemm --budget-seconds 400 --param gemm.swizzle=0)
lab ns-unfixed-1 "${ns[@]}" --variants unfixed --param gemm.runs=5000
for v in lib-producer lib-consumers consumer-fence producer-fence lane0-fence generic-fence; do
  lab ns-$v "${ns[@]}" --variants $v --param gemm.runs=$RUNS_OTHER
done
lab ns-unfixed-2 "${ns[@]}" --variants unfixed --param gemm.runs=5000
fi

# 4b'. The co-running memory kernel (its first version did not stop in time: run 1).
if want stress; then
lab stress "${k[@]}" --variants unfixed,lib-producer --param gemm.stress=1 --param gemm.runs=${RUNS_STRESS:-10000}
fi

# 4c. The pinned release (gemm.pinned_release=1, GemmKernel.cuh): every ldmatrix of the
#     stage still in flight at the arrive; swizzled (conflict-free) loads.
if want pinned; then
lab pinned "${k[@]}" --variants unfixed,lib-producer --param gemm.pinned_release=1 --param gemm.runs=30000
lab pinned-latency --experiments gemm-latency --budget-seconds 100 --param gemm.pinned_release=1
fi

# 4e. Consumer shapes closer to the incident's kernel (GemmKernel.cuh: GemmShape), swizzled,
#     incident's problem and tiles: warp grids 4x2 / 8x1 (16-row warps: the incident's ~16
#     wrong elements in one column) / 8x2 (16 consumer warps), consumer schedules same-stage /
#     pinned / prefetch (ldmatrix of the next stage, arrive, MMAs of the current one). The
#     unfixed variant in each, fixed controls (RUNS_SHAPES_FIXED each) where SHAPES_FIXED
#     says, and the latency of every variant per shape.
if want shapes; then
RUNS_SHAPES=${RUNS_SHAPES:-60000}
for sh in ${SHAPES:-4x2:prefetch 8x1:same-stage 8x1:pinned 8x1:prefetch 8x2:same-stage 8x2:prefetch}; do
  w=${sh%%:*}; sc=${sh#*:}
  lab shape-$w-$sc-unfixed "${k[@]}" --variants unfixed --param gemm.warps=$w --param gemm.schedule=$sc \
    --param gemm.runs=$RUNS_SHAPES
done
for sh in ${SHAPES_FIXED:-}; do
  w=${sh%%:*}; sc=${sh#*:}
  lab shape-$w-$sc-fixed "${k[@]}" --variants lib-producer,consumer-fence,producer-fence --param gemm.warps=$w \
    --param gemm.schedule=$sc --param gemm.runs=${RUNS_SHAPES_FIXED:-60000}
done
for sh in ${SHAPES_LATENCY:-4x2:same-stage 4x2:prefetch 8x1:same-stage 8x1:prefetch 8x2:prefetch}; do
  w=${sh%%:*}; sc=${sh#*:}
  lab shape-$w-$sc-latency --experiments gemm-latency --budget-seconds 100 --param gemm.warps=$w --param gemm.schedule=$sc
done
fi

# 4f. Stress knobs on one shape (KNOB_SHAPE, warps:schedule; default the 16-warp 8x2
#     same-stage), unfixed: fewer stages, back-to-back, the co-running device-memory kernel
#     (gemm.stress=1) and the shared-memory one (gemm.stress=2).
if want shape-knobs; then
ks=${KNOB_SHAPE:-8x2:same-stage}; w=${ks%%:*}; sc=${ks#*:}
kn=(--experiments gemm --budget-seconds 400 --variants unfixed --param gemm.warps=$w --param gemm.schedule=$sc)
R=${RUNS_KNOBS:-100000}
for st in ${KNOB_STAGES:-4 3}; do lab knob-$w-$sc-stages-$st "${kn[@]}" --param gemm.stages=$st --param gemm.runs=$R; done
lab knob-$w-$sc-back-to-back "${kn[@]}" --param gemm.mode=back-to-back --param gemm.runs=$R
lab knob-$w-$sc-memory-stress "${kn[@]}" --param gemm.stress=1 --param gemm.runs=$((R / 2))
lab knob-$w-$sc-shared-stress "${kn[@]}" --param gemm.stress=2 --param gemm.runs=$((R / 2))
fi

# 4g. A/B/A in one shape (ABA_SHAPE, warps:schedule) with extra knobs (ABA_EXTRA, e.g.
#     "--param gemm.stress=1"): unfixed, every fixed variant (ABA_FIXED, variant:runs), unfixed.
if want aba-shape; then
as=${ABA_SHAPE:-8x2:same-stage}; w=${as%%:*}; sc=${as#*:}
ab=(--experiments gemm --budget-seconds 400 --param gemm.warps=$w --param gemm.schedule=$sc ${ABA_EXTRA:-})
lab aba-$w-$sc-unfixed-1 "${ab[@]}" --variants unfixed --param gemm.runs=${RUNS_ABA_UNFIXED:-50000}
for vr in ${ABA_FIXED:-lib-producer:500000 consumer-fence:250000 producer-fence:250000 lane0-fence:100000 generic-fence:100000 lib-consumers:100000}; do
  lab aba-$w-$sc-${vr%%:*} "${ab[@]}" --variants ${vr%%:*} --param gemm.runs=${vr#*:}
done
lab aba-$w-$sc-unfixed-2 "${ab[@]}" --variants unfixed --param gemm.runs=${RUNS_ABA_UNFIXED:-50000}
fi

fi  # gemm_ok

# 4d. The lab's barrier experiments, whose fixed variants are fenceline::GridBarrier.
if want labbarrier; then
lab lab-barriers --experiments barrier-reuse,barrier-init-race --iterations 10 --budget-seconds 40
fi

# 5. Grid barrier: bench (every multiple of 132 blocks), then the stress test per design.
if want barrier; then
echo "== $BENCH --driver $driver --json $OUT/barrier-bench.json" | tee -a "$OUT/primitives.log"
timeout 150 "$BENCH" --driver "$driver" ${BENCH_ARGS:-} --json "$OUT/barrier-bench.json" 2>&1 | tee -a "$OUT/primitives.log"
echo "== $GRIDTEST" | tee -a "$OUT/primitives.log"
timeout 150 "$GRIDTEST" 2>&1 | tee -a "$OUT/primitives.log"
echo "== grid_barrier_test exit ${PIPESTATUS[0]}" | tee -a "$OUT/primitives.log"
fi

# 6. One JSON of every lab invocation, in order, each row tagged with its run name.
python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
merged = None
for name in sorted(os.listdir(os.path.join(out, "json")) if os.path.isdir(os.path.join(out, "json")) else []):
    part = json.load(open(os.path.join(out, "json", name)))
    if merged is None:
        merged = {k: part[k] for k in ("device", "driver", "cuda")}
        merged["command"] = "bash lab/run-gemm-h200.sh"
        merged["commands"] = []
        merged["experiments"] = []
    merged["commands"].append(part["command"])
    for e in part["experiments"]:
        e["run"] = name[3:-5]
        merged["experiments"].append(e)
if merged:
    json.dump(merged, open(os.path.join(out, "gemm.json"), "w"), indent=1)
PY
rm -rf "$OUT/json"
# The table, last (the reply carries the end of the output).
grep -E '^(gemm|gemm-latency|barrier-reuse|barrier-init-race) ' "$log" | cut -c1-200
[ -f "$OUT/primitives.log" ] && grep -E '^(crossover|PASS|FAIL)' "$OUT/primitives.log" | cut -c1-160

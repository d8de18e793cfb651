#!/usr/bin/env bash
# The lab's H200 run, as committed in results/h200/: the main experiments, the
# litmus shapes (more launches: each launch is short), the stress-knob sweeps of
# proxy-war and proxy-raw, and compute-sanitizer racecheck on the proxy-war pair
# (timed against the same command without the sanitizer). Writes everything to
# $OUT (default results/h200/raw), then merges the JSON into $OUT/lab.json.
# Run from the repository root: bash lab/run-h200.sh
# B=path/to/fenceline-lab picks the binary; SKIP_RACECHECK=1 leaves out the racecheck
# pair (about two minutes of the run; its logs from an earlier run stay where they are).
set -o pipefail
B=${B:-build-lab/lab/fenceline-lab}
OUT=${OUT:-results/h200/raw}
mkdir -p "$OUT"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1

run() {  # run NAME ARGS...: one invocation, table to the log, JSON to NAME.json
  local name=$1; shift
  echo "== $B $* --json $name.json" | tee -a "$OUT/lab.log"
  timeout 300 "$B" "$@" --json "$OUT/$name.json" 2>&1 | tee -a "$OUT/lab.log"
}

run main --iterations 10 --budget-seconds 120 --seed 1 \
  --experiments mp-l1,proxy-war,proxy-war-tma,proxy-raw,proxy-raw-tma,barrier-reuse,barrier-init-race
run litmus --iterations 300 --budget-seconds 60 --seed 1 --experiments litmus-mp,litmus-sb,litmus-lb
run knobs-nobank --iterations 3 --experiments proxy-war,proxy-raw --variants unfixed,fixed \
  --param proxy-war.bank_conflicts=0 --param proxy-raw.bank_conflicts=0
run knobs-hbm --iterations 3 --experiments proxy-war --variants unfixed,fixed --param proxy-war.l2_resident=0
run knobs-1warp --iterations 3 --experiments proxy-war --variants unfixed,fixed --param proxy-war.consumer_warps=1
run knobs-8warps --iterations 3 --experiments proxy-war --variants unfixed,fixed \
  --param proxy-war.consumer_warps=8 --param proxy-war.stages=2

# racecheck: a tiny ring (2 CTAs, 8 fills, ld.shared readers), plain vs sanitized; the
# device watchdog is raised to 40 s because the sanitizer slows the ring down.
tiny=(--experiments proxy-war --iterations 1 --watchdog-seconds 100 --param proxy-war.ctas=2
      --param proxy-war.fills=8 --param proxy-war.readers=lds --param proxy-war.timeout_ms=40000)
for v in unfixed fixed; do
  [ "${SKIP_RACECHECK:-0}" = 1 ] && break
  t0=$(date +%s.%N)
  "$B" "${tiny[@]}" --variants $v > "$OUT/plain-$v.log" 2>&1
  t1=$(date +%s.%N)
  timeout 150 compute-sanitizer --tool racecheck --racecheck-report all "$B" "${tiny[@]}" --variants $v \
    > "$OUT/racecheck-$v.log" 2>&1
  echo "racecheck rc=$?" >> "$OUT/racecheck-$v.log"
  t2=$(date +%s.%N)
  echo "racecheck $v: plain $(awk "BEGIN{print $t1 - $t0}") s, racecheck $(awk "BEGIN{print $t2 - $t1}") s" | tee -a "$OUT/lab.log"
  tail -4 "$OUT/racecheck-$v.log"
done

python3 - "$OUT" <<'PY'
import json, sys, glob, os
out = sys.argv[1]
merged = None
for name in ["main", "litmus", "knobs-nobank", "knobs-hbm", "knobs-1warp", "knobs-8warps"]:
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        continue
    part = json.load(open(path))
    if merged is None:
        merged = {k: part[k] for k in ("device", "driver", "cuda")}
        merged["command"] = "bash lab/run-h200.sh"
        merged["commands"] = []
        merged["experiments"] = []
    merged["commands"].append(part["command"])
    for e in part["experiments"]:
        e["run"] = name
        merged["experiments"].append(e)
json.dump(merged, open(os.path.join(out, "lab.json"), "w"), indent=2)
PY

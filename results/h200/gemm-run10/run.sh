#!/usr/bin/env bash
# Issue 17, session 4, call 2: the co-running memory kernel's block count (gemm.stress_blocks,
# default one per SM = 132) on the 16-warp 8x2 same-stage shape in the incident's
# configuration; two 150k-run invocations per count, then A/B/A (unfixed, lib-producer and
# consumer-fence at 10x, unfixed) at the count with the highest lower rate.
set -uo pipefail
D=.gpu/g17
export LD_LIBRARY_PATH=$D
mkdir -p "$OUT/json"
log=$OUT/run.log
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$log"
run() { local name=$1; shift; echo "== $* --json /tmp/j/$name.json" | tee -a "$log"; timeout 150 "$@" --json "/tmp/j/$name.json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"; }
mkdir -p /tmp/j
rate() { python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['experiments'][0]; print(e['violations']/max(e['trials'],1))" "$1"; }
G="--experiments gemm --param gemm.warps=8x2 --param gemm.schedule=same-stage --param gemm.stress=1"
best=132; bestrate=-1
for b in ${BLOCKS:-264 528 1056}; do
  lo=1
  for i in 1 2; do
    run sweep-$b-$i $D/lab-main $G --param gemm.stress_blocks=$b --budget-seconds 30 --variants unfixed --param gemm.runs=150000
    r=$(rate /tmp/j/sweep-$b-$i.json 2>/dev/null || echo 0)
    lo=$(python3 -c "print(min($lo,$r))")
  done
  echo "== stress_blocks $b lower rate $lo" | tee -a "$log"
  if python3 -c "import sys; sys.exit(0 if $lo > $bestrate else 1)"; then best=$b; bestrate=$lo; fi
done
echo "== best stress_blocks $best (lower rate $bestrate)" | tee -a "$log"
G="$G --param gemm.stress_blocks=$best"
run aba-a1 $D/lab-main $G --budget-seconds 30 --variants unfixed --param gemm.runs=150000
for v in lib-producer consumer-fence; do
  run aba-b-$v $D/lab-main $G --budget-seconds 125 --variants $v --param gemm.runs=1500000
done
run aba-a2 $D/lab-main $G --budget-seconds 30 --variants unfixed --param gemm.runs=150000
python3 - "$OUT" <<'PY'
import glob, json, os, sys
rows = []
for f in sorted(glob.glob('/tmp/j/*.json'), key=os.path.getmtime):
    d = json.load(open(f))
    for e in d['experiments']:
        rows.append({'run': os.path.basename(f)[:-5], 'command': d.get('command'), **e})
json.dump({'device': d.get('device'), 'driver': d.get('driver'), 'rows': rows}, open(sys.argv[1] + '/all.json', 'w'), indent=1)
PY
echo "== done $(date -u +%FT%TZ)" | tee -a "$log"

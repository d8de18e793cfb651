#!/usr/bin/env bash
# Issue 17, session 4, call 3: the other four fixed variants (producer-fence, generic-fence,
# lane0-fence, lib-consumers) at 10x one A phase, between two unfixed A phases, on the 8x2
# same-stage shape with the memory co-runner at 264 blocks (call 2's reproducing setting).
set -uo pipefail
D=.gpu/g17
export LD_LIBRARY_PATH=$D
mkdir -p "$OUT" /tmp/j
log=$OUT/run.log
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
echo "== $(date -u +%FT%TZ) device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" | tee -a "$log"
run() { local name=$1; shift; echo "== $* --json /tmp/j/$name.json" | tee -a "$log"; timeout 150 "$@" --json "/tmp/j/$name.json" 2>&1 | grep -v '^device:\|^experiment ' | tee -a "$log"; }
G="--experiments gemm --param gemm.warps=8x2 --param gemm.schedule=same-stage --param gemm.stress=1 --param gemm.stress_blocks=264"
run aba-a1 $D/lab-main $G --budget-seconds 30 --variants unfixed --param gemm.runs=150000
for v in producer-fence generic-fence lane0-fence lib-consumers; do
  run aba-b-$v $D/lab-main $G --budget-seconds 118 --variants $v --param gemm.runs=1500000
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

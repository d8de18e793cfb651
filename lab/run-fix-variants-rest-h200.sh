# Issue 31, the rows run-fix-variants-short-h200.sh left: proxy-war and proxy-war-tma with the
# strict-tier machine fix (BF rebuilt by lab/fix-variants.sh --strict), and the GEMM's latency per
# variant (gemm-latency, variants interleaved in CUDA graphs) in both binaries.
# Command: OUT=$OUT bash lab/run-fix-variants-rest-h200.sh
set -o pipefail
B=build/lab/fenceline-lab; BF=build-lab-fixed/build/lab/fenceline-lab
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
run() { local name=$1 bin=$2 t=$3; shift 3; echo "== $bin $* --json $name.json" | tee -a $OUT/lab.log; timeout $t $bin "$@" --json $OUT/$name.json 2>&1 | tee -a $OUT/lab.log; }
E=proxy-war,proxy-war-tma
run war-broken-and-hand-fixed $B 100 --iterations 10 --budget-seconds 60 --seed 1 --experiments $E --variants unfixed,fixed
run war-auto-fixed $BF 100 --iterations 10 --budget-seconds 60 --seed 1 --experiments $E --variants unfixed,fixed
run gemm-latency-B $B 60 --experiments gemm-latency --variants interleaved --budget-seconds 40 --param gemm.warps=8x2
run gemm-latency-BF $BF 60 --experiments gemm-latency --variants interleaved --budget-seconds 40 --param gemm.warps=8x2

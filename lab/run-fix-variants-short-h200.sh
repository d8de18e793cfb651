set -o pipefail
B=build/lab/fenceline-lab; BF=build-lab-fixed/build/lab/fenceline-lab
nvidia-smi > $OUT/nvidia-smi.txt 2>&1
run() { local name=$1 bin=$2 t=$3; shift 3; echo "== $bin $* --json $name.json" | tee -a $OUT/lab.log; timeout $t $bin "$@" --json $OUT/$name.json 2>&1 | tee -a $OUT/lab.log; }
E=mp-l1,proxy-war,proxy-war-tma,proxy-raw,proxy-raw-tma,bulk-store-reuse
run broken-and-hand-fixed $B 100 --iterations 10 --budget-seconds 60 --seed 1 --experiments $E --variants unfixed,fixed
run auto-fixed $BF 100 --iterations 10 --budget-seconds 60 --seed 1 --experiments $E --variants unfixed,fixed
G="--experiments gemm --param gemm.stress=1 --param gemm.stress_blocks=264 --param gemm.warps=8x2"
run gemm-broken $B 60 $G --budget-seconds 40 --variants unfixed --param gemm.runs=40000
run gemm-hand-fixed $B 90 $G --budget-seconds 70 --variants consumer-fence --param gemm.runs=250000
run gemm-auto-fixed $BF 90 $G --budget-seconds 70 --variants unfixed --param gemm.runs=250000
run gemm-latency-broken-and-hand-fixed $B 45 --experiments gemm-latency --variants unfixed,consumer-fence --budget-seconds 30 --param gemm.warps=8x2
run gemm-latency-auto-fixed $BF 45 --experiments gemm-latency --variants unfixed,consumer-fence --budget-seconds 30 --param gemm.warps=8x2

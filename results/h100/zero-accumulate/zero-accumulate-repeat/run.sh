#!/usr/bin/env bash
# Third device call of session 27: the r256 configuration again, two seeds (A/B repeated).
set -o pipefail
[ -x .gpu/fenceline-lab ] || { mkdir -p .gpu/obj; FLAGS="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Ilab -I.gpu/inc"; ls lab/main.cpp lab/Host.cu lab/TensorMap.cu lab/experiments/*.cu | xargs -P 16 -I{} sh -c 'nvcc '"$FLAGS"' -x cu -c {} -o .gpu/obj/$(basename {}).o 2>/dev/null || echo FAIL {}'; nvcc -gencode=arch=compute_90a,code=sm_90a .gpu/obj/*.o -o .gpu/fenceline-lab -lcudart_static; }
O=$OUT/zero-accumulate-repeat; mkdir -p $O; nvidia-smi > $O/nvidia-smi.txt
for seed in 7 8; do
  echo "== .gpu/fenceline-lab --iterations 20000 --budget-seconds 90 --experiments zero-accumulate --seed $seed --param zero.rounds=256 --json r256-s$seed.json" | tee -a $O/lab.log
  timeout 150 .gpu/fenceline-lab --iterations 20000 --budget-seconds 90 --experiments zero-accumulate --seed $seed --param zero.rounds=256 --json $O/r256-s$seed.json 2>&1 | tee -a $O/lab.log
done

#!/usr/bin/env bash
# Second device call of session 27: longer zero-accumulate runs (more launches and rounds).
set -o pipefail
[ -x .gpu/fenceline-lab ] || { mkdir -p .gpu/obj; FLAGS="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Ilab -I.gpu/inc"; ls lab/main.cpp lab/Host.cu lab/TensorMap.cu lab/experiments/*.cu | xargs -P 16 -I{} sh -c 'nvcc '"$FLAGS"' -x cu -c {} -o .gpu/obj/$(basename {}).o 2>/dev/null || echo FAIL {}'; nvcc -gencode=arch=compute_90a,code=sm_90a .gpu/obj/*.o -o .gpu/fenceline-lab -lcudart_static; }
O=$OUT/zero-accumulate-long; mkdir -p $O; nvidia-smi > $O/nvidia-smi.txt
for spec in "r256:--seed 4 --param zero.rounds=256" "w1r1024:--seed 5 --param zero.words_per_thread=1 --param zero.rounds=1024" "w32r128:--seed 6 --param zero.words_per_thread=32 --param zero.rounds=128"; do
  name=${spec%%:*}; args=${spec#*:}
  echo "== .gpu/fenceline-lab --iterations 20000 --budget-seconds 90 --experiments zero-accumulate $args --json $name.json" | tee -a $O/lab.log
  timeout 150 .gpu/fenceline-lab --iterations 20000 --budget-seconds 90 --experiments zero-accumulate $args --json $O/$name.json 2>&1 | tee -a $O/lab.log
done

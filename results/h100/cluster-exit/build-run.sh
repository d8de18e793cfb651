#!/usr/bin/env bash
# Builds fenceline-lab on the device (nvcc only; CLI11 and nlohmann-json headers carried in .gpu/inc)
# and runs lab/run-cluster-exit.sh into $OUT/cluster-exit.
set -o pipefail
mkdir -p .gpu/obj
nvidia-smi -L; nvcc --version | tail -2
FLAGS="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Ilab -I.gpu/inc"
ls lab/main.cpp lab/Host.cu lab/TensorMap.cu lab/experiments/*.cu | xargs -P 16 -I{} sh -c 'nvcc '"$FLAGS"' -x cu -c {} -o .gpu/obj/$(basename {}).o || echo FAIL {}'
nvcc -gencode=arch=compute_90a,code=sm_90a .gpu/obj/*.o -o .gpu/fenceline-lab -lcudart_static || exit 1
B=.gpu/fenceline-lab OUT=$OUT/cluster-exit bash lab/run-cluster-exit.sh

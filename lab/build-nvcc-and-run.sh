#!/usr/bin/env bash
# Builds fenceline-lab on a device machine with nvcc alone (no CMake configure: the device image has
# no CLI11 or nlohmann-json, so their headers are carried in .gpu/inc) and runs one of the lab's run
# scripts with that binary, its results under $OUT/NAME:
#   bash lab/build-nvcc-and-run.sh lab/run-cluster-exit.sh cluster-exit
set -o pipefail
script=${1:?usage: lab/build-nvcc-and-run.sh RUN_SCRIPT NAME}
name=${2:?usage: lab/build-nvcc-and-run.sh RUN_SCRIPT NAME}
# .gpu/inc is made where the checker builds (cp -r /usr/include/CLI /usr/include/nlohmann .gpu/inc/)
# and carried to the device.
mkdir -p .gpu/obj
nvidia-smi -L; nvcc --version | tail -2
FLAGS="-std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -lineinfo -Ilab -I.gpu/inc"
ls lab/main.cpp lab/Host.cu lab/TensorMap.cu lab/experiments/*.cu | xargs -P 16 -I{} sh -c 'nvcc '"$FLAGS"' -x cu -c {} -o .gpu/obj/$(basename {}).o || echo FAIL {}'
nvcc -gencode=arch=compute_90a,code=sm_90a .gpu/obj/*.o -o .gpu/fenceline-lab -lcudart_static || exit 1
B=.gpu/fenceline-lab OUT=${OUT:-results}/$name bash "$script"

#!/bin/bash
# Held-out first look of session 28 (issue 34; docs/real-code.md, "Held-out first look (session 28)").
#
#   bench/wheels/held28.sh BIN OUT [ROOT]
#
# Reruns exactly the runs of the look with fenceline binary BIN into folder OUT: every library
# file below (`check -j 2 --strict --format json`, default limits), whole unless its mode is
# sample:K:TARGET, which checks K of its PTX images of TARGET (extracted with `cuobjdump -xptx all`
# into ROOT/ptx/NAME, drawn with random.Random(28)). ROOT holds the unpacked wheels in
# ROOT/x/<wheel file name without .whl> (default: held28's scratch folder; the wheels are pinned in
# bench/wheels/wheels.txt). Files whose PTX images are byte-identical to a row's (gpt4all's avxonly
# backend, torchcodec's other five FFmpeg builds, pennylane's catalyst library) are not rows.
# gptq-exllama and tfa-image are records (one empty PTX image each: exit status 2). The ptx: rows
# (TensorFlow Recommenders-Addons, auto-gptq's exllama module) are files whose `cuobjdump -symbols`
# (and -lptx, -lelf) stops with "Invalid ELF" after listing their images, so `check LIB` reports an
# input error (the NAME-lib rows keep that record); their images are extracted and checked as .ptx files (the newest target, the one
# `check LIB` would take per kernel). Writes
# OUT/NAME.json, .err, .time (wall, user, sys, peak KB), .rc, then prints the per-library table and
# the counts of bench/wheels/held27_count.py (default tier by library and check, unique default
# findings, strict tier by check and undecided link). The lead's rerun with the final binary:
#   bench/wheels/held28.sh /path/to/fenceline /tmp/held28-final /work/wt/held28/.scratch
set -u
BIN=$(readlink -f "$1"); OUT=$(mkdir -p "$2" && readlink -f "$2"); ROOT=$(readlink -f "${3:-/work/wt/held28/.scratch}")
CUOBJ=${FENCELINE_CUOBJDUMP:-/work/main/.scratch/wheels/x-nvidia_cuda_cuobjdump-13.5.37/nvidia/cu13/bin/cuobjdump}
HERE=$(dirname "$(readlink -f "$0")")
[ -x "$BIN" ] || { echo "no binary $BIN" >&2; exit 2; }
[ -x "$CUOBJ" ] || { echo "no cuobjdump $CUOBJ" >&2; exit 2; }

# NAME|library file inside ROOT/x|mode (whole; sample:K:TARGET; or ptx:TARGET: every image of TARGET that
# `cuobjdump -xptx all` extracts, checked as .ptx files, for a library whose `cuobjdump -symbols` fails)
LIBS='
qiskit-aer|qiskit_aer_gpu-0.18.2-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64/qiskit_aer/backends/controller_wrappers.cpython-311-x86_64-linux-gnu.so|whole
qiskit-aer-cu11|qiskit_aer_gpu_cu11-0.18.2-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64/qiskit_aer/backends/controller_wrappers.cpython-311-x86_64-linux-gnu.so|whole
faiss|faiss_gpu-1.15.1-cp310-abi3-manylinux_2_27_x86_64.manylinux_2_28_x86_64/faiss/libfaiss.so|whole
tfra-hkv|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_hkv_ops.so|ptx:sm_89
tfra-math|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_math_ops.so|ptx:sm_89
tfra-data-flow|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_data_flow_ops.so|ptx:sm_89
astra|astra_toolbox-2.5.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64/astra/libastra.so.0|whole
gpt4all-cuda|gpt4all-2.8.2-py3-none-manylinux1_x86_64/gpt4all/llmodel_DO_NOT_MODIFY/build/libllamamodel-mainline-cuda.so|whole
ctransformers-cuda|ctransformers-0.2.27-py3-none-any/ctransformers/lib/cuda/libctransformers.so|whole
deepspeed-ft|deepspeed_kernels-0.0.1.dev1698255861-py3-none-manylinux1_x86_64/dskernels/libdeepspeedft.so|whole
deepspeed-blockedflash|deepspeed_kernels-0.0.1.dev1698255861-py3-none-manylinux1_x86_64/dskernels/libblockedflash.so|whole
fastertransformer-tf-bert|fastertransformer-5.0.0.116-py3-none-any/fastertransformer/libtf_bert.so|whole
pycolmap|pycolmap_cuda12-4.2.1-cp311-cp311-manylinux_2_28_x86_64/pycolmap/_core.cpython-311-x86_64-linux-gnu.so|whole
holoscan-infer|holoscan_cu12-4.6.0-cp311-cp311-manylinux_2_35_x86_64/holoscan_cu12-4.6.0.data/purelib/holoscan/lib/libholoscan_infer.so.4.6.0|whole
holoscan-viz|holoscan_cu12-4.6.0-cp311-cp311-manylinux_2_35_x86_64/holoscan_cu12-4.6.0.data/purelib/holoscan/lib/libholoscan_viz.so.4.6.0|whole
holoscan-segpost|holoscan_cu12-4.6.0-cp311-cp311-manylinux_2_35_x86_64/holoscan_cu12-4.6.0.data/purelib/holoscan/lib/libholoscan_op_segmentation_postprocessor.so.4.6.0|whole
cccl-parallel-cu12|cuda_cccl-1.2.1-cp311-cp311-manylinux_2_26_x86_64/cuda/compute/cu12/cccl/libcccl.c.parallel.so|whole
cccl-parallel-cu13|cuda_cccl-1.2.1-cp311-cp311-manylinux_2_26_x86_64/cuda/compute/cu13/cccl/libcccl.c.parallel.so|whole
cudaq-qec|cudaq_qec_cu12-0.8.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64/cudaq_qec/lib/libcudaq-qec.so|whole
torchcodec|torchcodec-0.17.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64/torchcodec/libtorchcodec_core8.so|whole
pennylane-lightning-gpu|pennylane_lightning_gpu-0.45.0-cp311-cp311-manylinux_2_28_x86_64/pennylane_lightning/lightning_gpu_ops.cpython-311-x86_64-linux-gnu.so|whole
mindspore-cuda-ops|mindspore-2.10.0-cp311-cp311-manylinux1_x86_64/mindspore/lib/plugin/gpu/libcuda_ops.so.11|whole
gptq-exllama|auto_gptq-0.7.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64/exllama_kernels.cpython-311-x86_64-linux-gnu.so|ptx:sm_90
tfa-image|tensorflow_addons-0.23.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_addons/custom_ops/image/_image_ops.so|whole
tfra-hkv-lib|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_hkv_ops.so|whole
tfra-math-lib|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_math_ops.so|whole
tfra-data-flow-lib|tensorflow_recommenders_addons_gpu-0.7.2-cp311-cp311-manylinux_2_12_x86_64.manylinux2010_x86_64.manylinux_2_17_x86_64.manylinux2014_x86_64/tensorflow_recommenders_addons/dynamic_embedding/core/_data_flow_ops.so|whole
gptq-exllama-lib|auto_gptq-0.7.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64/exllama_kernels.cpython-311-x86_64-linux-gnu.so|whole
'
LIBS_EXTRA=${HELD28_LIBS_EXTRA:-}

run() { # NAME OUTNAME INPUTS...
  local name=$1 outname=$2; shift 2
  /usr/bin/time -o "$OUT/$outname.time" -f "%e s %U u %S sys %M KB" nice -n 19 "$BIN" check -j 2 --strict --format json \
    --cuobjdump "$CUOBJ" "$@" > "$OUT/$outname.json" 2> "$OUT/$outname.err"
  echo $? > "$OUT/$outname.rc"
}

sample() { # NAME LIB K TARGET: the sampled .ptx files, one a line
  local dir="$ROOT/ptx/$1"
  # cuobjdump's exit status is not read: on the ptx: rows it extracts the images, then stops on "Invalid ELF"
  if [ ! -d "$dir" ] || [ -z "$(ls "$dir")" ]; then mkdir -p "$dir"; (cd "$dir" && "$CUOBJ" -xptx all "$2" > /dev/null 2>&1); fi
  python3 - "$dir" "$3" "$4" <<'PY'
import os, random, sys
d, k, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
images = sorted(f for f in os.listdir(d) if f.endswith("." + target + ".ptx"))
for f in sorted(random.Random(28).sample(images, min(k, len(images)))):
    print(os.path.join(d, f))
PY
}

echo "$LIBS$LIBS_EXTRA" | while IFS='|' read -r name path mode; do
  [ -n "$name" ] || continue
  lib="$ROOT/x/$path"
  if [ ! -f "$lib" ]; then echo "missing $lib" >&2; continue; fi
  case "$mode" in
    whole) run "$name" "$name" "$lib" ;;
    ptx:*) target=${mode#ptx:}
      mapfile -t files < <(sample "$name" "$lib" 100000 "$target")
      printf '%s\n' "${files[@]}" > "$OUT/$name.ptx.txt"
      run "$name" "$name.ptx" "${files[@]}" ;;
    sample:*) IFS=: read -r _ k target <<< "$mode"
      mapfile -t files < <(sample "$name" "$lib" "$k" "$target")
      printf '%s\n' "${files[@]}" > "$OUT/$name.sample.txt"
      run "$name" "$name.sample" "${files[@]}" ;;
  esac
done

python3 "$HERE/held27_count.py" --table "$OUT"

#!/bin/bash
# Held-out first look of session 27 (issue 34; docs/real-code.md, "Held-out first look (session 27)").
#
#   bench/wheels/held27.sh BIN OUT [ROOT]
#
# Reruns exactly the runs of the look with fenceline binary BIN into folder OUT: every library
# file below, checked whole (`check -j 2 --strict --format json`, default limits). No library of
# the look needed a sample; a row whose mode is sample:K:TARGET would check K of its PTX images of
# TARGET (extracted with `cuobjdump -xptx all` into ROOT/ptx/NAME, drawn with random.Random(27)).
# ROOT holds the unpacked wheels in ROOT/x/<wheel file name without .whl> (default: held27's
# scratch folder; the wheels are pinned in bench/wheels/wheels.txt). cumm-core and cudnn-ext are
# records (nothing to check: exit status 2), not rows of wheels.txt. Writes OUT/NAME.json, .err,
# .time (wall, user, sys, peak KB), .rc, then prints the per-library table and the counts of
# bench/wheels/held27_count.py (default tier by library and check, unique default findings,
# strict tier by check and undecided link). The lead's rerun with the final binary:
#   bench/wheels/held27.sh /path/to/fenceline /tmp/held27-final /work/wt/held27/.scratch
set -u
BIN=$(readlink -f "$1"); OUT=$(mkdir -p "$2" && readlink -f "$2"); ROOT=$(readlink -f "${3:-/work/wt/held27/.scratch}")
CUOBJ=${FENCELINE_CUOBJDUMP:-/work/main/.scratch/wheels/x-nvidia_cuda_cuobjdump-13.5.37/nvidia/cu13/bin/cuobjdump}
HERE=$(dirname "$(readlink -f "$0")")
[ -x "$BIN" ] || { echo "no binary $BIN" >&2; exit 2; }
[ -x "$CUOBJ" ] || { echo "no cuobjdump $CUOBJ" >&2; exit 2; }

# NAME|library file inside ROOT/x|mode (whole, or sample:K:TARGET)
LIBS='
cupauliprop|cupauliprop_cu13-0.5.0-py3-none-manylinux2014_x86_64/cuquantum/lib/libcupauliprop.so.0|whole
cumm-core|cumm_cu126-0.8.2-cp311-cp311-manylinux_2_28_x86_64/cumm/core_cc.cpython-311-x86_64-linux-gnu.so|whole
cumm-cudadevrt|cumm_cu126-0.8.2-cp311-cp311-manylinux_2_28_x86_64/cumm/lib/libcudadevrt.a|whole
spconv-core|spconv_cu126-2.3.8-cp311-cp311-manylinux_2_28_x86_64/spconv/core_cc.cpython-311-x86_64-linux-gnu.so|whole
open3d-lib|open3d-0.20.0-cp311-cp311-manylinux_2_35_x86_64/open3d/libOpen3D.so.0.20|whole
open3d-tf|open3d-0.20.0-cp311-cp311-manylinux_2_35_x86_64/open3d/open3d_tf_ops.so|whole
open3d-torch|open3d-0.20.0-cp311-cp311-manylinux_2_35_x86_64/open3d/open3d_torch_ops.so|whole
npp-al|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppial.so.13|whole
npp-cc|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppicc.so.13|whole
npp-dei|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppidei.so.13|whole
npp-f|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppif.so.13|whole
npp-g|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppig.so.13|whole
npp-m|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppim.so.13|whole
npp-st|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppist.so.13|whole
npp-tc|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnppitc.so.13|whole
npp-s|nvidia_npp-13.2.0.93-py3-none-manylinux_2_27_x86_64/nvidia/cu13/lib/libnpps.so.13|whole
ucx-perftest|libucx_cu13-1.22.0-py3-none-manylinux_2_24_x86_64.manylinux_2_28_x86_64/libucx/lib/ucx/libucx_perftest_cuda.so.0.0.0|whole
nixl-ucx-perftest|nixl_cu13-1.5.1-cp311-cp311-manylinux_2_28_x86_64/nixl_cu13.libs/ucx/libucx_perftest_cuda.so.0.0.0|whole
mooncake-ep|mooncake_transfer_engine_cuda13-0.3.14-cp311-cp311-manylinux_2_28_x86_64/mooncake/libmooncake_ep_device.so|whole
mooncake-pg|mooncake_transfer_engine_cuda13-0.3.14-cp311-cp311-manylinux_2_28_x86_64/mooncake/libmooncake_pg_device.so|whole
nvforest|libnvforest_cu13-26.10.0-py3-none-manylinux_2_27_x86_64.manylinux_2_28_x86_64/libnvforest/lib64/libnvforest.so|whole
gpu4pyscf-cupy-helper|gpu4pyscf_cuda13x-1.9.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64/gpu4pyscf/lib/libcupy_helper.so|whole
gpu4pyscf-gdft|gpu4pyscf_cuda13x-1.9.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64/gpu4pyscf/lib/libgdft.so|whole
gpu4pyscf-gecp|gpu4pyscf_cuda13x-1.9.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64/gpu4pyscf/lib/libgecp.so|whole
gpu4pyscf-sem|gpu4pyscf_cuda13x-1.9.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64/gpu4pyscf/lib/libsem.so|whole
gpu4pyscf-solvent|gpu4pyscf_cuda13x-1.9.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64/gpu4pyscf/lib/libsolvent.so|whole
legate-legion|legate_cu12-26.6.1-cp311-cp311-manylinux_2_28_x86_64/legate/lib64/liblegion-legate.so.1|whole
legate-cufile|legate_cu12-26.6.1-cp311-cp311-manylinux_2_28_x86_64/legate_cu12.libs/libcufile-0d19a577.so.1.14.1|whole
cudnn-adv|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_adv.so.9|whole
cudnn-cnn|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_cnn.so.9|whole
cudnn-engines-precompiled|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_engines_precompiled.so.9|whole
cudnn-engines-runtime|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_engines_runtime_compiled.so.9|whole
cudnn-engines-tensor-ir|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_engines_tensor_ir.so.9|whole
cudnn-ext|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_ext.so.9|whole
cudnn-ops|nvidia_cudnn_cu13-9.28.1.4-py3-none-manylinux_2_27_x86_64/nvidia/cudnn/lib/libcudnn_ops.so.9|whole
tf-cc|tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64/tensorflow/libtensorflow_cc.so.2|whole
tf-framework|tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64/tensorflow/libtensorflow_framework.so.2|whole
tf-pywrap-common|tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64/tensorflow/python/lib_pywrap_tensorflow_common.so|whole
'
LIBS_EXTRA=${HELD27_LIBS_EXTRA:-}

run() { # NAME OUTNAME INPUTS...
  local name=$1 outname=$2; shift 2
  /usr/bin/time -o "$OUT/$outname.time" -f "%e s %U u %S sys %M KB" nice -n 19 "$BIN" check -j 2 --strict --format json \
    --cuobjdump "$CUOBJ" "$@" > "$OUT/$outname.json" 2> "$OUT/$outname.err"
  echo $? > "$OUT/$outname.rc"
}

sample() { # NAME LIB K TARGET: the sampled .ptx files, one a line
  local dir="$ROOT/ptx/$1"
  if [ ! -d "$dir" ] || [ -z "$(ls "$dir")" ]; then mkdir -p "$dir"; (cd "$dir" && "$CUOBJ" -xptx all "$2" > /dev/null); fi
  python3 - "$dir" "$3" "$4" <<'PY'
import os, random, sys
d, k, target = sys.argv[1], int(sys.argv[2]), sys.argv[3]
images = sorted(f for f in os.listdir(d) if f.endswith("." + target + ".ptx"))
for f in sorted(random.Random(27).sample(images, min(k, len(images)))):
    print(os.path.join(d, f))
PY
}

echo "$LIBS$LIBS_EXTRA" | while IFS='|' read -r name path mode; do
  [ -n "$name" ] || continue
  lib="$ROOT/x/$path"
  if [ ! -f "$lib" ]; then echo "missing $lib" >&2; continue; fi
  case "$mode" in
    whole) run "$name" "$name" "$lib" ;;
    sample:*) IFS=: read -r _ k target <<< "$mode"
      mapfile -t files < <(sample "$name" "$lib" "$k" "$target")
      printf '%s\n' "${files[@]}" > "$OUT/$name.sample.txt"
      run "$name" "$name.sample" "${files[@]}" ;;
  esac
done

python3 "$HERE/held27_count.py" --table "$OUT"

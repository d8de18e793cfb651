#!/usr/bin/env bash
# Builds fenceline-lab from `fenceline check --fix` output (issue 16): copies the
# source tree to $WORK/src, applies the machine fixes of proxy-war to
# lab/experiments/proxy_war.cu and of acquire-missing to lab/experiments/mp_l1.cu
# (their `unfixed` and `elected-fence` variants then carry the fence --fix wrote,
# in place of the hand-written ones), re-checks the two files (no finding of the
# check may be left), prints the diff and builds fenceline-lab from the copy at
# $WORK/build/lab/fenceline-lab. Run from the repository root on a machine with
# nvcc: bash lab/fix-variants.sh   (FENCELINE=path/to/fenceline, WORK=folder, SKIP_BUILD=1)
# Then run the fixed "unfixed" variants as the hand-fixed ones are run:
#   $WORK/build/lab/fenceline-lab --experiments proxy-war,proxy-war-tma,mp-l1 \
#     --variants unfixed,elected-fence,fixed --iterations 10 --seed 1 --json fix-variants.json
# 0 violations in the `unfixed` and `elected-fence` rows means the machine fix works.
set -euo pipefail
FENCELINE=$(realpath "${FENCELINE:-build/fenceline}")
WORK=$(realpath -m "${WORK:-build-lab-fixed}")
ARCH=${ARCH:-sm_90a}
rm -rf "$WORK/src"
mkdir -p "$WORK/src"
git ls-files -z | xargs -0 cp --parents -t "$WORK/src"
cd "$WORK/src"
fix() {  # fix CHECK FILE: apply CHECK's fixes to FILE, then require none of its findings left
  local check=$1 file=$2
  "$FENCELINE" check --no-config --arch "$ARCH" --checks="-*,$check" --fix "$file" || true
  "$FENCELINE" check --no-config --arch "$ARCH" --checks="-*,$check" "$file"
}
fix proxy-war lab/experiments/proxy_war.cu
fix acquire-missing lab/experiments/mp_l1.cu
git -C "$OLDPWD" diff --no-index --stat -- lab/experiments "$WORK/src/lab/experiments" || true
diff -u "$OLDPWD/lab/experiments/proxy_war.cu" lab/experiments/proxy_war.cu || true
diff -u "$OLDPWD/lab/experiments/mp_l1.cu" lab/experiments/mp_l1.cu || true
[ "${SKIP_BUILD:-0}" = 1 ] && exit 0  # SKIP_BUILD=1: only fix and re-check
cmake -S . -B "$WORK/build" -G Ninja -DFENCELINE_CUDA=ON -DFENCELINE_BENCH=OFF -DCMAKE_BUILD_TYPE=Release
cmake --build "$WORK/build" --target fenceline-lab
echo "built: $WORK/build/lab/fenceline-lab"

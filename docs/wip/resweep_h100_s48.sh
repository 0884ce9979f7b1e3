#!/usr/bin/env bash
# Session 48, last device call: no H200 came in four tries, so the grown grids of KERNELS are swept
# whole on H100s (`--force`: the H200 databases cannot be resumed on another card), over every GPU
# of the machine (DEVICES=all). Only the tuner is built; emit, verify and the tests run on the CPU
# afterwards. Each sweep stops with SIGINT at DEADLINE (its database stays resumable).
#   DEADLINE=330 KERNELS='jagged_mean jagged_dense_add' bash docs/wip/resweep_h100_s48.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-330}
KERNELS=${KERNELS:-jagged_mean jagged_dense_add}
python3 docs/wip/grid_growth_s48.py $KERNELS
TARGETS=aot-runner BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=${JOBS:-16} bash scripts/setup.sh >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build done at $SECONDS s"
for k in $KERNELS; do
  left=$((DEADLINE - SECONDS)); [ $left -gt 20 ] || { echo "no time for $k"; break; }
  timeout --preserve-status -s INT $left build-gpu/aot-runner tune -k $k --force --devices ${DEVICES:-all} >"$OUT/tune_$k.log" 2>&1
  echo "tune $k rc $? at $SECONDS s"; grep -E "tuned|shapes:" "$OUT/tune_$k.log" | tail -3
  cp configs/sm90/$k.json "$OUT/"
done

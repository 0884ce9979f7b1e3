#!/usr/bin/env bash
# Session 48, last device call: no H200 came in four tries, so jagged_mean's grown grid is swept
# whole on the H100 (`--force`: the H200 database cannot be resumed on another card). Only the
# tuner is built; emit, verify and the tests run on the CPU afterwards. Stops with SIGINT at
# DEADLINE (the database stays resumable).
#   DEADLINE=380 bash docs/wip/resweep_h100_s48.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-380}
python3 docs/wip/grid_growth_s48.py jagged_mean
TARGETS=aot-runner BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build done at $SECONDS s"
timeout --preserve-status -s INT $((DEADLINE - SECONDS)) build-gpu/aot-runner tune -k jagged_mean --force >"$OUT/tune.log" 2>&1
echo "tune rc $? at $SECONDS s"; tail -5 "$OUT/tune.log"
cp configs/sm90/jagged_mean.json "$OUT/"

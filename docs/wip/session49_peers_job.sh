#!/usr/bin/env bash
# Session 49's second device job, after the databases and header of session49_job.sh are in the
# tree: the random peers on the test draws (seeds 1 and 2, never tuned on; the grids' random
# shapes are seed 49), every config timed on seed 2's draws (aot-runner bench: the shipped
# heuristic against each shape's best), then the fixed peer rows. Each step stops at DEADLINE.
# Results come back packed in $OUT/results.tgz.
#   DEADLINE=585 COMMIT=<label> [SEEDS='1 2'] [BENCH_KERNELS='jagged_sum ...'] [FIXED=0] bash docs/wip/session49_peers_job.sh
# (session 51: BENCH_KERNELS=causal_trailing_mean FIXED=0 after the causal re-sweep alone)
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT/r"; DEADLINE=${DEADLINE:-585}; R=$OUT/r
left() { echo $((DEADLINE - SECONDS)); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader >"$R/gpu.txt" 2>&1
export BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16
bash scripts/setup.sh >"$R/build.log" 2>&1 || { tail -40 "$R/build.log"; exit 1; }
echo "build done at $SECONDS s"
# The dispatch library through the new header (C++ and C ABI) against the reference.
timeout 90 ctest --test-dir build-gpu -R "DispatchGpu|CApi|JaggedDenseAdd" --timeout 60 >"$R/ctest.log" 2>&1
echo "ctest rc $? at $SECONDS s $(grep -E 'tests passed|tests failed' "$R/ctest.log")"
LIB=build-gpu/libaotune.so
for seed in ${SEEDS:-1 2}; do
  [ "$(left)" -gt 90 ] || break
  OUT=$R/seed$seed LIB=$LIB COMMIT=${COMMIT:-head} timeout -s INT $(($(left) - 60)) \
    bash bench/peers.sh --random 48 --seed $seed >"$R/peers_random_$seed.log" 2>&1
  echo "peers --random seed $seed rc $? at $SECONDS s"; tail -3 "$R/peers_random_$seed.log"
done
python3 bench/peer_shapes.py 48 --seed ${BENCH_SEED:-2} --grids "$R/grids" >/dev/null
for k in ${BENCH_KERNELS:-jagged_sum jagged_mean jagged_dense_add causal_trailing_mean}; do
  [ "$(left)" -gt 60 ] || break
  timeout $(($(left) - 40)) build-gpu/aot-runner bench --grid "$R/grids/$k.json" \
    --out-dir "$R/bench" --csv "$R/bench/$k.csv" >"$R/bench_$k.txt" 2>"$R/bench_$k.log"
  echo "bench $k rc $? at $SECONDS s"; tail -3 "$R/bench_$k.txt"
done
if [ "${FIXED:-1}" = 1 ] && [ "$(left)" -gt 120 ]; then
  OUT=$R/fixed LIB=$LIB COMMIT=${COMMIT:-head} timeout -s INT $(($(left) - 15)) bash bench/peers.sh >"$R/peers_fixed.log" 2>&1
  echo "peers fixed rc $? at $SECONDS s"; tail -3 "$R/peers_fixed.log"
fi
cp docs/PERF.md docs/peers.svg docs/peers-random.svg "$R/" 2>/dev/null
tar czf /tmp/results.tgz -C "$R" . && rm -rf "${OUT:?}"/* && mv /tmp/results.tgz "$OUT/"

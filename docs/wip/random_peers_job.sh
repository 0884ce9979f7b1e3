#!/usr/bin/env bash
# Device job (session 48): the peers on bench/peer_shapes.py's random shapes, then every config
# timed on the same shapes (aot-runner bench: the shipped heuristic against the per-shape best),
# then bench/upload_interference.cu's modes. Steps stop at DEADLINE seconds; results under $OUT.
#   DEADLINE=570 COUNT=48 SEED=1 STEPS="peers bench interference" bash docs/wip/random_peers_job.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
DEADLINE=${DEADLINE:-570}
COUNT=${COUNT:-48}
SEED=${SEED:-1}
STEPS=${STEPS:-peers bench interference}
export BUILD_DIR=build-gpu CUDA_ARCHS=90
mkdir -p "$OUT"
left() { echo $((DEADLINE - SECONDS)); }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv >"$OUT/gpu.txt" 2>&1
if ! bash scripts/setup.sh >"$OUT/build.log" 2>&1; then tail -40 "$OUT/build.log"; exit 1; fi
echo "build done at $SECONDS s"
python3 bench/peer_shapes.py "$COUNT" --seed "$SEED" --grids "$OUT/random-grids" >"$OUT/random_shapes.txt"
for step in $STEPS; do
  case $step in
    peers)
      OUT=$OUT/peers timeout $(($(left) - 10)) bash bench/peers.sh --random "$COUNT" --seed "$SEED" >"$OUT/peers_random.log" 2>&1
      echo "peers rc $? at $SECONDS s"
      cp docs/PERF.md docs/peers-random.svg "$OUT/peers/" 2>/dev/null ;;
    bench)
      for k in jagged_sum jagged_mean jagged_dense_add causal_trailing_mean; do
        [ "$(left)" -gt 40 ] || break
        timeout $(($(left) - 30)) build-gpu/aot-runner bench --grid "$OUT/random-grids/$k.json" \
          --out-dir "$OUT/bench" --csv "$OUT/bench/$k.csv" >"$OUT/bench_$k.txt" 2>"$OUT/bench_$k.log"
        echo "bench $k rc $? at $SECONDS s"; tail -4 "$OUT/bench_$k.txt"
      done ;;
    interference)
      [ "$(left)" -gt 60 ] || { echo "no time for interference"; continue; }
      timeout $(($(left) - 15)) build-gpu/aotune_bench_upload_interference 30 3 >"$OUT/upload_interference.txt" 2>&1
      echo "interference rc $? at $SECONDS s"; cat "$OUT/upload_interference.txt" ;;
  esac
done
tail -8 "$OUT/peers_random.log" 2>/dev/null

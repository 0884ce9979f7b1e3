#!/usr/bin/env bash
# Session 52's third device job: an out-of-grid test set for the shipped heuristics. Draws 960
# shapes with bench/peer_shapes.py (seed 100: log-uniform over each kernel's whole space, 240 per
# kernel; the grids' random shapes are seed 49, the peer runs' seeds 1-3), then times every legal
# config of every shape with `aot-runner bench` (the tuner's protocol), kernel by kernel within
# its share of DEADLINE (bench --budget-seconds; a stopped bench keeps what it measured). The
# databases come back in $OUT; the heuristics are then scored on them without a GPU:
#   aot-runner bench --grid <grid> --db <database>   [AOTUNE_HEURISTIC_DIR=<emit --json folder>]
#   DEADLINE=530 bash docs/wip/session52_testset_job.sh
# Session 53 drew a second, independent one for the jagged reductions (the first had guided that
# session's grid growth):  SEED=101 KERNELS='jagged_sum jagged_mean' DEADLINE=400 bash <this>
# The other two (session 54's causal database is to be judged on it):
#   SEED=101 KERNELS='causal_trailing_mean jagged_dense_add' DEADLINE=420 bash <this>
set -u; export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-530}; R=/tmp/testset; mkdir -p $R/bench
left() { echo $((DEADLINE - SECONDS)); }
python3 bench/peer_shapes.py 960 --seed ${SEED:-100} --grids $R/grids >$R/shapes.txt
TARGETS=aot-runner BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh >$R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
echo "[$SECONDS s] build"
# Each kernel gets its weight's share of what is left over the kernels still to run (H200
# estimates of tune --list-shapes: 1m41s, 32s, 38s, 36s; session 54 timed causal's 240 on an H100
# in 141 s), so a subset such as KERNELS='causal_trailing_mean jagged_dense_add' splits it alike.
weight() { case $1 in causal*) echo 101;; jagged_dense*) echo 32;; jagged_sum) echo 38;; *) echo 36;; esac; }
ks=(${KERNELS:-causal_trailing_mean jagged_dense_add jagged_sum jagged_mean})
for i in "${!ks[@]}"; do
  k=${ks[$i]}; rest=0
  for j in "${ks[@]:$i}"; do rest=$((rest + $(weight $j))); done
  b=$(( ($(left) - 25) * $(weight $k) / rest ))
  [ $b -gt 5 ] || break
  timeout $((b + 30)) build-gpu/aot-runner bench --grid $R/grids/$k.json --out-dir $R/bench --csv $R/bench/$k.csv \
    --budget-seconds $b >$R/bench_$k.txt 2>$R/bench_$k.log
  echo "[$SECONDS s] bench $k rc $? (budget $b s): $(grep -c . $R/bench/$k.csv 2>/dev/null) csv lines"; tail -4 $R/bench_$k.txt
  cp $R/bench/sm90/$k.json "$OUT/" 2>/dev/null
done
tar czf "$OUT/testset.tgz" -C $R --exclude='sm90' .  # grids/ is in it ($OUT returns at most 8 files)

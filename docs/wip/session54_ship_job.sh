#!/bin/bash
# Session 54, device call 3, after the causal_trailing_mean re-sweep (committed): build everything,
# `verify`, the GPU tests through the new header (dispatch C++ / C ABI / graph capture and every
# causal_trailing_mean config), the test set's causal_trailing_mean shapes re-timed (seed 100, every
# legal config: the flat unit is legal on more of them now), then the random peers (seed 1).
# $OUT: check.log, causal_trailing_mean.json (the test set), PERF.md, peers-random.svg, logs.tgz.
#   DEADLINE=570 COMMIT=<hash> bash docs/wip/session54_ship_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/s54s; mkdir -p $R/bench; b=build-gpu; DEADLINE=${DEADLINE:-570}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
pack() { tar czf $OUT/logs.tgz -C $R --exclude='sm90' . ; }
BUILD_DIR=$b CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh > $R/build.log 2>&1 || { tail -30 $R/build.log; exit 1; }
el build
$b/aot-runner verify > $R/verify.log 2>&1; el "verify rc=$? $(tail -1 $R/verify.log)"
(cd $b && timeout 120 ctest -R "DispatchGpu|CApi|GraphCapture|CausalTrailing|TrailingMean|EveryConfig.*causal_trailing_mean" \
  --timeout 100 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
python3 bench/peer_shapes.py 960 --seed 100 --grids $R/grids > $R/shapes.txt
bud=$(( $(left) - 190 ))
if [ $bud -gt 20 ]; then
  timeout $((bud + 30)) $b/aot-runner bench --grid $R/grids/causal_trailing_mean.json --out-dir $R/bench \
    --csv $R/bench/causal_trailing_mean.csv --budget-seconds $bud > $R/bench_causal.txt 2> $R/bench_causal.log
  el "testset bench rc=$? (budget $bud s): $(grep -c . $R/bench/causal_trailing_mean.csv) csv lines"
  cp $R/bench/sm90/causal_trailing_mean.json $OUT/ 2>/dev/null
fi
OUT=$R/peers LIB=$b/libaotune.so COMMIT=${COMMIT:-head} timeout -s INT $(( $(left) - 8 )) \
  bash bench/peers.sh --random 48 --seed 1 > $R/peers.log 2>&1
el "peers rc=$? $(tail -2 $R/peers.log | tr '\n' ' ')"
cp docs/PERF.md docs/peers-random.svg $OUT/ 2>/dev/null
pack; el done

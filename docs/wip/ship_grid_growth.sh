#!/bin/bash
# Device job for shapes added to grids (no kernel change): build the tuner alone, sweep
# only the new shapes (`tune --resume` adopts a database of the smaller grid; never --force here,
# so nothing measured is lost), emit, verify, then the GPU dispatch tests if time is left.
# $OUT gets the databases first, then the header, then the log.
#   call:  DEADLINE=<seconds> [KERNELS='k1 k2'] [PEERS=1 COMMIT=<head>] [EXPLAIN='kernel|shape;...'] \
#            bash docs/wip/ship_grid_growth.sh
# KERNELS: the kernels whose grids grew (default: jagged_mean jagged_sum). OVERLAP_KERNELS: those of
# them whose database was tuned with --overlap.
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/grow; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-250}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DAOTUNE_BUILD_BENCH=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el "build aot-runner"
for k in ${KERNELS:-jagged_mean jagged_sum}; do
  l=$(left); [ $l -lt 20 ] && { el "stopping before $k: $l s left"; exit 0; }
  # OVERLAP_KERNELS: the kernels whose database was tuned with --overlap (causal_trailing_mean and
  # jagged_dense_add as committed in session 47): their resume must say so.
  a=; case " ${OVERLAP_KERNELS:-} " in *" $k "*) a=--overlap ;; esac
  timeout --preserve-status -s INT $l $b/aot-runner tune -k $k --resume $a > $R/tune_$k.log 2>&1; rc=$?
  cp configs/sm90/$k.json $OUT/
  el "tune $k rc=$rc $(grep -E 'tuned \(|cannot|error' $R/tune_$k.log | tail -2 | tr '\n' ' ')"
  [ $rc = 0 ] || exit 0
done
$b/aot-runner emit > $R/emit.log 2>&1; el "emit rc=$? $(tail -2 $R/emit.log | tr '\n' ' ')"
cp heuristics/generated/heuristic_sm90.h $OUT/
cmake --build $b -j16 --target aot-runner > $R/rebuild.log 2>&1; el "rebuild rc=$?"
$b/aot-runner verify > $R/verify.log 2>&1; el "verify rc=$? $(tail -1 $R/verify.log)"
# EXPLAIN='kernel|shape;kernel|shape': the rows a growth is for (a peers row's call sizes, say);
# each one's top two candidates from the re-emitted heuristic go into the log.
IFS=';' read -ra rows <<< "${EXPLAIN:-}"
for row in "${rows[@]}"; do
  $b/aot-runner explain --kernel "${row%%|*}" --shape "${row#*|}" --arch sm90 2>&1 | sed -n 3,4p >> $R/log
done
cp $R/log $OUT/log
[ "${TESTS:-1}" = 1 ] || { el "done (TESTS=0: no GPU tests)"; exit 0; }
l=$(left); [ $l -lt 100 ] && { el "GPU tests left for the next call ($l s left)"; exit 0; }
timeout $(( $(left) - 5 )) cmake --build $b -j16 --target aotune_tests > $R/tbuild.log 2>&1; el "tests build rc=$?"
(cd $b && timeout $(( $(left) - 3 )) ctest -R "DispatchGpu|CApi|ShapeGrid" --timeout 60 > $R/ctest.log 2>&1); el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
# PEERS=1: then the library and the peer table with the new picks (docs/PERF.md and the plot).
if [ "${PEERS:-0}" = 1 ]; then
  l=$(left); [ $l -lt 150 ] && { el "peers left for the next call ($l s left)"; exit 0; }
  cmake --build $b -j16 > $R/libbuild.log 2>&1; el "library build rc=$?"
  OUT=$R/peers LIB=$b/libaotune.so COMMIT=${COMMIT:-head} timeout -s INT $(( $(left) - 5 )) bash bench/peers.sh > $R/peers.log 2>&1; el "peers rc=$?"
  cp docs/PERF.md docs/peers.svg $OUT/ 2>/dev/null; cp $R/peers/peers.json $OUT/ 2>/dev/null
fi
el done

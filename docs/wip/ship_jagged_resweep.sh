#!/bin/bash
# Device job to ship a kernel change (a docs/wip patch already applied on the tree sent): build,
# re-sweep KERNELS (default: jagged_mean then jagged_sum; resumable; stopped with SIGINT at
# the call's deadline and continued by the next call), emit, verify, the whole suite and peers.
# Run it once per device call until it prints "shipped"; each call continues where the last one
# stopped. $OUT returns at most 8 files: the databases and the header
# come back first, the logs as one tarball.
#   call:  [KERNELS='k1 k2'] [COMMIT=<label>] [DEVICES=all] [SUITE=0] [TUNE_ARGS='--overlap ...'] bash docs/wip/ship_jagged_resweep.sh   (DEADLINE=<seconds>, default 585)
# SUITE=0 stops after verify (another job runs the tests and peers).
# TUNE_ARGS go to every `tune` (session 47 passed --no-overlap, the default since; the committed
# causal_trailing_mean database was tuned with --overlap, so a --resume of it needs it;
# jagged_dense_add's was until session 49).
# DEVICES (default 0) goes to `tune --devices`: on a two-GPU kind, DEVICES=all splits each grid
# over both (0.57x the wall time of one, PERF.md "Multi-GPU sweep"), so both jagged re-sweeps may
# fit one call.
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/ship; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-585}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
pack() { tar czf $OUT/logs.tgz -C $R --exclude='*.ncu-rep' . ; cp $R/log $OUT/log; }
KERNELS=${KERNELS:-jagged_mean jagged_sum}
out_db() { for k in $KERNELS; do cp configs/sm90/$k.json $OUT/ 2>/dev/null; done; }  # (a stopped sweep leaves no journal)
# A kernel change that removed configs leaves the generated headers stale, so the patch's recipe
# removes them: then only aot-runner is built before `emit` writes them (the rebuild below builds
# the rest).
T=; [ -f heuristics/generated/heuristic_archs.h ] || T=aot-runner
TARGETS=$T BUILD_DIR=$b CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh > $R/build.log 2>&1 || { tail -30 $R/build.log; pack; exit 1; }
el build
# Each kernel: --resume continues a database of this kernel source (a call stopped at its
# deadline; copy the returned database into the tree before the next call if the machine went
# cold), and refuses one of the committed source ("cannot be continued"), which --force replaces.
# tune_until_deadline KERNEL --resume|--force: the sweep, stopped with SIGINT at the deadline.
tune_until_deadline() {
  timeout --preserve-status -s INT $(left) $b/aot-runner tune -k $1 --devices ${DEVICES:-0} ${TUNE_ARGS:-} $2 > $R/tune_$1.log 2>&1
}
for k in $KERNELS; do
  l=$(left); [ $l -lt 30 ] && { el "stopping before $k: $l s left"; out_db; pack; exit 0; }
  tune_until_deadline $k --resume; rc=$?
  if [ $rc != 0 ] && grep -q "cannot be continued" $R/tune_$k.log; then
    tune_until_deadline $k --force; rc=$?
  fi
  el "tune $k rc=$rc $(grep -E 'tuned \(' $R/tune_$k.log | tail -1) $(grep -oE '[0-9]+ shapes: .* saving' $R/tune_$k.log | tr '\n' ' ')"
  [ $rc = 0 ] || { out_db; pack; exit 0; }
done
out_db
$b/aot-runner emit > $R/emit.log 2>&1; el "emit rc=$? $(tail -2 $R/emit.log | tr '\n' ' ')"
cp heuristics/generated/heuristic_sm90.h heuristics/generated/heuristic_archs.h $OUT/
cmake --build $b -j16 > $R/rebuild.log 2>&1; el "rebuild rc=$?"
$b/aot-runner verify > $R/verify.log 2>&1; el "verify rc=$? $(tail -1 $R/verify.log)"
[ "${SUITE:-1}" = 1 ] || { el "suite and peers skipped (SUITE=0)"; pack; exit 0; }
l=$(left); [ $l -lt 200 ] && { el "suite and peers left for the next call ($l s left)"; pack; exit 0; }
(cd $b && timeout 150 ctest -j8 --timeout 120 > $R/ctest.log 2>&1); el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
OUT=$R/peers LIB=$b/libaotune.so COMMIT=${COMMIT:-head} timeout -s INT $(( $(left) - 10 )) bash bench/peers.sh > $R/peers.log 2>&1; el "peers rc=$?"
cp docs/PERF.md $OUT/PERF.md; cp docs/peers.svg $OUT/ 2>/dev/null
el shipped; pack

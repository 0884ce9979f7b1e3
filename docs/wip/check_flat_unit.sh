#!/bin/bash
# Device job for a change to causal_trailing_mean's flat unit (the tree sent holds it): build, the
# causal_trailing_mean GPU tests, every config benched (each cell checked against float64 before
# it is timed) on the prefix-mean correctness grid and the session-36 off-grid grid, memcheck,
# then, where the tests passed and AB_GRID names a grid, an A/B in one run against the tree in
# out/ab-base (carry it; made with `git archive HEAD | tar -x -C out/ab-base`). Shipping it needs
# the causal_trailing_mean re-sweep (docs/wip/ship_jagged_resweep.sh with KERNELS=causal_trailing_mean).
# SHIP=1 then runs that script in the same call (re-sweep, emit, verify, and the whole suite and
# peers where time is left) when the A/B passed with no failed cell, its best-per-shape geomean
# under 0.97 and its max at most 1.03 (about 450 s more). BENCH=0 skips the two grids' benches;
# SHIP=1 implies it, so that $OUT stays within 8 files (this job's check.log and ab.txt, the ship
# script's six; ctest.log comes back only when a test failed).
#   call:  [AB_GRID=docs/wip/ab_flat_tile.json] [SHIP=1] [BENCH=0] bash docs/wip/check_flat_unit.sh   (DEADLINE=<seconds>, default 200)
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/prefix; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-200}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
[ "${SHIP:-0}" = 1 ] && BENCH=0
left() { echo $((DEADLINE - (SECONDS-T0))); }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DAOTUNE_BUILD_BENCH=ON > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el build
(cd $b && timeout 60 ctest -R "CausalTrailing|TrailingMean|EveryConfig.*causal_trailing_mean" --timeout 50 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
grep -q '100% tests passed' $R/ctest.log || cp $R/ctest.log $OUT/
for g in $( [ "${BENCH:-1}" = 1 ] && echo check_grid_flat_prefix bench_trailing_wide_offgrid); do
  timeout 40 $b/aot-runner bench --grid docs/wip/$g.json --out-dir $R/$g --json > $OUT/$g.json 2> $R/$g.err
  el "bench $g rc=$? $(tail -1 $R/$g.err)"; cp $R/$g/sm90/causal_trailing_mean.json $OUT/${g}_db.json 2>/dev/null
done
l=$(( $(left) - 3 )); [ $l -lt 15 ] && { el "no time for memcheck"; exit 0; }
AOTUNE_GPU_TEST_STRIDE=5 timeout $l compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
  --gtest_filter="*EveryConfig*/causal_trailing_mean:TrailingMean*" > $R/memcheck.log 2>&1
el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.log | tr '\n' ' ')"
if [ -n "${AB_GRID:-}" ] && grep -q '100% tests passed' $R/ctest.log; then
  CUDA_ARCHS=90 BUILD_DIR=$b timeout 330 scripts/ab_kernels.sh --objects --base-dir out/ab-base --grid "$AB_GRID" \
    --out $R/ab > $OUT/ab.txt 2>&1
  ab_rc=$?; el "ab rc=$ab_rc (1: a cell failed its check or crashed, listed in ab.txt)"
fi
(cd $OUT && ls *_db.json > /dev/null 2>&1 && tar czf dbs.tgz *_db.json && rm -f *_db.json)
if [ "${SHIP:-0}" = 1 ] && [ "${ab_rc:-1}" = 0 ] && [ -f $R/ab/compare.txt ]; then
  read -r gm mx < <(sed -n 's/^best per shape, new \/ base: geomean \([0-9.]*\), min [0-9.]*, max \([0-9.]*\)$/\1 \2/p' $R/ab/compare.txt)
  if python3 -c "import sys; sys.exit(0 if float('$gm') < 0.97 and float('$mx') <= 1.03 else 1)" 2>/dev/null; then
    el "A/B geomean $gm max $mx: shipping"
    DEADLINE=$(left) KERNELS=causal_trailing_mean bash docs/wip/ship_jagged_resweep.sh > $R/ship.txt 2>&1
    el "ship rc=$? $(tail -1 $R/ship.txt)"
  else
    el "A/B geomean $gm max $mx: not shipping"
  fi
fi
el done

#!/bin/bash
# Device job for docs/wip/flat_prefix_scan.patch (`git apply` it to the tree sent first): build, the
# causal_trailing_mean GPU tests, every config benched (each cell checked against float64 before
# it is timed) on the prefix-mean correctness grid, then on the two session-36 performance grids
# (their base numbers: session 36's calls 2 and 5, the same kernels less this patch), then
# memcheck. Shipping it needs an A/B in one run (scripts/ab_kernels.sh --objects) and the
# causal_trailing_mean re-sweep (docs/wip/ship_jagged_resweep.sh with KERNELS=causal_trailing_mean).
#   call:  bash docs/wip/check_flat_prefix.sh      (DEADLINE=<seconds>, default 200)
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/prefix; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-200}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el build
(cd $b && timeout 60 ctest -R "CausalTrailing|TrailingMean|EveryConfig.*causal_trailing_mean" --timeout 50 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"; cp $R/ctest.log $OUT/
for g in check_grid_flat_prefix bench_trailing_wide_offgrid ab_trailing_wide_window; do
  timeout 40 $b/aot-runner bench --grid docs/wip/$g.json --out-dir $R/$g --json > $OUT/$g.json 2> $R/$g.err
  el "bench $g rc=$? $(tail -1 $R/$g.err)"; cp $R/$g/sm90/causal_trailing_mean.json $OUT/${g}_db.json 2>/dev/null
done
l=$(( $(left) - 3 )); [ $l -lt 15 ] && { el "no time for memcheck"; exit 0; }
AOTUNE_GPU_TEST_STRIDE=5 timeout $l compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
  --gtest_filter="*EveryConfig*/causal_trailing_mean:TrailingMean*" > $R/memcheck.log 2>&1
el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.log | tr '\n' ' ')"
el done

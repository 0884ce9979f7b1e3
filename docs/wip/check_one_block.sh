#!/bin/bash
# Device job for docs/wip/one_block.patch (jagged_sum / jagged_mean's one_block strategy), applied on
# the tree sent (`git apply docs/wip/one_block.patch` here first): build, the jagged GPU tests
# (every config against float64 on every test shape, the four one_block shapes included, the
# dispatch and C ABI calls), memcheck and racecheck of the jagged EveryConfig tests at a stride,
# then, where the tests passed, an A/B in one run per kernel against the tree in out/ab-base
# (carry it; made with `mkdir -p out/ab-base && git archive HEAD | tar -x -C out/ab-base`). The
# base is built whole, not with ab_kernels.sh --objects: the patch also changes
# heuristics/row_bound.h, which --objects refuses. Shipping needs both jagged databases re-swept
# (KERNELS='jagged_mean jagged_sum' bash docs/wip/ship_jagged_resweep.sh, about 8-9 minutes in
# two calls), then emit and verify.
#   call:  [DEADLINE=<seconds, default 570>] bash docs/wip/check_one_block.sh
# $OUT gets check.log, ab_jagged_sum.txt, ab_jagged_mean.txt, and ctest.log / memcheck.log /
# racecheck.log only when they failed.
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/one_block; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-570}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
grep -q "one_block" kernels/jagged_reduce/jagged_reduce.h || { el "one_block.patch is not applied on this tree"; exit 1; }
[ -d out/ab-base/kernels ] || { el "out/ab-base is missing (carry it)"; exit 1; }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el build
filter="JaggedReduce|FlatScan|OneBlock|AllKernels/EveryConfig.*jagged_(sum|mean)|DispatchGpu|CApi|RowBound"
(cd $b && timeout 120 ctest -R "$filter" --timeout 100 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
grep -q '100% tests passed' $R/ctest.log || { cp $R/ctest.log $OUT/; el "tests failed: no A/B"; exit 0; }
for tool in memcheck racecheck; do
  l=$(( $(left) - 260 )); [ $l -lt 20 ] && { el "no time for $tool"; continue; }
  [ $l -gt 90 ] && l=90
  AOTUNE_GPU_TEST_STRIDE=7 timeout $l compute-sanitizer --tool $tool --error-exitcode 9 $b/tests/aotune_tests \
    --gtest_filter="*EveryConfig*/jagged_sum:*EveryConfig*/jagged_mean" > $R/$tool.log 2>&1
  rc=$?; el "$tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.log | tr '\n' ' ')"
  [ $rc = 0 ] || cp $R/$tool.log $OUT/
done
for k in jagged_sum jagged_mean; do
  l=$(( $(left) - 5 )); [ $l -lt 60 ] && { el "no time for the $k A/B"; continue; }
  CUDA_ARCHS=90 BUILD_DIR=$b BASE_BUILD_DIR=$R/base-build timeout $l scripts/ab_kernels.sh --base-dir out/ab-base \
    --grid docs/wip/ab_one_block_$k.json --out $R/ab_$k > $OUT/ab_$k.txt 2>&1
  el "ab $k rc=$? (1: a cell failed its check or crashed, listed in ab_$k.txt)"
done
el done

#!/bin/bash
# Device job for session 36's flat-unit window widening (kMaxFlatWindow 32 -> 128): an A/B in one
# run against the tree before it (out/ab-base, carried: `git archive <base> | tar -x -C out/ab-base`),
# the causal_trailing_mean GPU tests, then compute-sanitizer memcheck over a stride of them.
#   call:  bash docs/wip/check_trailing_wide_window.sh     (DEADLINE=<seconds>, default 430)
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/wide; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-430}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
BUILD_DIR=$b CUDA_ARCHS=90 JOBS=16 bash scripts/ab_kernels.sh --grid docs/wip/ab_trailing_wide_window.json \
  --base-dir "$(pwd)/out/ab-base" --objects --rounds 2 --out $R/ab > $R/ab.log 2>&1
el "ab rc=$?"; cp $R/ab.log $OUT/; cp $R/ab/compare.txt $OUT/ 2>/dev/null
cmake --build $b -j16 --target aotune_tests > $R/tbuild.log 2>&1; el "tests build rc=$?"
(cd $b && timeout $(( $(left) - 120 )) ctest -R "CausalTrailing|TrailingMean|EveryConfig.*causal_trailing_mean|DispatchGpu" --timeout 200 > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"; grep -E "checks \]|Failed|\*\*\*" $R/ctest.log >> $R/log
cp $R/ctest.log $OUT/
l=$(( $(left) - 5 )); [ $l -lt 30 ] && { el "no time for memcheck"; exit 0; }
AOTUNE_GPU_TEST_STRIDE=5 timeout $l compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
  --gtest_filter="*EveryConfig*/causal_trailing_mean:TrailingMean*" > $R/memcheck.log 2>&1
el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.log | tr '\n' ' ')"
el done

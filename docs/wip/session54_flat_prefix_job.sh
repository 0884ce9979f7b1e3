#!/bin/bash
# Session 54, device call 1 for the flat unit's long prefix means (the tree sent holds the change;
# out/ab-base, carried, holds the base made with `git archive HEAD~1 apps codegen dispatch
# heuristics kernels tuner cmake CMakeLists.txt`): build; the causal_trailing_mean GPU tests (every
# config against float64 on every test shape, the five new ones included); an A/B in one run
# against the base over docs/wip/ab_flat_prefix_long.json; memcheck of flat.t128 / flat.t256 on
# the new test shapes (aligned and not) and of the EveryConfig test at stride 5. $OUT: check.log,
# ab.txt, ctest.log (on a failure), memcheck.log.
#   DEADLINE=360 bash docs/wip/session54_flat_prefix_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/s54; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-360}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el build
(cd $b && timeout 90 ctest -R "CausalTrailing|TrailingMean|EveryConfig.*causal_trailing_mean" --timeout 80 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
grep -q '100% tests passed' $R/ctest.log || cp $R/ctest.log $OUT/
if grep -q '100% tests passed' $R/ctest.log; then
  CUDA_ARCHS=90 BUILD_DIR=$b timeout 200 scripts/ab_kernels.sh --objects --base-dir out/ab-base \
    --grid docs/wip/ab_flat_prefix_long.json --out $R/ab > $OUT/ab.txt 2>&1
  el "ab rc=$? (1: a cell failed its check or crashed, listed in ab.txt)"
fi
for s in "B=9,D=7,T=141,cf=149" "B=16,D=5,T=512,cf=512" "B=6,D=5,T=1024,cf=1024" "B=3,D=4,T=500,cf=5000,misalign=1" \
         "B=64,D=8,T=509,cf=509,mean=-20,quiet_rows=2,zero_rows=4"; do
  for dt in f32 bf16 f16; do
    for c in flat.t128 flat.t256; do
      echo "== $c $s,dtype=$dt" >> $R/memcheck.log
      timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 $b/aot-runner run --kernel causal_trailing_mean \
        --config $c --shape "$s,dtype=$dt" --max-reps 5 --calls 1 >> $R/memcheck.log 2>&1
      echo "rc=$?" >> $R/memcheck.log
    done
  done
done
el "memcheck runs: $(grep -c '^rc=0' $R/memcheck.log) rc=0, $(grep -c '^rc=9' $R/memcheck.log) rc=9, $(grep -c '^rc=1' $R/memcheck.log) rc=1 (wrong output or illegal), others $(grep '^rc=' $R/memcheck.log | grep -vc 'rc=[019]$')"
l=$(( $(left) - 3 ))
if [ $l -gt 20 ]; then
  AOTUNE_GPU_TEST_STRIDE=5 timeout $l compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
    --gtest_filter="*EveryConfig*/causal_trailing_mean" >> $R/memcheck.log 2>&1
  el "memcheck EveryConfig rc=$? $(grep -E 'ERROR SUMMARY' $R/memcheck.log | tail -1)"
fi
cp $R/memcheck.log $OUT/
el done

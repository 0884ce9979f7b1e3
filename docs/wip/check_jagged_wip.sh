#!/bin/bash
# Device job for the jagged_sum / jagged_mean patches waiting in docs/wip, applied in order on the
# tree sent: docs/wip/one_block.patch (one_block: tiny problems in one memory round trip), then
# docs/wip/flat_split.patch (flat_split: narrow rows, long rows split over blocks, one launch),
# and optionally docs/wip/host_inputs.patch (session 42: the workload draws its values in the
# device's encoding and the reference decodes them; no kernel code; applies alone too), whose GPU
# check is the EveryConfig tests (every config of every test shape through make_workload), and
# DispatchGraphCapture* (on main since session 44) in the ctest filter plus a memcheck run.
# STEP=quick's filter also takes Python.Package (session 43: python/aotune on torch tensors, whose
# GPU half has not run yet; it needs the torch of the machine's python3).
#   git apply docs/wip/one_block.patch && git apply docs/wip/flat_split.patch && git apply docs/wip/host_inputs.patch
#   mkdir -p out/ab-base && git archive HEAD | tar -x -C out/ab-base     # the base: main, unpatched
# Two calls, each [DEADLINE=<seconds, default 570>] STEP=<step> bash docs/wip/check_jagged_wip.sh:
#   STEP=test  build, the jagged GPU tests (every config against float64 on every test shape, the
#              flat_scan/flat_split test over many blocks with its repeated launches and zero-scratch
#              check, the dispatch and C ABI calls), memcheck and racecheck of the jagged EveryConfig
#              tests at a stride, and memcheck / racecheck / synccheck of flat_split launched
#              through `aot-runner run` on a masked and a live one_huge shape (two launches each: the
#              second reads the workspace the first left).
#   STEP=ab    where a machine from the test call is still warm its build is reused; an A/B per
#              kernel against out/ab-base (carry it) on docs/wip/ab_one_block_<k>.json and
#              docs/wip/ab_flat_split_<k>.json (the committed databases' narrow skewed shapes). The
#              base is built whole, not with ab_kernels.sh --objects: one_block.patch also changes
#              heuristics/row_bound.h, which --objects refuses.
#   STEP=quick the jagged GPU tests, flat_split under the sanitizers, every config timed on the two
#              flat_split grids (one build), EveryConfig memcheck with what time is left (RESERVE:
#              the seconds kept from the benches for it, default 100). About 250 s; the call to
#              start with (session 41 ran it on the first two flat_split versions: PERF.md).
# $OUT gets check.log, ab_<grid>.txt, and ctest.log / <tool>.log only when they failed.
# Shipping needs both jagged databases re-swept (KERNELS='jagged_mean jagged_sum' bash
# docs/wip/ship_jagged_resweep.sh, two calls on one GPU; DEVICES=all on two may need one), then emit
# and verify.
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS; R=/tmp/jagged_wip; mkdir -p $R; b=$(pwd)/build-gpu; DEADLINE=${DEADLINE:-570}; STEP=${STEP:-test}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
left() { echo $((DEADLINE - (SECONDS-T0))); }
grep -q "one_block" kernels/jagged_reduce/jagged_reduce.h || { el "one_block.patch is not applied on this tree"; exit 1; }
grep -q "flat_split" kernels/jagged_reduce/jagged_reduce.h || { el "flat_split.patch is not applied on this tree"; exit 1; }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el "build ($STEP)$(grep -q random_encoded kernels/jagged_reduce/jagged_reduce_kernel.cpp && echo ', host_inputs.patch applied')"
# flat_split under each sanitizer: a masked and a live one_huge shape of the committed jagged_mean
# database (B=4096: M=1 bf16, whose huge row has fc = 0, and M=4 f32, whose huge row is live, here
# with int32 offsets), and a jagged_sum power law.
shapes=("jagged_mean B=4096,M=1,len=256,dist=one_huge,dtype=bf16,seed=280450629"
        "jagged_mean B=4096,M=4,len=256,dist=one_huge,dtype=f32,index=i32,seed=1261181507"
        "jagged_sum B=2000,M=2,len=300,dist=powerlaw,dtype=bf16,seed=9")
if [ "$STEP" = quick ]; then
  # One call: the jagged GPU tests, flat_split under the sanitizers (one launch per shape), every
  # config timed on the two flat_split grids (one build: flat_split against every other strategy,
  # whose code the patches leave as it was), then EveryConfig memcheck at a stride.
  (cd $b && timeout 200 ctest -j8 -R "Jagged|FlatScan|FlatSplit|EveryConfig.*jagged_(sum|mean)|DispatchGpu|GraphCapture|Python.Package|RowBound" \
     --timeout 180 --output-on-failure > $R/ctest.log 2>&1)
  el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
  grep -q '100% tests passed' $R/ctest.log || cp $R/ctest.log $OUT/
  # Directly too, to see how many of its tests ran: without torch in this python3 its GPU half
  # skips, and ctest would still say passed.
  timeout 120 python3 tests/test_python_package.py $b/libaotune.so -v > $R/python.log 2>&1
  el "python package rc=$? $(tail -1 $R/python.log) $(grep -c "skipped '" $R/python.log) skipped"
  if [ -f tests/test_dispatch_graph_capture.cpp ]; then
    timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
      --gtest_filter="*GraphCapture*" > $R/graph_memcheck.log 2>&1
    el "graph capture memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/graph_memcheck.log | tr '\n' ' ')"
  fi
  for tool in memcheck racecheck synccheck; do
    rc=0
    for s in "${shapes[@]}"; do
      set -- $s
      for cfg in flat_split.t256.s4 flat_split.t256.s32; do
        timeout 20 compute-sanitizer --tool $tool --error-exitcode 9 $b/aot-runner run --kernel $1 --shape $2 \
          --config $cfg --warmup 1 --min-reps 1 --max-reps 1 --calls 1 >> $R/split_$tool.log 2>&1 || rc=$?
      done
    done
    el "flat_split $tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/split_$tool.log | sort | uniq -c | tr '\n' ' ')"
  done
  for k in jagged_mean jagged_sum; do
    rsv=${RESERVE:-100}; l=$(( ($(left) - rsv) / 2 )); [ $k = jagged_sum ] && l=$(( $(left) - rsv ))
    [ $l -lt 30 ] && { el "no time for the $k bench"; continue; }
    timeout $((l + 30)) $b/aot-runner bench --grid docs/wip/ab_flat_split_$k.json --out-dir $R/bench_$k --force \
      --budget-seconds $l --csv $R/bench_$k.csv > $R/bench_$k.log 2>&1
    el "bench $k rc=$? $(grep -iE 'measured|stopp' $R/bench_$k.log | tail -2 | tr '\n' ' ')"
    cp $R/bench_$k/sm90/$k.json $OUT/bench_$k.json 2>/dev/null
  done
  l=$(( $(left) - 10 ))
  if [ $l -gt 40 ]; then
    AOTUNE_GPU_TEST_STRIDE=7 timeout $l compute-sanitizer --tool memcheck --error-exitcode 9 $b/tests/aotune_tests \
      --gtest_filter="*EveryConfig*/jagged_sum:*EveryConfig*/jagged_mean" > $R/memcheck.log 2>&1
    el "memcheck rc=$? $(grep -E 'ERROR SUMMARY|PASSED|FAILED' $R/memcheck.log | tr '\n' ' ')"
  fi
  tar czf $OUT/logs.tgz -C $R --exclude='bench_*/*' --exclude='*-build' .
elif [ "$STEP" = test ]; then
  # The whole suite but the slow CPU-only kernel-edit tests: every GPU test (the trailing mean's
  # quiet rows too), and the one expected failure until the re-sweep (CliBench's committed database).
  (cd $b && timeout 240 ctest -j8 -E "CliVerifyKernelEdit" --timeout 200 --output-on-failure > $R/ctest.log 2>&1)
  el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
  grep -q '100% tests passed' $R/ctest.log || { cp $R/ctest.log $OUT/; grep -A30 "tests failed out of" $R/ctest.log | tee -a $R/log; }
  for tool in memcheck racecheck synccheck; do
    l=$(( $(left) - 200 )); [ $l -lt 20 ] && { el "no time for flat_split under $tool"; continue; }
    rc=0
    for s in "${shapes[@]}"; do
      set -- $s
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $b/aot-runner run --kernel $1 --shape $2 \
        --config flat_split.t256.s8 --warmup 1 --min-reps 1 --max-reps 1 >> $R/split_$tool.log 2>&1 || rc=$?
    done
    el "flat_split $tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' $R/split_$tool.log | sort | uniq -c | tr '\n' ' ')"
    [ $rc = 0 ] || cp $R/split_$tool.log $OUT/
  done
  for tool in memcheck racecheck; do
    l=$(( $(left) - 20 )); [ $l -lt 30 ] && { el "no time for $tool"; continue; }
    [ $l -gt 120 ] && l=120
    AOTUNE_GPU_TEST_STRIDE=7 timeout $l compute-sanitizer --tool $tool --error-exitcode 9 $b/tests/aotune_tests \
      --gtest_filter="*EveryConfig*/jagged_sum:*EveryConfig*/jagged_mean" > $R/$tool.log 2>&1
    rc=$?; el "$tool rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED' $R/$tool.log | tr '\n' ' ')"
    [ $rc = 0 ] || cp $R/$tool.log $OUT/
  done
else
  [ -d out/ab-base/kernels ] || { el "out/ab-base is missing (carry it)"; exit 1; }
  for g in flat_split_jagged_mean flat_split_jagged_sum one_block_jagged_mean one_block_jagged_sum; do
    l=$(( $(left) - 5 )); [ $l -lt 60 ] && { el "no time for the $g A/B"; continue; }
    CUDA_ARCHS=90 BUILD_DIR=$b BASE_BUILD_DIR=$R/base-build timeout $l scripts/ab_kernels.sh --base-dir out/ab-base \
      --grid docs/wip/ab_$g.json --out $R/ab_$g > $OUT/ab_$g.txt 2>&1
    el "ab $g rc=$? (1: a cell failed its check or crashed, listed in ab_$g.txt)"
  done
fi
el done

#!/bin/bash
# Session 55 (written without a device; not run yet): one device call for
# docs/wip/dense_add_flat_rows_selects.patch, jagged_dense_add's flat_rows_kernel with a vector's
# two rows' offsets loaded up front (N >= V). It copies the unpatched sources to out/ab-base,
# applies the patch, builds, runs the jagged_dense_add GPU tests (every config against float64 on
# every test shape), an A/B in one run against the base over docs/wip/ab_dense_add_odd_n.json
# (scripts/ab_kernels.sh --objects), and memcheck of flat.t256.v4 / v8 on odd N. $OUT: check.log,
# ab.txt, ctest.log (on a failure), memcheck.log. The patch changes jagged_dense_add's source
# hash: if it pays, commit it and re-sweep (docs/wip/ship_jagged_resweep.sh with
# KERNELS=jagged_dense_add, about 2 minutes for 404 shapes), then emit.
#   DEADLINE=360 bash docs/wip/dense_add_flat_rows_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
# Its own build folder: session 57 ran it, then on the same warm machine a job whose
# scripts/setup.sh reused build-gpu, where the next call's copy of the unpatched sources carried
# older times than these patched objects, so nothing was rebuilt and the patched kernel was timed.
T0=$SECONDS; R=/tmp/s55; mkdir -p $R; b=$(pwd)/build-patched; DEADLINE=${DEADLINE:-360}
el() { echo "[$((SECONDS-T0)) s] $*" | tee -a $R/log; cp $R/log $OUT/check.log; }
rm -rf out/ab-base && mkdir -p out/ab-base && cp -r apps codegen dispatch heuristics kernels tuner cmake source_hash CMakeLists.txt out/ab-base/
patch -p1 < docs/wip/dense_add_flat_rows_selects.patch > $R/patch.log 2>&1 || { el "patch failed: $(cat $R/patch.log)"; exit 1; }
cmake -S . -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > $R/cfg.log 2>&1 \
  && cmake --build $b -j16 --target aot-runner aotune_tests > $R/build.log 2>&1 || { tail -30 $R/cfg.log $R/build.log; exit 1; }
el build
(cd $b && timeout 120 ctest -R "JaggedDenseAdd|EveryConfig.*jagged_dense_add" --timeout 110 --output-on-failure > $R/ctest.log 2>&1)
el "ctest rc=$? $(grep -E 'tests passed|tests failed' $R/ctest.log)"
grep -q '100% tests passed' $R/ctest.log || cp $R/ctest.log $OUT/
if grep -q '100% tests passed' $R/ctest.log; then
  CUDA_ARCHS=90 BUILD_DIR=$b timeout 200 scripts/ab_kernels.sh --objects --base-dir out/ab-base \
    --grid docs/wip/ab_dense_add_odd_n.json --out $R/ab > $OUT/ab.txt 2>&1
  el "ab rc=$? (1: a cell failed its check or crashed, listed in ab.txt)"
fi
for s in "B=7,N=9,len=9" "B=33,N=1767,len=900" "B=5,N=3,len=3" "B=1,N=13,len=13"; do
  for dt in f32 bf16; do
    for c in flat.t256.v4 flat.t256.v8 flat.t512.v2; do
      echo "== $c $s,dtype=$dt" >> $R/memcheck.log
      timeout 30 compute-sanitizer --tool memcheck --error-exitcode 9 $b/aot-runner run --kernel jagged_dense_add \
        --config $c --shape "$s,dist=uniform,dtype=$dt" --max-reps 5 --calls 1 >> $R/memcheck.log 2>&1
      echo "rc=$?" >> $R/memcheck.log
    done
  done
done
el "memcheck runs: $(grep -c '^rc=0' $R/memcheck.log) rc=0, $(grep -c '^rc=9' $R/memcheck.log) rc=9, others $(grep '^rc=' $R/memcheck.log | grep -vc 'rc=[09]$') (rc=1: refused, e.g. vec 8 x 4 bytes)"
cp $R/memcheck.log $OUT/
el done

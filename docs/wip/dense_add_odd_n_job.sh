#!/usr/bin/env bash
# Session 48's device job for flat_rows_kernel (jagged_dense_add's flat vectors across rows): the
# whole build, the kernel's GPU tests and memcheck over every config on every test shape, then,
# only if they pass, its grown grid (docs/wip/grid_growth_s48.py) swept whole (`--force`, stopped
# with SIGINT at DEADLINE). Everything comes back in $OUT/results.tgz beside the database.
#   DEADLINE=300 bash docs/wip/dense_add_odd_n_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT/logs"; DEADLINE=${DEADLINE:-300}
L=$OUT/logs
python3 docs/wip/grid_growth_s48.py jagged_dense_add
TARGETS="aot-runner aotune_tests" BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh >"$L/build.log" 2>&1 || { tail -30 "$L/build.log"; exit 1; }
echo "build done at $SECONDS s"
t=build-gpu/tests/aotune_tests
$t --gtest_filter='AllKernels/EveryConfig.*jagged_dense_add*:*DispatchGpu*DenseAdd*:*DispatchGraphCapture*DenseAdd*:JaggedDenseAdd*' >"$L/gpu_tests.log" 2>&1
rc=$?; echo "gpu tests rc $rc at $SECONDS s"; grep -E "PASSED|FAILED|checks" "$L/gpu_tests.log" | tail -8
if [ $rc = 0 ]; then
  AOTUNE_GPU_TEST_STRIDE=${STRIDE:-3} timeout ${MEMCHECK_S:-90} compute-sanitizer --tool memcheck --error-exitcode 9 \
    $t --gtest_filter='AllKernels/EveryConfig.*jagged_dense_add*' >"$L/memcheck.log" 2>&1
  mrc=$?; echo "memcheck rc $mrc at $SECONDS s"; grep -E "ERROR SUMMARY|PASSED|FAILED" "$L/memcheck.log" | tail -3
fi
# memcheck stopped by its time limit (124) found no error in what it ran: the sweep still goes on.
if [ $rc = 0 ] && { [ "${mrc:-1}" = 0 ] || [ "${mrc:-1}" = 124 ]; }; then
  timeout --preserve-status -s INT $((DEADLINE - SECONDS)) build-gpu/aot-runner tune -k jagged_dense_add --force >"$L/tune.log" 2>&1
  echo "tune rc $? at $SECONDS s"; grep -E "tuned|shapes:" "$L/tune.log" | tail -3
  cp configs/sm90/jagged_dense_add.json "$OUT/"
fi
tar czf "$OUT/results.tgz" -C "$OUT" logs && rm -rf "$L"

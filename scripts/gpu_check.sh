#!/usr/bin/env bash
# On a GPU machine: build for sm_90, run the whole test suite, then compute-sanitizer memcheck and
# racecheck over a representative subset of the GPU kernel tests. Logs go to ${OUT:-out}/.
#   bash scripts/gpu_check.sh            # everything
#   SANITIZE=0 bash scripts/gpu_check.sh # no compute-sanitizer
#   CLI_CHECK=0 bash scripts/gpu_check.sh # no aot-runner run/bench checks (logs in cli.log)
#   TAR=1 bash scripts/gpu_check.sh       # also pack ${OUT}/ into one gpu_check.tgz beside it (for
#                                         # remote runners that bring back only a few files)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
BUILD_DIR=${BUILD_DIR:-build-gpu}
export BUILD_DIR CUDA_ARCHS=${CUDA_ARCHS:-90}
summary=()
step() {  # step NAME LOGFILE CMD...: run, keep the log, remember pass/fail for the summary
  local name=$1 log=$2; shift 2
  local t0=$SECONDS
  if "$@" >"$OUT/$log" 2>&1; then summary+=("PASS  $name ($((SECONDS - t0)) s)"); else summary+=("FAIL  $name ($((SECONDS - t0)) s, see $log)"); fi
}
step "build" build.log bash scripts/setup.sh
step "ctest (all tests)" ctest.log ctest --test-dir "$BUILD_DIR" --output-on-failure -j 4
grep -h "\[ checks \]" "$OUT/ctest.log" "$BUILD_DIR"/Testing/Temporary/LastTest.log 2>/dev/null | sort -u > "$OUT/checks.txt"
"$BUILD_DIR"/tests/aotune_tests --gtest_filter='AllKernels/*:Device*' > "$OUT/gpu_tests.log" 2>&1
grep -E "\[ checks \]|PASSED|FAILED" "$OUT/gpu_tests.log" >> "$OUT/checks.txt"
if [ "${SANITIZE:-1}" = 1 ]; then
  export AOTUNE_GPU_TEST_STRIDE=${AOTUNE_GPU_TEST_STRIDE:-13}
  step "memcheck (stride $AOTUNE_GPU_TEST_STRIDE)" memcheck.log timeout ${SANITIZE_TIMEOUT:-240} compute-sanitizer --tool memcheck --error-exitcode 9 \
    "$BUILD_DIR"/tests/aotune_tests --gtest_filter='AllKernels/*:Device*:NnzSplit*:TrailingMeanPersistent*'
  step "racecheck (stride $AOTUNE_GPU_TEST_STRIDE)" racecheck.log timeout ${SANITIZE_TIMEOUT:-240} compute-sanitizer --tool racecheck --error-exitcode 9 \
    "$BUILD_DIR"/tests/aotune_tests --gtest_filter='AllKernels/*:NnzSplit*:TrailingMeanPersistent*'
fi
if [ "${CLI_CHECK:-1}" = 1 ]; then
  # aot-runner run for one shape of each kernel (dispatch's choice, reference check, time, GB/s),
  # then bench over a grid that was never tuned, with its CSV and SVG heatmap.
  cli_checks() {
    local r="$BUILD_DIR/aot-runner"
    "$r" devices &&
      "$r" run --kernel jagged_sum --shape B=1024,M=256,len=512,dist=powerlaw &&
      "$r" run --kernel jagged_mean --shape B=256,M=1024,len=64 &&
      "$r" run --kernel jagged_dense_add --shape B=4096,N=2048,len=1024 &&
      "$r" run --kernel causal_trailing_mean --shape B=64,D=512,T=2048,cf=100,dtype=bf16 &&
      "$r" bench --grid configs/grids-bench/jagged_dense_add.json --out-dir "$OUT/bench" --csv "$OUT/bench-jagged_dense_add.csv" &&
      python3 scripts/plot_bench.py "$OUT/bench-jagged_dense_add.csv" -o "$OUT/bench-jagged_dense_add.svg"
  }
  step "aot-runner devices / run x4 / bench + plot" cli.log cli_checks
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "== $(cat "$OUT/gpu.txt") on $(date -u +%F) at commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
cat "$OUT/checks.txt"
tail -3 "$OUT/ctest.log"
printf '%s\n' "${summary[@]}"
if [ "${TAR:-0}" = 1 ]; then
  tar czf "$OUT.tgz" -C "$OUT" . && rm -rf "$OUT" && mkdir -p "$OUT" && mv "$OUT.tgz" "$OUT/gpu_check.tgz" &&
    echo "logs packed into $OUT/gpu_check.tgz"
fi
for line in "${summary[@]}"; do [[ $line == FAIL* ]] && exit 1; done
exit 0

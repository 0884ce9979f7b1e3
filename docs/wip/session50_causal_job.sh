#!/usr/bin/env bash
# Device job for docs/wip/causal_f32_wide_sums.patch (causal_trailing_mean's f32 running windows
# with every sum in fp64, and test shapes with quiet spans that fail the fp32 scans): on a tree
# without the patch, the first call
#   1. copies the tree as the A/B base, applies the patch;
#   2. A/B (scripts/ab_kernels.sh --objects) over docs/wip/ab_causal_f32_wide_sums.json: the f32
#      rows' cost of the fp64 sums, and a bf16 control whose arithmetic did not change;
#   3. the causal GPU tests (every config on every test shape, the quiet spans among them) and
#      memcheck over a stride of them;
#   4. only if they pass: the causal grid grown (docs/wip/grid_growth_s48.py, then
#      scripts/grid_add_random.py: 188 shapes) and re-swept whole (ship_jagged_resweep.sh: the
#      kernel source changed, so --resume is refused and --force runs), stopped at DEADLINE.
# Later calls run on a tree with the patch applied, the grown grid and the returned database
# copied in: they skip 1-3 and go on with the sweep (--resume), then emit, verify, ctest, peers.
#   DEADLINE=585 [AB_S=300] [STRIDE=5] [MEMCHECK_S=90] bash docs/wip/session50_causal_job.sh
# $OUT gets at most 8 files: job.log (the GPU's name first), ab_compare.txt, the grown grid, and
# ship_jagged_resweep.sh's: the database, the two headers (once emitted), its log and logs.tgz
# (this job's logs in its s50 folder).
set -u; export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-585}
R=/tmp/ship/s50; mkdir -p $R  # inside ship_jagged_resweep.sh's folder, so its logs.tgz holds these
el() { echo "[$SECONDS s] $*" | tee -a $R/job.log; cp $R/job.log "$OUT/job.log"; }
pack() { tar czf "$OUT/logs.tgz" -C /tmp/ship .; }
el "$(nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader 2>&1)"
K=causal_trailing_mean
if ! grep -q 'Wide r\[VECS\]\[V\]' kernels/$K/${K}_kernels.cuh; then
  rm -rf /tmp/ab-base && mkdir -p /tmp/ab-base
  tar --exclude='./build*' --exclude='./out' -cf - . | tar -xf - -C /tmp/ab-base
  patch -p1 <docs/wip/causal_f32_wide_sums.patch >$R/patch.log 2>&1 || { el "patch failed"; cat $R/patch.log; exit 1; }
  el "patch applied"
  BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 timeout ${AB_S:-300} bash scripts/ab_kernels.sh --grid docs/wip/ab_causal_f32_wide_sums.json \
    --base-dir /tmp/ab-base --objects --rounds 2 --out /tmp/s50ab >$R/ab.log 2>&1
  el "ab rc=$? (1: a cell failed its check; 124: stopped at AB_S)"; cp /tmp/s50ab/compare.txt "$OUT/ab_compare.txt" 2>/dev/null || tail -20 $R/ab.log
  # ab_kernels built everything (scripts/setup.sh); this only catches up if it was stopped early.
  BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 bash scripts/setup.sh >$R/tbuild.log 2>&1; el "build rc=$?"
  t=build-gpu/tests/aotune_tests
  $t --gtest_filter='AllKernels/EveryConfig.*causal_trailing_mean*:CausalTrailing*:TrailingMean*:*DispatchGpu*Trailing*:*DispatchGraphCapture*Trailing*' >$R/gpu_tests.log 2>&1
  rc=$?; el "gpu tests rc=$rc $(grep -E 'PASSED|FAILED' $R/gpu_tests.log | tr '\n' ' ')"
  grep -E "^\[  FAILED|Failure|relative error" $R/gpu_tests.log | head -20 >>$R/job.log
  [ $rc = 0 ] || { pack; exit 1; }
  AOTUNE_GPU_TEST_STRIDE=${STRIDE:-5} timeout ${MEMCHECK_S:-90} compute-sanitizer --tool memcheck --error-exitcode 9 \
    $t --gtest_filter='AllKernels/EveryConfig.*causal_trailing_mean*' >$R/memcheck.log 2>&1
  mrc=$?; el "memcheck rc=$mrc (124: stopped by its time limit) $(grep -E 'ERROR SUMMARY' $R/memcheck.log | tail -1)"
  { [ $mrc = 0 ] || [ $mrc = 124 ]; } || { pack; exit 1; }
  python3 docs/wip/grid_growth_s48.py $K >$R/grow.log 2>&1 && python3 scripts/grid_add_random.py $K >>$R/grow.log 2>&1
  el "grid grown rc=$? $(tail -1 $R/grow.log)"
fi
cp configs/grids/$K.json "$OUT/grid_$K.json"
DEADLINE=$((DEADLINE - SECONDS - 5)) KERNELS=$K bash docs/wip/ship_jagged_resweep.sh
el "job done"
pack

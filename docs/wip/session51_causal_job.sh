#!/usr/bin/env bash
# Second device job for docs/wip/causal_f32_wide_sums.patch, on a tree with the patch applied and
# session 51's first call's grown grid and partial database copied in (session50_causal_job.sh's
# A/B was refused: `patch` left a .orig file that only one tree had). It
#   1. builds the base as a copy of this tree with the patch reversed (git apply -R, no backups);
#   2. A/B of the running-window cost (ab_kernels.sh --objects over ab_causal_f32_wide_sums.json);
#   3. the same A/B over ab_causal_quiet_spans.json: how many configs of each build fail the
#      float64 check on quiet spans (exit 1 expected: the base's fp32 scans);
#   4. ship_jagged_resweep.sh: the sweep resumed, emit, rebuild, verify, ctest while time is left.
#   DEADLINE=585 [AB_S=200] [QUIET_S=90] bash docs/wip/session51_causal_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-585}
R=/tmp/ship/s51; mkdir -p $R
el() { echo "[$SECONDS s] $*" | tee -a $R/job.log; cp $R/job.log "$OUT/job.log"; }
el "$(nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader 2>&1)"
grep -q 'Wide r\[VECS\]\[V\]' kernels/causal_trailing_mean/causal_trailing_mean_kernels.cuh || { el "the patch is not applied"; exit 1; }
rm -rf /tmp/ab-base && mkdir -p /tmp/ab-base
tar --exclude='./build*' --exclude='./out' -cf - . | tar -xf - -C /tmp/ab-base
(cd /tmp/ab-base && git apply -R docs/wip/causal_f32_wide_sums.patch) >$R/unpatch.log 2>&1 || { el "reverse patch failed"; cat $R/unpatch.log; exit 1; }
el "base: the patch reversed"
ab() {  # ab GRID OUT SECONDS
  BUILD_DIR=build-gpu CUDA_ARCHS=90 JOBS=16 timeout $3 bash scripts/ab_kernels.sh --grid $1 \
    --base-dir /tmp/ab-base --objects --rounds 2 --out $2 >$R/$(basename $2).log 2>&1
}
ab docs/wip/ab_causal_f32_wide_sums.json /tmp/s51ab ${AB_S:-200}
el "ab rc=$? (1: a cell failed its check; 124: stopped at AB_S)"
cp /tmp/s51ab/compare.txt "$OUT/ab_compare.txt" 2>/dev/null || tail -20 $R/s51ab.log
ab docs/wip/ab_causal_quiet_spans.json /tmp/s51q ${QUIET_S:-90}
el "quiet ab rc=$? (1 expected: the base fails quiet spans)"
{ cat /tmp/s51q/compare.txt 2>/dev/null || tail -20 $R/s51q.log; } >>$R/job.log; cp $R/job.log "$OUT/job.log"
DEADLINE=$((DEADLINE - SECONDS - 5)) KERNELS=causal_trailing_mean bash docs/wip/ship_jagged_resweep.sh
el "job done"
tar czf "$OUT/logs.tgz" -C /tmp/ship --exclude='*.ncu-rep' .

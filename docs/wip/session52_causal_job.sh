#!/usr/bin/env bash
# Session 52's device job: KERNELS' grown grids (call 1: causal_trailing_mean, 619 -> 745 shapes
# by docs/wip/grid_growth_s51.py; call 2: jagged_dense_add, 332 -> 404 by grid_growth_s52.py; the
# grid files already grown in the tree sent) are resumed, emitted and verified by
# ship_jagged_resweep.sh, which stops before its suite and fixed peers (SUITE=0; call 1 ran
# without it and spent its peers' time on the suite and the fixed peers); then
# session49_peers_job.sh runs the dispatch tests through the new header, the random peers on
# SEEDS (default: seed 1, the draw that found the f16 regressions, and seed 3, never seen) and
# `aot-runner bench` on seed 2's draws of BENCH_KERNELS (default: KERNELS). Results come back as $OUT/results.tgz plus the
# database and headers.
#   DEADLINE=585 [KERNELS=...] [BENCH_KERNELS=...] [SEEDS=...] bash docs/wip/session52_causal_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-585}
# All but 200 s (the peers job's) go to the re-sweep.
K=${KERNELS:-causal_trailing_mean}
SUITE=0 DEADLINE=$((DEADLINE - 200)) KERNELS=$K bash docs/wip/ship_jagged_resweep.sh
echo "[$SECONDS s] re-sweep job done"; mkdir -p /tmp/s52keep; cp "$OUT"/* /tmp/s52keep/
DEADLINE=$((DEADLINE - SECONDS)) SEEDS=${SEEDS:-1 3} COMMIT=s52 BENCH_KERNELS=${BENCH_KERNELS:-$K} FIXED=0 \
  bash docs/wip/session49_peers_job.sh
cp /tmp/s52keep/* "$OUT"/ 2>/dev/null; echo "[$SECONDS s] job done"; ls "$OUT"

#!/usr/bin/env bash
# Session 48's device job: the four grids grown where the random peers found the heuristic blind
# (docs/wip/grid_growth_s48.py), swept by `tune --resume` (new shapes only; an H200 is needed,
# the sm90 databases are the H200's), emitted and verified (ship_grid_growth.sh); then the random
# peers and `aot-runner bench` on the random shapes with the new heuristic (random_peers_job.sh).
# On an H100 the resume is refused at once and only the random steps run. Everything comes back
# packed in $OUT/results.tgz (a call returns only a few files).
#   DEADLINE=580 bash docs/wip/session48_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"
DEADLINE=${DEADLINE:-580}
GROW_DEADLINE=${GROW_DEADLINE:-330}
# KERNELS: whose grids to grow and resume. jagged_dense_add goes through dense_add_odd_n_job.sh
# instead once its kernel patch is applied (a changed kernel is swept whole).
KERNELS=${KERNELS:-jagged_sum jagged_mean causal_trailing_mean jagged_dense_add}
python3 docs/wip/grid_growth_s48.py $KERNELS
mkdir -p "$OUT/grids"; cp configs/grids/*.json "$OUT/grids/"
# The committed causal_trailing_mean database was tuned with --overlap (jagged_dense_add's was until
# session 49 re-swept it without).
DEADLINE=$GROW_DEADLINE TESTS=0 KERNELS="$KERNELS" \
  OVERLAP_KERNELS="causal_trailing_mean" bash docs/wip/ship_grid_growth.sh
echo "growth done at $SECONDS s"
DEADLINE=$((DEADLINE - SECONDS)) STEPS="${STEPS:-peers bench}" bash docs/wip/random_peers_job.sh
tar czf /tmp/results.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/results.tgz "$OUT/"

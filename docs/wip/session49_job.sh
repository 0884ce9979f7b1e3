#!/usr/bin/env bash
# Session 49's first device job (an H200): dense_add_flat_rows.patch (applied in the tree) through
# its GPU tests, memcheck and a whole re-sweep of its grown grid (dense_add_odd_n_job.sh), then the
# other three grids grown and resumed, everything emitted and verified (ship_grid_growth.sh).
#   DEADLINE=585 bash docs/wip/session49_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-585}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv >"$OUT/gpu.txt" 2>&1
DEADLINE=${DA_DEADLINE:-330} bash docs/wip/dense_add_odd_n_job.sh
mv "$OUT/results.tgz" "$OUT/dense_add_logs.tgz"
echo "dense_add job done at $SECONDS s"
K='jagged_sum jagged_mean causal_trailing_mean'
python3 docs/wip/grid_growth_s48.py $K
mkdir -p "$OUT/grids"; cp configs/grids/*.json "$OUT/grids/"
DEADLINE=$((DEADLINE - SECONDS)) TESTS=0 KERNELS="$K" OVERLAP_KERNELS=causal_trailing_mean \
  bash docs/wip/ship_grid_growth.sh
cp /tmp/grow/*.log "$OUT/" 2>/dev/null
echo "growth done at $SECONDS s"
tar czf /tmp/results.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/results.tgz "$OUT/"

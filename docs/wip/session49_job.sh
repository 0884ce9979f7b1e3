#!/usr/bin/env bash
# Session 49's device job: dense_add_flat_rows.patch (applied in the tree) through its GPU tests,
# memcheck and a whole re-sweep of its grown grid (dense_add_odd_n_job.sh); then the grown grids of
# KERNELS: on an H200 resumed (new shapes only, ship_grid_growth.sh), on any other GPU re-swept
# whole (ship_jagged_resweep.sh: --resume of its own earlier call, else --force), then emitted
# and verified. Each grid grows by grid_growth_s48.py's corners and scripts/grid_add_random.py's 64
# random draws (seed 49; the random peers test on seeds 1 and 2). Everything comes back packed in
# $OUT/results.tgz.
#   DEADLINE=585 [SKIP_DENSE_ADD=1] [KERNELS='k1 k2'] bash docs/wip/session49_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"; DEADLINE=${DEADLINE:-585}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader >"$OUT/gpu.txt" 2>&1
# KERNELS: on an H200 all three resumes fit one call; elsewhere a whole causal re-sweep does not.
D='jagged_sum jagged_mean'; grep -q H200 "$OUT/gpu.txt" && D="$D causal_trailing_mean"
K=${KERNELS:-$D}
for k in jagged_dense_add $K; do python3 scripts/grid_add_random.py $k; done
if [ "${SKIP_DENSE_ADD:-0}" != 1 ]; then
  DEADLINE=${DA_DEADLINE:-330} bash docs/wip/dense_add_odd_n_job.sh
  mv "$OUT/results.tgz" "$OUT/dense_add_logs.tgz"
  echo "dense_add job done at $SECONDS s"
else
  python3 docs/wip/grid_growth_s48.py jagged_dense_add
fi
python3 docs/wip/grid_growth_s48.py $K
mkdir -p "$OUT/grids"; cp configs/grids/*.json "$OUT/grids/"
if grep -q H200 "$OUT/gpu.txt"; then
  DEADLINE=$((DEADLINE - SECONDS)) TESTS=0 KERNELS="$K" OVERLAP_KERNELS=causal_trailing_mean \
    bash docs/wip/ship_grid_growth.sh
  cp /tmp/grow/*.log "$OUT/" 2>/dev/null
else
  DEADLINE=$((DEADLINE - SECONDS - 5)) KERNELS="$K" bash docs/wip/ship_jagged_resweep.sh
fi
echo "growth done at $SECONDS s"
tar czf /tmp/results.tgz -C "$OUT" . && rm -rf "${OUT:?}"/* && mv /tmp/results.tgz "$OUT/"

#!/usr/bin/env bash
# Session 48's first device call: jagged_mean's row-share grid growth (docs/wip/grid_row_share.py,
# then ship_grid_growth.sh: tune --resume of the new shapes only, emit, verify), then the whole
# build and the random-shape peers with what time is left (random_peers_job.sh).
#   DEADLINE=580 bash docs/wip/session48_job.sh
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}; mkdir -p "$OUT"
DEADLINE=${DEADLINE:-580}
python3 docs/wip/grid_row_share.py
cp configs/grids/jagged_mean.json "$OUT/"
DEADLINE=$((DEADLINE < 260 ? DEADLINE : 260)) KERNELS=jagged_mean bash docs/wip/ship_grid_growth.sh
echo "growth done at $SECONDS s"
DEADLINE=$((DEADLINE - SECONDS)) STEPS="${STEPS:-peers interference}" bash docs/wip/random_peers_job.sh

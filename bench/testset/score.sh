#!/usr/bin/env bash
# Scores the heuristics the dispatch library ships (or those of $AOTUNE_HEURISTIC_DIR, written by
# `aot-runner emit --json`) on the out-of-grid test set, without a GPU: every legal config of
# each test shape was timed on an H100 (bench/testset/README.md), so the slowdown of each pick
# against the shape's best is looked up, not measured.
#   bash bench/testset/score.sh [AOT_RUNNER] [KERNEL ...]   (default: build/aot-runner, all four)
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=${1:-build/aot-runner}; shift || true
[ -x "$runner" ] || { echo "score.sh: no aot-runner at '$runner' (build it: bash scripts/setup.sh)" >&2; exit 2; }
kernels=("$@"); [ ${#kernels[@]} -gt 0 ] || kernels=(jagged_sum jagged_mean jagged_dense_add causal_trailing_mean)
for k in "${kernels[@]}"; do
  [ -f "bench/testset/sm90/$k.json" ] || { echo "score.sh: no test set for '$k'" >&2; exit 2; }
  echo "== $k"
  "$runner" bench --grid "bench/testset/grids/$k.json" --db "bench/testset/sm90/$k.json" | tail -4
done

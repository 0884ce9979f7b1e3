#!/usr/bin/env bash
# Scores the heuristics the dispatch library ships (or those of $AOTUNE_HEURISTIC_DIR, written by
# `aot-runner emit --json`) on the out-of-grid test set, without a GPU: every legal config of
# each test shape was timed on an H100 (bench/testset/README.md), so the slowdown of each pick
# against the shape's best is looked up, not measured.
#   bash bench/testset/score.sh [AOT_RUNNER] [KERNEL ...]   (default: build/aot-runner, every kernel the set holds)
#   TESTSET=bench/testset/seed101 bash bench/testset/score.sh   (the second draw: the jagged reductions, causal)
#   TESTSET=bench/testset/seed102 bash bench/testset/score.sh   (the third: the jagged reductions)
set -euo pipefail
cd "$(dirname "$0")/../.."
runner=${1:-build/aot-runner}; shift || true
set_dir=${TESTSET:-bench/testset}
[ -x "$runner" ] || { echo "score.sh: no aot-runner at '$runner' (build it: bash scripts/setup.sh)" >&2; exit 2; }
[ -d "$set_dir/sm90" ] || { echo "score.sh: no test set at '$set_dir' (expected $set_dir/sm90/<kernel>.json)" >&2; exit 2; }
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  for k in jagged_sum jagged_mean jagged_dense_add causal_trailing_mean; do
    [ -f "$set_dir/sm90/$k.json" ] && kernels+=("$k")
  done
fi
for k in "${kernels[@]}"; do
  [ -f "$set_dir/sm90/$k.json" ] || { echo "score.sh: no test set for '$k' in $set_dir" >&2; exit 2; }
  echo "== $k"
  "$runner" bench --grid "$set_dir/grids/$k.json" --db "$set_dir/sm90/$k.json" | tail -4
done

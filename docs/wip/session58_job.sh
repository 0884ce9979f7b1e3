#!/bin/bash
# Session 58's first device call (kind nvidia-h100-x1: the jagged databases were measured on an
# H100 and `tune --resume` refuses another device). Builds the tree as committed, grows both
# jagged grids (docs/wip/grid_growth_s58.py) and measures only the new shapes (`tune --resume`,
# never --force). $OUT: grow.log, jagged_mean.json, jagged_sum.json.
#   bash docs/wip/session58_job.sh
#   GROWTH=docs/wip/grid_growth_s59.py bash docs/wip/session58_job.sh   # another growth script
set -u; . docs/wip/job_common.sh; LOG=$OUT/grow.log
build_gpu aot-runner || exit 1
python3 ${GROWTH:-docs/wip/grid_growth_s58.py} >> $OUT/grow.log 2>&1
for k in jagged_mean jagged_sum; do
  timeout -s INT 150 $b/aot-runner tune -k $k --resume > /tmp/tune_$k.log 2>&1
  el "tune $k rc=$? $(grep -E 'tuned \(|cannot|error' /tmp/tune_$k.log | tail -2 | tr '\n' ' ')"
  cp configs/sm90/$k.json $OUT/
done
cat $OUT/grow.log

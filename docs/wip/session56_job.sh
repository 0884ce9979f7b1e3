#!/bin/bash
# Session 56's device call, prepared and not run (no machine came that session). Name kind
# nvidia-h100-x1: the jagged databases were measured on an H100 and `tune --resume` refuses
# another device. Session 55's dense_add A/B job, then the jagged grids'
# growth of docs/wip/grid_growth_s56.py measured by `tune --resume` (only the ~102 new shapes per
# kernel, about 21 s each; never --force, so nothing measured is lost), then the dispatch GPU tests.
# $OUT: check.log, ab.txt, memcheck.log (ctest.log on a failure), jagged_mean.json, jagged_sum.json,
# dispatch.log, grow.log. Then, here: run grid_growth_s56.py, copy both databases into
# configs/sm90, `aot-runner verify`, and score docs/wip/max_vec_feature.patch on them
# (PERF.md, Session 56: refresh-features on copies, fit --repeats 3 --testset, both test sets).
#   DEADLINE=330 bash docs/wip/session56_job.sh
set -u; export PATH=$PATH:/usr/local/cuda/bin
T0=$SECONDS
DEADLINE=${DEADLINE:-330} bash docs/wip/dense_add_flat_rows_job.sh
b=$(pwd)/build-gpu
python3 docs/wip/grid_growth_s56.py >> $OUT/grow.log 2>&1  # the grids as committed + 2 generators each
for k in jagged_mean jagged_sum; do
  timeout -s INT 150 $b/aot-runner tune -k $k --resume > /tmp/tune_$k.log 2>&1
  echo "[$((SECONDS-T0)) s] tune $k rc=$? $(grep -E 'tuned \(|cannot|error' /tmp/tune_$k.log | tail -2 | tr '\n' ' ')" >> $OUT/grow.log
  cp configs/sm90/$k.json $OUT/
done
(cd $b && timeout 120 ctest -R "DispatchGpu|CApi|RowBound|CliExplain|JaggedSum|JaggedMean" --timeout 110 --output-on-failure > $OUT/dispatch.log 2>&1
 echo "ctest rc=$?" >> $OUT/dispatch.log)
echo "[$((SECONDS-T0)) s] done on $(nvidia-smi --query-gpu=name --format=csv,noheader)" >> $OUT/grow.log
cat $OUT/grow.log; tail -3 $OUT/dispatch.log

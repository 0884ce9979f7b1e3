#!/bin/bash
# Session 59's last device call, on the header shipped at COMMIT: the whole test suite on the GPU
# (every kernel config against float64, the dispatch library through the C++ API, the C ABI, graph
# capture and the Python package), then the graph-capture tests 100 times over in one process (one
# of them read its NaN poison at element 0 in this session's first call, before the GPU tests
# waited for the default stream), then the peer benchmark's fixed grid.
# $OUT: ship.log, ctest.log, repeat.log, peers.json, PERF_device.md.
#   COMMIT=<sha> DEADLINE=<s> bash docs/wip/session59_ship_job.sh
set -u; . docs/wip/job_common.sh; LOG=$OUT/ship.log
build_gpu || exit 1
el "verify: $($b/aot-runner verify --tuning-only 2>&1 | tail -1)"  # the whole verify runs in CI
(cd $b && timeout 200 ctest -j8 --timeout 180 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc=$?" >> $OUT/ctest.log)
el "$(grep -E 'tests passed|tests failed' $OUT/ctest.log)"
# Brief output straight into $OUT (session 60): a call cut at the device's limit still brings it back.
timeout 90 $b/tests/aotune_tests --gtest_filter='*GraphCapture*' --gtest_repeat=100 --gtest_brief=1 \
  > $OUT/repeat.log 2>&1
el "repeat rc=$? $(grep -c '^\[  PASSED  \]' $OUT/repeat.log) passed rounds, $(grep -c '^\[  FAILED  \]' $OUT/repeat.log) failed lines"
# The peers last, only while DEADLINE (seconds from the start, default 480) leaves room for them.
left=$(( ${DEADLINE:-480} - (SECONDS - T0) ))
if [ "$left" -gt 150 ]; then
  timeout $left bash bench/peers.sh > /tmp/peers.log 2>&1  # writes $OUT/peers.json
  el "peers rc=$? $(tail -3 /tmp/peers.log | tr '\n' ' ')"
else
  el "peers skipped: $left s left before DEADLINE"
fi
cp docs/PERF.md $OUT/PERF_device.md
cat $OUT/ship.log

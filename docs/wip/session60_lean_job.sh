#!/bin/bash
# Session 60's last device call when little device time is left: build the test binary and the
# libraries only, run the GPU tests of the dispatch library through the header at COMMIT (C++ API,
# C ABI, graph capture) and of the GPU tests changed this session (and in session 59) once, then the graph-capture
# tests over and over until DEADLINE (seconds from the start). Every log goes to $OUT as it is
# written, so a call cut at its limit still brings back what ran.
#   DEADLINE=<s> [FILTER=<gtest filter>] [ONCE_S=<s>] bash docs/wip/session60_lean_job.sh
set -u; . docs/wip/job_common.sh; LOG=$OUT/lean.log
build_gpu aotune_tests aotune || exit 1
t=$b/tests/aotune_tests
# FILTER and ONCE_S: session 59's call ran without *LongRow* under a 60 s cap.
timeout ${ONCE_S:-120} $t --gtest_filter="${FILTER:-*DispatchGpu*:*CApi*:*GraphCapture*:*NnzSplit*:*FlatScan*:*TrailingPersistent*:*LongRow*}" \
  > $OUT/gpu.log 2>&1
el "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)  \]' $OUT/gpu.log | tr '\n' ' ')"
left=$(( ${DEADLINE:-200} - (SECONDS - T0) ))
if [ "$left" -gt 10 ]; then
  # Brief output (failures and each round's summary) straight into $OUT: a call cut at the device's
  # limit (session 60's last one) still brings back the rounds that ran.
  timeout $left $t --gtest_filter='*GraphCapture*' --gtest_repeat=1000 --gtest_brief=1 > $OUT/repeat.log 2>&1
  el "repeat: $(grep -c '^\[  PASSED  \]' $OUT/repeat.log) rounds passed, $(grep -c '^\[  FAILED  \]' $OUT/repeat.log) failed lines in $left s"
  grep -E "Failure|got " $OUT/repeat.log | head -20 >> $LOG
fi
cat $LOG

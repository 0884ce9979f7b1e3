#!/bin/bash
# Session 59's lean device call, now session 60's job with session 59's filter and cap.
#   DEADLINE=<s> bash docs/wip/session59_lean_job.sh
FILTER='*DispatchGpu*:*CApi*:*GraphCapture*:*NnzSplit*:*FlatScan*:*TrailingPersistent*' ONCE_S=60 \
  exec bash docs/wip/session60_lean_job.sh

#!/bin/bash
# Session 61's device call when either card might come: on an H100 (the committed databases'
# device) the grid growth (session61_growth_job.sh), on any other card the ship job (the whole
# suite, the graph-capture repeat and the peers on the header of COMMIT). The growth is committed
# since 8c4e5a7, so on an H100 it now measures nothing new: run session59_ship_job.sh instead.
#   COMMIT=<sha> DEADLINE=<s> bash docs/wip/session61_job.sh
set -u
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q "H100 80GB HBM3"; then
  bash docs/wip/session61_growth_job.sh
else
  bash docs/wip/session59_ship_job.sh
fi

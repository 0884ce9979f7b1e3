#!/bin/bash
# Session 59's first device call (kind nvidia-h100-x1: the jagged databases were measured on an
# H100 and `tune --resume` refuses another device): session 58's job with this session's growth
# (docs/wip/grid_growth_s59.py), measuring only the new shapes. $OUT: grow.log, jagged_mean.json,
# jagged_sum.json.
#   bash docs/wip/session59_job.sh
GROWTH=docs/wip/grid_growth_s59.py exec bash docs/wip/session58_job.sh

#!/usr/bin/env python3
"""Session 54: grows causal_trailing_mean's grid where the flat unit became legal. Its warp-shared
prefix path now takes prefix means (cf >= T) of rows up to 128 vectors (512 f32, 1024 16-bit
elements), where only the scanning units ran before (A/B, PERF.md Session 54: 0.71-0.94x the
best earlier config on such rows, 1.00 on rows of 1024 bf16). The grid held 18 prefix shapes of
T 129-512, none past 512, so the forest had little to learn the new boundary from: rows of
150-1000 over three sizes, both widths of element (f32 rows of 600 and 1000 lie past f32's limit:
the boundary from the other side). Adds each generator once (by seed); run from the repository
root, then `aot-runner tune -k causal_trailing_mean --resume` (or --force after a kernel change)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)

GROWTH = {
    "causal_trailing_mean": [
        {"comment": "session 54: prefix means (cf >= T) of rows of 150-1000, which the flat unit takes up to 128 vectors (512 f32, 1024 16-bit)",
         "B": 1, "D": [40, 1500, 30000], "T": [150, 300, 600, 1000], "cf": [2000],
         "dtype": ["f32", "f16"], "seed": 54, "max_bytes": 1100000000},
    ],
}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s54.py
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

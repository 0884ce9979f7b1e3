#!/usr/bin/env python3
"""Session 52: grows jagged_dense_add's grid where seed 1's random peers found a peer faster:
B=21542 N=1 uniform bf16 ran 9.0 us against torch.compile's 7.7. Its 118 KB sit in the tree's
smallest leaf (total_bytes < 166 KB), whose training shapes are B <= 4096 rows, and it picks
row_block.t512.r8.v1: 64 lanes a row for one element, 2693 blocks of 512 threads. On the
grid's B=32768 N=1 shapes that config runs 11.6-13.7 us against 5.2-5.8 for the flat ones.
Adds the missing middle: 6-32 K rows of 1-5 elements, every dtype. Adds each generator once
(by seed). Run it from the repository root, then `aot-runner tune -k jagged_dense_add --resume`,
which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)

GROWTH = {
    "jagged_dense_add": [
        {"comment": "6-32 K rows of 1-5 elements, under the smallest leaf's 166 KB (B=21542 N=1 bf16: row_block.t512.r8.v1 at 9.0 us against torch.compile's 7.7)",
         "B": [6000, 12000, 21542], "N": [1, 2, 3, 5], "len": [16], "dist": ["uniform", "powerlaw"],
         "dtype": ["f32", "bf16", "f16"], "seed": 52, "max_bytes": 1100000000},
    ],
}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s52.py
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

#!/usr/bin/env python3
"""Session 59: grows jagged_sum's and jagged_mean's grids with uncapped power-law rows at many
rows and narrow widths (B = 16384 / 65536, M = 1, 2, 4, 8, mean length 64 and 512, f32 and
bf16). Session 58's cross-validation had its two worst held-out picks there: the grid's only
uncapped power-law shapes at many narrow rows are B=32768 M=1 and M=4 len 256, two dtypes each,
which hold each other out, and the forest sent them to flat_split.t256.s4 (167.7 us) where
flat_scan.t128 takes 31.5 us (5.3x). flat_split's row blocks give every row shorter than its
long-row threshold (about nnz / 528 entries) to a group of s lanes, so rows of thousands of
entries, which a power law has and a one_huge draw does not, make its narrow groups slow; the
features see only the longest row, so no bound on them can tell the two apart
(docs/PERF.md, Session 59). The forest can, from skew and row_share, once the grid has such
shapes. A product grid, not test-set draws (bench/testset/README.md).
Adds the generator once (by seed). Run it from the repository root, then
`aot-runner tune -k K --resume`, which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)


def narrow_power_law(fc):
    gen = {"comment": "uncapped power-law rows at many rows and narrow widths (B = 16384 / 65536, M = 1-8), "
                      "where session 58's forest sent B=32768 M=1 to flat_split.t256.s4 at 5.3x flat_scan",
           "dist": "powerlaw", "B": [16384, 65536], "M": [1, 2, 4, 8], "len": [64, 512],
           "dtype": ["f32", "bf16"], "seed": 63, "max_bytes": 1100000000}
    if fc:
        gen["fc"] = "random"
    return [gen]


GROWTH = {"jagged_sum": narrow_power_law(False), "jagged_mean": narrow_power_law(True)}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s59.py [kernel ...]
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

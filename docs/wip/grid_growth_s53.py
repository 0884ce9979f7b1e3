#!/usr/bin/env python3
"""Session 53: grows jagged_sum's and jagged_mean's grids where the out-of-grid test set
(bench/testset, session 52) found the shipped forests blind. Its one_huge draws are mildly skewed:
short rows averaging max_len / 128 and the longest row capped at max_len (128x the short mean),
so row_share runs 0.02-0.9 with the longest row of 100-250 K values at most. The grids' one_huge
rows are 0.9 x len x B uncapped (row_share ~0.9), bar session 48's B = 4096 / 32768, M <= 8 ones.
jagged_mean's worst picks after session 53's row bound sit there: B=1760 M=22 cap=496 len=39
(nnz_split at 4.7x block_row), B=354 M=86 cap=768 (4.4x), B=16646 M=2 cap=22032 (3.1x),
B=3001 M=3 cap=1712 (2.9x), and uniform long rows at M=2 (B=3704 len<=15960 f16: group_row.s16 at
4.65x block_row.t256.va). The shapes below are a product grid over that region, not test-set
draws (never tune on the test set: bench/testset/README.md); each generator's cap is 12.8 x its
len, as the test set's one_huge are (len = 10 x max_len / 128, cap = max_len).
Adds each generator once (by seed). Run it from the repository root, then
`aot-runner tune -k K --resume`, which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)


def capped_one_huge(fc):
    """One generator per mean length, its longest row capped at 12.8 x that mean."""
    gens = []
    for i, length in enumerate([8, 64, 640, 5120]):
        g = {"comment": f"one_huge rows averaging {length // 10 or 1}, the longest capped at {round(12.8 * length)} "
                        "(128x the short rows; row_share 0.02-0.9 over B): the test set's one_huge region",
             "dist": "one_huge", "B": [16, 192, 2048, 16384], "M": [2, 3, 22, 86], "len": [length],
             "cap": [round(12.8 * length)], "dtype": ["f32", "f16"], "seed": 53 + i, "max_bytes": 1100000000}
        if fc:
            g["fc"] = "random"
        gens.append(g)
    g = {"comment": "uniform long rows at narrow odd and even widths (B=3704 M=2 len<=15960 f16: group_row.s16 at 4.65x block_row)",
         "dist": "uniform", "B": [256, 4096], "M": [2, 3, 5], "len": [1024, 8192], "dtype": ["f32", "f16"],
         "seed": 57, "max_bytes": 1100000000}
    if fc:
        g["fc"] = "random"
    gens.append(g)
    return gens


GROWTH = {"jagged_sum": capped_one_huge(False), "jagged_mean": capped_one_huge(True)}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s53.py [kernel ...]
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

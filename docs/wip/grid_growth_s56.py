#!/usr/bin/env python3
"""Session 56: grows jagged_sum's and jagged_mean's grids at M = 2 mod 4 and M = 4 mod 8 over
uniform and powerlaw rows, for the `max_vec` feature (the widest vector M allows; it replaces
m_mod_8, PERF.md "Session 56"). Fitted with it on the committed databases, the forests hold out
as well or better on every judge, but the grids' only shapes with max_vec = 2 and M > 2 are the
one_huge M = 22 / 86 generators of session 53 (seeds 53-56), where nnz_split.v2 wins: so the
forest sent the second test set's uniform long rows at M = 18 and 74 (jagged_mean B=25457 M=18
len<=3180 f16, 540 us) to nnz_split.t256.v2.ca at 6.6x and 3.5x. These shapes are a product grid
over that hole, not test-set draws (never tune on the test set: bench/testset/README.md).
Adds each generator once (by seed). Run it from the repository root, then
`aot-runner tune -k K --resume`, which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)


def narrow_vector_rows(fc):
    gens = [
        {"comment": "uniform rows at M = 2 mod 4 (max_vec 2 for every dtype) and M = 4 mod 8: "
                    "block_row against nnz_split where one vector width is all M allows",
         "dist": "uniform", "B": [512, 4096, 32768], "M": [6, 18, 74, 218, 12, 36], "len": [16, 256, 2048],
         "dtype": ["f32", "f16"], "seed": 58, "max_bytes": 1100000000},
        {"comment": "powerlaw rows at M = 2 mod 4 and M = 4 mod 8",
         "dist": "powerlaw", "B": [1024, 16384], "M": [10, 42, 146, 20], "len": [64, 512],
         "dtype": ["bf16"], "seed": 59, "max_bytes": 1100000000},
    ]
    if fc:
        for g in gens:
            g["fc"] = "random"
    return gens


GROWTH = {"jagged_sum": narrow_vector_rows(False), "jagged_mean": narrow_vector_rows(True)}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s56.py [kernel ...]
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

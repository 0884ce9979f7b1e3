#!/usr/bin/env python3
"""Session 58: grows jagged_sum's and jagged_mean's grids with one_huge rows of the random draws'
kind (bench/peer_shapes.py: the huge row capped at 12.8x the grid's len, short rows averaging
0.1x len), len 32-2048, at many rows and
mid widths (M = 6, 8, 16). The grid's one_huge shapes there are session 48's (B = 4096 and 32768,
M = 8, mean 256 with the huge row at 32 K-2 M rows: row_share 0.2-0.9) and session 53's (M = 2,
3, 22, 86): none with a moderate huge row over many short ones at M = 6-16. Test set 101's worst
jagged_mean pick is there: B=56240 M=8 cap=2768 len=216 bf16, flat_split.t256.s4 at 20 us, the
forest's block_row at 5.9x (PERF.md "Session 57", Next). A product grid over that region, not
test-set draws (never tune on the test set: bench/testset/README.md).
Adds each generator once (by seed). Run it from the repository root, then
`aot-runner tune -k K --resume`, which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)


def moderate_huge_rows(fc):
    gens = []
    for seed, mean in ((60, 32), (61, 256), (62, 2048)):
        gens.append({"comment": f"one_huge rows at many rows and mid widths, len {mean} (short rows averaging "
                                f"{mean / 10:g}), the huge row capped at {13 * mean} (13x len, as bench/peer_shapes.py "
                                "draws them)",
                     "dist": "one_huge", "B": [8192, 65536], "M": [6, 8, 16], "len": [mean], "cap": [13 * mean],
                     "dtype": ["f32", "bf16"], "seed": seed, "max_bytes": 1100000000})
    if fc:
        for g in gens:
            g["fc"] = "random"
    return gens


GROWTH = {"jagged_sum": moderate_huge_rows(False), "jagged_mean": moderate_huge_rows(True)}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s58.py [kernel ...]
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

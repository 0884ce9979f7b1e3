#!/usr/bin/env python3
"""Session 51: grows causal_trailing_mean's grid where seed 1's random peers found the re-swept
heuristic slower than session 49's (PERF.md Session 51): f16 rows got slower, while their
arithmetic did not change.
  - B=3 D=50 T=38685 cf=55 f16 went from 14.2 to 21.3 us, and B=3 D=9 T=48821 cf=32 f16 from
    7.9 to 9.5 us. These are a handful of long rows. The pick runs one segment a row (s1), and
    the grid's only f16 shape with few long rows has 697 rows.
  - B=105 D=30 T=275 cf=19 f16 went from 7.8 to 10.0 us. These are thousands of rows of a few
    hundred with a short window, and the forest is least sure there (1.24x predicted).
Session 52 ran it (619 -> 745, re-swept on an H100) and did not keep it: the re-fit tree fixed
two of the three rows above, but scored worse than session 51's forest on seed 2's draws (1.0686
against 1.0457) and on bench/testset (1.0655 / max 2.40 against 1.0612 / 1.45); PERF.md,
Session 52. Its database stays in git at a20a69e.
Adds each generator once (by seed). Run it from the repository root, then
`aot-runner tune -k causal_trailing_mean --resume`, which measures only the new shapes."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grid_growth_s48 import grow  # noqa: E402  (appends the generators whose seed the grid lacks)

GROWTH = {
    "causal_trailing_mean": [
        {"comment": "a handful of long 16-bit rows (16-300 rows of 16-64 K): one segment a row leaves most SMs idle (B=3 D=50 T=38685 cf=55 f16: 21.3 us, 14.2 with session 49's pick)",
         "B": 1, "D": [16, 40, 100, 300], "T": [16384, 40000, 65536], "cf": [8, 55, 300],
         "dtype": ["f16", "bf16"], "seed": 51, "max_bytes": 1100000000},
        {"comment": "thousands of 16-bit rows of a few hundred with short windows (B=105 D=30 T=275 cf=19 f16: 10.0 us, 7.8 with session 49's pick)",
         "B": 1, "D": [1000, 3150, 10000], "T": [200, 275, 400], "cf": [8, 19, 32],
         "dtype": ["f16", "bf16"], "seed": 52, "max_bytes": 1100000000},
    ],
}


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s51.py
    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

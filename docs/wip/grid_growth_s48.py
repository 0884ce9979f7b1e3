#!/usr/bin/env python3
"""Session 48: grows the four tuning grids where bench/peers.py --random 48 (seed 1, H100) found
the shipped heuristic blind: 17 of 48 random shapes had a peer faster, every one of them in a
corner no grid shape covers. Adds each generator once (by seed); run from the repository root.
  - jagged_sum / jagged_mean: feature widths that are no multiple of 2 (the grids' "odd" M were
    3, 7, 100, 500: 100 and 500 take 4-wide loads), with few rows (B = 11, M = 515 f16 read
    81.5 us against index_add's 13.8), and skewed few-row shapes; jagged_mean also its masked
    row-share corner (the 6.12x pick of session 47).
  - jagged_dense_add: odd N (the grid's 100, 1000, 3000 are multiples of 4, so max_vec = 1 had no
    training shape and every odd N took row_block.t128.r1.v1: 0.40-0.73x torch.compile).
  - causal_trailing_mean: rows shorter than 24 (T = 2, 4, 16) and windows past the flat unit's 128
    on short rows (T = 140, cf = 149 f16: 6.4 us against Triton's 4.7), f16 in every one."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import grid_add_random  # noqa: E402

GROWTH = {
    "jagged_sum": [
        {"comment": "odd feature widths (no 2- or 4-wide loads) from few rows to many, every dtype (session 48's random peers: B=857 M=157 and B=235 M=666 at 0.66-0.71x index_add)",
         "B": [8, 128, 2048], "M": [5, 37, 157, 515], "len": [16, 256], "dist": "uniform",
         "dtype": ["f32", "bf16", "f16"], "seed": 32, "max_bytes": 1100000000},
        {"comment": "few skewed rows at wide odd widths",
         "dist": ["powerlaw", "one_huge"], "B": [4, 32, 256], "M": [67, 233, 666], "len": [256],
         "dtype": ["bf16", "f16"], "seed": 33, "max_bytes": 1100000000},
    ],
    "jagged_mean": [
        {"comment": "masked narrow rows whose longest row holds 4-90 % of the values (one_huge with its huge row capped at 32 K-2 M rows): between the power-law rows (row_share ~0.13) and the uncapped one_huge ones (~0.9), where the forest sent a power-law shape to flat_split.t256.s4 at 6.12x the best (session 47)",
         "dist": "one_huge", "B": [4096, 32768], "M": [1, 4, 8], "len": [256], "cap": [32768, 131072, 524288, 2097152],
         "dtype": ["f32", "bf16"], "seed": 31, "max_bytes": 1100000000, "fc": "random"},
        {"comment": "odd feature widths (no 2- or 4-wide loads) from few rows to many, every dtype (session 48's random peers: B=11 M=515 f16 read 81.5 us against index_add's 13.8, B=59 M=454 0.71x)",
         "B": [8, 128, 2048], "M": [5, 37, 157, 515], "len": [16, 256], "dist": "uniform",
         "dtype": ["f32", "bf16", "f16"], "seed": 32, "max_bytes": 1100000000, "fc": "random"},
        {"comment": "few skewed rows at wide odd widths (B=10 M=67 one_huge bf16: 88.2 us against 20.8)",
         "dist": ["powerlaw", "one_huge"], "B": [4, 32, 256], "M": [67, 233, 666], "len": [256],
         "dtype": ["bf16", "f16"], "seed": 33, "max_bytes": 1100000000, "fc": "random"},
    ],
    "jagged_dense_add": [
        {"comment": "odd N (no vector width divides it), every dtype: session 48's random peers had B=53722 N=1767 f32 at 0.48x torch.compile, B=21542 N=1 at 0.43x",
         "B": [64, 4096, 32768], "N": [1, 7, 67, 585, 1767], "len": [16, 512], "dist": "uniform",
         "dtype": ["f32", "bf16", "f16"], "seed": 32, "max_bytes": 1100000000},
        {"comment": "odd N with one huge row and short others (the random peers' 0.40-0.73x rows)",
         "dist": "one_huge", "B": [4096, 32768], "N": [585, 1767, 11919], "len": [16],
         "dtype": ["f32", "f16"], "seed": 33, "max_bytes": 1100000000},
    ],
    "causal_trailing_mean": [
        {"comment": "rows shorter than the grid's 24 (T = 2-16) with windows shorter and longer than the row, few rows to many",
         "B": 1, "D": [40, 1300, 50000], "T": [2, 4, 16, 47], "cf": [3, 20, 400],
         "dtype": ["f32", "bf16", "f16"], "seed": 32, "max_bytes": 1100000000},
        {"comment": "windows just past the flat unit's 128 on short rows (B=40 D=1 T=140 cf=149 f16: 6.4 us against Triton's 4.7)",
         "B": 1, "D": [40, 1300], "T": [140, 460], "cf": [149, 1000], "dtype": ["f32", "f16"],
         "seed": 33, "max_bytes": 1100000000},
    ],
}


def grow(kernel, gens):
    """Appends the generators whose seed the grid lacks (scripts/grid_add_random.py's add())."""
    n = grid_add_random.add(f"configs/grids/{kernel}.json", kernel, gens)
    print(f"{kernel}: added {n} generators" if n else f"{kernel}: already grown")


if __name__ == "__main__":  # python3 docs/wip/grid_growth_s48.py [kernel ...] (default: all four)
    import sys

    for k in sys.argv[1:] or GROWTH:
        grow(k, GROWTH[k])

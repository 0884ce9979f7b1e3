#!/usr/bin/env python3
"""Session 48: adds jagged_mean's row-share generator to configs/grids/jagged_mean.json (once).
Masked (fc = random) narrow rows where the longest row holds 4-90 % of the values: one_huge rows
whose huge row is capped. The grid had only power-law rows there (row_share ~0.13) and uncapped
one_huge ones (~0.9), and the forest sent B=32768 M=4 len 256 power-law bf16 to flat_split.t256.s4
at 6.12x the best (PERF.md, Session 47). Caps of 32 K-2 M rows against 0.1 x len x B of short
rows give row shares 0.24-0.9 at B = 4096 and 0.04-0.71 at B = 32768."""
import json

PATH = "configs/grids/jagged_mean.json"
GEN = {
    "comment": "masked narrow rows whose longest row holds 4-90 % of the values (one_huge with its huge row capped at 32 K-2 M rows): between the power-law rows (row_share ~0.13) and the uncapped one_huge ones (~0.9), where flat_split's wins and losses meet and the forest sent a power-law shape to flat_split.t256.s4 at 6.12x the best (session 47)",
    "dist": "one_huge", "B": [4096, 32768], "M": [1, 4, 8], "len": [256], "cap": [32768, 131072, 524288, 2097152],
    "dtype": ["f32", "bf16"], "seed": 31, "max_bytes": 1100000000, "fc": "random",
}
with open(PATH) as f:
    grid = json.load(f)
if any(g.get("seed") == GEN["seed"] for g in grid["generators"]):
    print("grid_row_share: already there")
else:
    text = open(PATH).read()
    line = "    " + json.dumps(GEN, ensure_ascii=False)
    head, tail = text.rstrip().rsplit("]", 1)  # the generators list's closing bracket
    open(PATH, "w").write(head.rstrip() + ",\n" + line + "\n  ]" + tail + "\n")
    json.load(open(PATH))  # still valid
    print("grid_row_share: added seed 31")

#!/usr/bin/env python3
"""Session 53: the block_row cells that heuristics/row_bound.h passes over, and how close each is
to its shape's best, over results databases (a Python mirror of block_row_bytes_in_flight() and
config_past_row_bound(); the C++ is what ships, tests/test_dispatch_select.cpp pins it).
  python3 docs/wip/row_bound_cells.py configs/sm90/jagged_mean.json bench/testset/sm90/jagged_mean.json"""
import json
import math
import re
import sys

IN_FLIGHT_PER_US, CAP, CEILING, LAUNCH_US = 5.0, 100e3, 4.3e6, 5.0  # row_bound.h (8 until session 55)


def block_row_rate(cid, m, elem):
    t, v = re.match(r"block_row\.t(\d+)\.v(\w+)", cid).groups()
    vec = next((c for c in (8, 4, 2) if c * elem <= 16 and m % c == 0), 1) if v == "a" else int(v)
    lanes = math.ceil(m / vec)
    tx = 1
    while tx < int(t) and tx < lanes:
        tx *= 2
    return min(CAP, IN_FLIGHT_PER_US * int(t) // tx * 4 * lanes * vec * elem)


for path in sys.argv[1:]:
    db = json.load(open(path))
    ids = [c["id"] for c in db["configs"]]
    slowdowns = []
    for shape in db["shapes"]:
        f = shape["features"]
        ok = [(c["median_us"], i) for i, c in enumerate(shape["cells"]) if c["status"] == "ok"]
        if not ok:
            continue
        best = min(ok)[0]
        ideal = 2 ** f["log2_bytes"] / CEILING + LAUNCH_US
        for us, i in ok:
            if ids[i].startswith("block_row.") and \
                    f["max_row_elems"] * f["elem_bytes"] / block_row_rate(ids[i], int(f["M"]), f["elem_bytes"]) > ideal:
                slowdowns.append(us / best)
    slowdowns.sort()
    print(f"{path}: {len(slowdowns)} block_row cells passed over, {sum(s < 1.25 for s in slowdowns)} within 1.25x "
          f"of their shape's best; lowest {[round(s, 2) for s in slowdowns[:6]]}")

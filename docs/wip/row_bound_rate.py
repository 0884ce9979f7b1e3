#!/usr/bin/env python3
"""Session 55: the row bound's rate (heuristics/row_bound.h, kInFlightPerUs) scored without a GPU.
For every shape of the jagged training databases and test sets it asks `aot-runner explain --json`
for the forest's full ranking (with each config's legality), then re-applies the bound in Python
at each candidate rate (a mirror of row_rate_bytes_per_us / config_past_row_bound) and looks the
pick's time up in the database. At the shipped rate it must reproduce explain's own pick.
  python3 docs/wip/row_bound_rate.py [--runner build/aot-runner] [--shipped 5] [rate ...]"""
import argparse
import json
import math
import subprocess
from concurrent.futures import ThreadPoolExecutor

SETS = [("jagged_sum", "test 100", "bench/testset/sm90"), ("jagged_sum", "test 101", "bench/testset/seed101/sm90"),
        ("jagged_sum", "grid", "configs/sm90"), ("jagged_mean", "test 100", "bench/testset/sm90"),
        ("jagged_mean", "test 101", "bench/testset/seed101/sm90"), ("jagged_mean", "grid", "configs/sm90")]
CAP, CEILING, LAUNCH_US = 100e3, 4.3e6, 5.0


def field(cid, key):
    for part in cid.split(".")[1:]:
        if part and part[0] == key and part[1:].isdigit():
            return int(part[1:])
    return 0


def in_flight(cid, m, eb):
    if cid.startswith("block_row."):
        t = max(32, field(cid, "t"))
        v = field(cid, "v") or next((w for w in (8, 4, 2) if w * eb <= 16 and m % w == 0), 1)
        lanes, tx = math.ceil(m / v), 1
        while tx < t and tx < lanes:
            tx *= 2
        return t / tx * 4 * lanes * v * eb
    if cid.startswith("group_row."):
        return max(1, field(cid, "s")) * m * eb * 4
    if cid.startswith("flat_row."):
        return max(2, field(cid, "s")) * 16.0 * 4
    return None


def past(cid, f, rate):
    fl = in_flight(cid, f["M"], f["elem_bytes"])
    return fl is not None and f["max_row_elems"] * f["elem_bytes"] / min(CAP, rate * fl) > \
        2 ** f["log2_bytes"] / CEILING + LAUNCH_US


def choose(entry, rate):
    legal = [c for c, ok in entry["ranking"] if ok]
    return next((c for c in legal if not past(c, entry["features"], rate)), legal[0])


def rankings(runner, kernel, db):
    def one(s):
        f, dt = s["features"], s["spec"]["dtype"]
        shape = "B=%d,M=%d,nnz=%d,max_len=%d,dtype=%s" % (f["B"], f["M"], f["nnz"], f["max_len"], dt)
        e = json.loads(subprocess.run([runner, "explain", "--kernel", kernel, "--arch", "sm90", "--shape", shape, "--json"],
                                      capture_output=True, text=True, check=True).stdout)
        return s["key"], {"features": e["features"], "pick": e["config"]["id"],
                          "ranking": [(c["id"], c["legal"]) for c in e["leaf_candidates"]]}
    with ThreadPoolExecutor(4) as ex:
        return dict(ex.map(one, db["shapes"]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", default="build/aot-runner")
    ap.add_argument("--shipped", type=float, default=5.0)
    ap.add_argument("rates", nargs="*", type=float, default=[8, 6, 5, 4, 3])
    a = ap.parse_args()
    data = []
    for kernel, name, folder in SETS:
        db = json.load(open("%s/%s.json" % (folder, kernel)))
        ids = [c["id"] for c in db["configs"]]
        times = {s["key"]: {ids[i]: c["median_us"] for i, c in enumerate(s["cells"]) if c["status"] == "ok"}
                 for s in db["shapes"]}
        ranks = rankings(a.runner, kernel, db)
        wrong = sum(choose(e, a.shipped) != e["pick"] for e in ranks.values())
        print("%s %s: %d shapes, %d picks differ from explain's at the shipped rate" % (kernel, name, len(ranks), wrong))
        data.append((kernel, name, ranks, times))
    for rate in a.rates:
        cols = []
        for kernel, name, ranks, times in data:
            logs = sorted(math.log(times[k][choose(e, rate)] / min(times[k].values())) for k, e in ranks.items())
            cols.append("%s %s %.4f / %.2f" % (kernel[7:], name, math.exp(sum(logs) / len(logs)), math.exp(logs[-1])))
        print("rate %-4g " % rate + " | ".join(cols))


if __name__ == "__main__":
    main()

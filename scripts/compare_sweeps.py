#!/usr/bin/env python3
"""What a re-sweep changed: two results databases of one kernel (an older and a newer `aot-runner
tune` of the same grid, e.g. before and after a kernel change) compared shape by shape. Prints, new
over old: each shape's best config time (geomean, range, by length distribution and by size), each
strategy's cells (the configs both timed), how many shapes each strategy wins, the shapes that moved
most, and issue 6's large-shape bars (>= 256 MB moved: uniform lengths under 3.6 TB/s, skewed under
3.2 TB/s, by the fewest-bytes model the database records). Ratios under 1 mean the newer sweep is
faster. Two sweeps of unchanged code differ by about 1-2 % (docs/PERF.md, the noise floor); the
strategies whose code did not change show that drift. Plain Python.

  git show HEAD:configs/sm90/jagged_sum.json > /tmp/old.json
  python3 scripts/compare_sweeps.py /tmp/old.json configs/sm90/jagged_sum.json
  python3 scripts/compare_sweeps.py /tmp/old.json configs/sm90/jagged_sum.json --top 20 --json
"""
import argparse
import json
import math
import signal
import sys

from noise_floor import load_shapes  # scripts/ is on the path: this file's folder

LARGE_BYTES = 256e6  # issue 6's "large shape"
UNIFORM_BAR_TBS, SKEWED_BAR_TBS = 3.6, 3.2
SIZE_CLASSES = [("< 1 MB", 0, 1e6), ("1-256 MB", 1e6, LARGE_BYTES), (">= 256 MB", LARGE_BYTES, math.inf)]


def fail(msg):
    sys.exit(f"compare_sweeps: {msg}")


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def summary(ratios):
    return {"n": len(ratios), "geomean": geomean(ratios), "min": min(ratios, default=None),
            "max": max(ratios, default=None)}


def strategy(config_id):
    return config_id.split(".", 1)[0]


def best(times):
    config = min(times, key=times.get)
    return config, times[config]


def bars(shapes):
    """Issue 6's large-shape counts: uniform-length shapes under their bar and in all, skewed ditto."""
    uniform_under = uniform = skewed_under = skewed = 0
    for spec, moved, times in shapes.values():
        if moved < LARGE_BYTES:
            continue
        tbs = moved / best(times)[1] / 1e6  # bytes per µs / 1e6 = TB/s
        if spec.get("dist", "uniform") == "uniform":
            uniform += 1
            uniform_under += tbs < UNIFORM_BAR_TBS
        else:
            skewed += 1
            skewed_under += tbs < SKEWED_BAR_TBS
    return {"uniform_under": uniform_under, "uniform": uniform, "skewed_under": skewed_under, "skewed": skewed}


def compare(old, new, top):
    keys = sorted(set(old) & set(new))
    if not keys:
        fail("the two databases share no shape (different grids?)")
    rows = []
    cells = {}
    wins_old, wins_new = {}, {}
    for key in keys:
        spec, moved, o = old[key]
        n = new[key][2]
        ob, nb = best(o), best(n)
        rows.append({"shape": key, "dist": spec.get("dist", "uniform"), "bytes_moved": moved,
                     "old_best": ob[0], "old_us": ob[1], "new_best": nb[0], "new_us": nb[1],
                     "ratio": nb[1] / ob[1]})
        for c in o.keys() & n.keys():
            cells.setdefault(strategy(c), []).append(n[c] / o[c])
        wins_old[strategy(ob[0])] = wins_old.get(strategy(ob[0]), 0) + 1
        wins_new[strategy(nb[0])] = wins_new.get(strategy(nb[0]), 0) + 1
    ratios = [r["ratio"] for r in rows]
    rows.sort(key=lambda r: r["ratio"])
    return {
        "shapes": len(keys),
        "only_old": sorted(set(old) - set(new)),
        "only_new": sorted(set(new) - set(old)),
        "best": summary(ratios),
        "best_uniform": summary([r["ratio"] for r in rows if r["dist"] == "uniform"]),
        "best_skewed": summary([r["ratio"] for r in rows if r["dist"] != "uniform"]),
        "best_by_size": {name: summary([r["ratio"] for r in rows if lo <= r["bytes_moved"] < hi])
                         for name, lo, hi in SIZE_CLASSES},
        "cells_by_strategy": {s: summary(v) for s, v in sorted(cells.items())},
        "wins_by_strategy": {s: {"old": wins_old.get(s, 0), "new": wins_new.get(s, 0)}
                             for s in sorted(wins_old.keys() | wins_new.keys())},
        "large_bars": {"old": bars({k: old[k] for k in keys}), "new": bars({k: new[k] for k in keys})},
        "most_faster": rows[:top],
        "most_slower": rows[::-1][:top],
    }


def fmt(s):
    if not s["n"]:
        return "-"
    return f"{s['geomean']:.4f} ({s['min']:.3f}-{s['max']:.3f}, {s['n']})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", help="the older results database")
    ap.add_argument("new", help="the newer results database of the same kernel")
    ap.add_argument("--top", type=int, default=8, help="shapes listed that moved most each way (default 8)")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = ap.parse_args()
    if args.top < 0:
        fail(f"--top must be >= 0, got {args.top}")
    old_kernel, old = load_shapes(args.old, "compare_sweeps")
    new_kernel, new = load_shapes(args.new, "compare_sweeps")
    if old_kernel != new_kernel:
        fail(f"the databases hold different kernels: {old_kernel} ({args.old}) and {new_kernel} ({args.new})")
    report = compare(old, new, args.top)
    report["kernel"] = old_kernel
    if args.json:
        print(json.dumps(report, indent=1))
        return
    print(f"{old_kernel}: {report['shapes']} shapes in both, new / old (geomean (min-max, count))")
    for key, label in (("only_old", "only in the old"), ("only_new", "only in the new")):
        if report[key]:
            print(f"  {len(report[key])} shapes {label} database, not compared")
    print(f"  per-shape best: {fmt(report['best'])}")
    print(f"    uniform lengths {fmt(report['best_uniform'])}, skewed {fmt(report['best_skewed'])}")
    print("    by bytes moved: " + ", ".join(f"{k} {fmt(v)}" for k, v in report["best_by_size"].items()))
    print("  cells both timed, by strategy:")
    for s, v in report["cells_by_strategy"].items():
        w = report["wins_by_strategy"].get(s, {"old": 0, "new": 0})
        print(f"    {s:14s} {fmt(v)}; best on {w['old']} -> {w['new']} shapes")
    b = report["large_bars"]
    print(f"  >= 256 MB: uniform under {UNIFORM_BAR_TBS} TB/s {b['old']['uniform_under']} -> "
          f"{b['new']['uniform_under']} of {b['new']['uniform']}, skewed under {SKEWED_BAR_TBS} TB/s "
          f"{b['old']['skewed_under']} -> {b['new']['skewed_under']} of {b['new']['skewed']}")
    for key, label in (("most_faster", "faster"), ("most_slower", "slower")):
        if report[key]:
            print(f"  most {label}:")
        for r in report[key]:
            print(f"    {r['ratio']:.3f} {r['shape'][:90]}")
            print(f"          {r['old_best']} {r['old_us']:.1f} µs -> {r['new_best']} {r['new_us']:.1f} µs")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

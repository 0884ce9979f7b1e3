#!/usr/bin/env python3
"""Compare two builds of a kernel from interleaved bench rounds (scripts/ab_kernels.sh writes them).

Reads OUT/base<r>/<arch>/<kernel>.json and OUT/new<r>/<arch>/<kernel>.json for every round r found
(`aot-runner bench --force` databases of one grid: every legal config of every shape timed). Per
shape and config, the median over a side's rounds; per shape, each side's best config and the
ratio new / base of the two bests, with the geomean, min and max of the per-config ratios (configs
timed on both sides). Ratios under 1 mean the new build is faster. A shape or config timed on one
side only is reported, not scored (a config only in new may be one the change made legal). Every
cell that failed its float64 check or crashed, on either side, is listed after the comparison, and
then the exit status is 1: a best that looks faster because the new build's configs fail is not a
result (session 37: an A/B read 1.48x while every bf16 config of the change failed its check on
five shapes, and the summary did not say so). Plain Python.

  python3 scripts/ab_compare.py out/ab
  python3 scripts/ab_compare.py out/ab --json > ab.json
"""
import argparse
import glob
import json
import math
import os
import signal
import sys
from statistics import median

from noise_floor import load_database  # scripts/ is on the path: this file's folder


def fail(msg):
    sys.exit(f"ab_compare: {msg}")


def side_databases(out, side):
    """{round: path} of OUT/<side><r>/<arch>/<kernel>.json."""
    paths = {}
    # <arch> is sm<NN>; the bench folder's grids/ holds a copy of the grid, not timings.
    for path in sorted(glob.glob(os.path.join(out, f"{side}[0-9]*", "sm[0-9]*", "*.json"))):
        tag = os.path.basename(os.path.dirname(os.path.dirname(path)))
        r = tag[len(side):]
        if not r.isdigit():
            continue
        if int(r) in paths:
            fail(f"round {r} of '{side}' has more than one database (one kernel per A/B): {path}")
        paths[int(r)] = path
    return paths


def load_side(paths):
    """({round: (kernel, {shape key: {config id: median_us}})} of the cells that ran ("ok"),
    [{round, shape, config, status, reason}] of the cells that failed their check or crashed)."""
    rounds, bad = {}, []
    for r, path in sorted(paths.items()):
        db, kernel, times = load_database(path, "ab_compare")
        rounds[r] = (kernel, times)
        ids = [c["id"] for c in db.get("configs", [])]
        for s in db.get("shapes", []):
            for i, c in enumerate(s.get("cells", [])):
                if c.get("status") in ("failed", "crashed"):
                    bad.append({"round": r, "shape": s.get("key", "?"), "config": ids[i] if i < len(ids) else str(i),
                                "status": c["status"], "reason": c.get("reason", "")})
    return rounds, bad


def per_shape_medians(rounds):
    """{shape: {config: median over the rounds that timed it in all rounds}}."""
    keys = set.intersection(*(set(t) for _, t in rounds.values()))
    out = {}
    for key in keys:
        configs = set.intersection(*(set(t[key]) for _, t in rounds.values()))
        if configs:
            out[key] = {c: median(t[key][c] for _, t in rounds.values()) for c in configs}
    return out


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", help="folder holding base1/, new1/, base2/, new2/, ...")
    ap.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = ap.parse_args()
    if not os.path.isdir(args.out):
        fail(f"{args.out} is not a folder")
    base_paths, new_paths = side_databases(args.out, "base"), side_databases(args.out, "new")
    (base, base_bad), (new, new_bad) = load_side(base_paths), load_side(new_paths)
    if not base or not new:
        fail(f"{args.out} needs base<r>/ and new<r>/ bench folders; found rounds base {sorted(base)}, "
             f"new {sorted(new)}")
    kernels = {k for k, _ in base.values()} | {k for k, _ in new.values()}
    if len(kernels) != 1:
        fail(f"the rounds hold different kernels: {sorted(kernels)}")
    b, n = per_shape_medians(base), per_shape_medians(new)
    rows, missing = [], sorted((set(b) ^ set(n)))
    for key in sorted(set(b) & set(n)):
        common = [c for c in b[key] if c in n[key]]
        bb, nb = min(b[key], key=b[key].get), min(n[key], key=n[key].get)
        ratios = [n[key][c] / b[key][c] for c in common]
        rows.append({
            "shape": key,
            "base_best_us": b[key][bb], "base_best": bb,
            "new_best_us": n[key][nb], "new_best": nb,
            "best_ratio": n[key][nb] / b[key][bb],
            "configs": len(common),
            "configs_only_base": sorted(set(b[key]) - set(n[key])),
            "configs_only_new": sorted(set(n[key]) - set(b[key])),
            "config_ratio_geomean": geomean(ratios) if ratios else None,
            "config_ratio_min": min(ratios) if ratios else None,
            "config_ratio_max": max(ratios) if ratios else None,
        })
    if not rows:
        fail("no shape was timed on both sides")
    summary = {
        "kernel": kernels.pop(),
        "rounds": {"base": sorted(base), "new": sorted(new)},
        "shapes": len(rows),
        "best_ratio_geomean": geomean([r["best_ratio"] for r in rows]),
        "best_ratio_max": max(r["best_ratio"] for r in rows),
        "best_ratio_min": min(r["best_ratio"] for r in rows),
        "missing_on_one_side": missing,
        "failed_cells": {"base": base_bad, "new": new_bad},
    }
    failed = summary["failed_cells"]["base"] + summary["failed_cells"]["new"]
    if args.json:
        print(json.dumps({"summary": summary, "shapes": rows}, indent=1))
        sys.exit(1 if failed else 0)
    print(f"{summary['kernel']}: new / base over {len(rows)} shapes, rounds base {summary['rounds']['base']} "
          f"new {summary['rounds']['new']} (median per config over the rounds)")
    print(f"{'shape':56s} {'base best µs':>12s} {'new best µs':>12s} {'ratio':>6s}  configs: geomean min max")
    for r in rows:
        cfg = (f"{r['config_ratio_geomean']:.3f} {r['config_ratio_min']:.3f} {r['config_ratio_max']:.3f}"
               if r["configs"] else "-")
        print(f"{r['shape'][:56]:56s} {r['base_best_us']:12.2f} {r['new_best_us']:12.2f} {r['best_ratio']:6.3f}  {cfg}")
        only = "".join(f"; only in {side} ({len(ids)}): {', '.join(ids[:6])}{' ...' if len(ids) > 6 else ''}"
                       for side, ids in (("base", r["configs_only_base"]), ("new", r["configs_only_new"])) if ids)
        print(f"    best configs: base {r['base_best']}, new {r['new_best']}{only}")
    print(f"best per shape, new / base: geomean {summary['best_ratio_geomean']:.4f}, "
          f"min {summary['best_ratio_min']:.3f}, max {summary['best_ratio_max']:.3f}")
    for key in missing:
        print(f"missing on one side (failed or crashed there): {key}")
    for side in ("base", "new"):
        cells = summary["failed_cells"][side]
        if cells:
            print(f"FAILED: {len(cells)} {side} cell(s) failed their check or crashed; their configs are not scored above:")
            for c in cells[:20]:
                print(f"  {side} round {c['round']} {c['config']} on {c['shape']}: {c['status']}: {c['reason']}")
            if len(cells) > 20:
                print(f"  ... and {len(cells) - 20} more (--json lists them all)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

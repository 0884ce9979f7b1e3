#!/usr/bin/env python3
"""How good were a heuristic's picks on shapes it was never fitted on? Asks an aot-runner binary
(`explain --json`, so the heuristic compiled into it, or AOTUNE_HEURISTIC_DIR's) which config it
picks for each shape of a results database, and scores each pick against that shape's measured
best in the same database: slowdown = the pick's median / the best median.

The use is a grid growth: keep the aot-runner built before the growth, sweep the new shapes with
`aot-runner tune --resume`, then score the old binary on the shapes the old database lacked
(--baseline). That is an out-of-sample measure of what the growth fixed; the fit report's
held-out score cannot give it, because the grown grid changes what is scored. CPU only.

  cp build/aot-runner /tmp/aot-runner-before            # before the growth
  ... sweep on the GPU, commit the grown database ...
  python3 scripts/score_picks.py --runner /tmp/aot-runner-before \\
      --database configs/sm90/causal_trailing_mean.json \\
      --baseline <(git show HEAD~1:configs/sm90/causal_trailing_mean.json)
"""
import argparse
import concurrent.futures
import json
import math
import os
import signal
import sys

import aot_explain  # scripts/aot_explain.py: explain as a subprocess


def fail(msg):
    print(f"score_picks: {msg}", file=sys.stderr)
    sys.exit(2)


def load_database(path, what):
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        fail(f"cannot read the {what} {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"the {what} {path} is not JSON: {e}")
    for field in ("kernel", "configs", "shapes"):
        if field not in d:
            fail(f"the {what} {path} has no '{field}': not an aot-runner results database")
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runner", default="build/aot-runner", help="the aot-runner whose heuristic is scored")
    ap.add_argument("--database", required=True, help="results database with the measured cells")
    ap.add_argument("--baseline", help="an older database of the same kernel: score only the shapes it lacks")
    ap.add_argument("--arch", default="sm90", help="architecture whose heuristic to ask (default sm90)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="explain calls at once")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    if args.jobs < 1:
        fail(f"--jobs must be >= 1, got {args.jobs}")

    db = load_database(args.database, "database")
    kernel = db["kernel"]
    shapes = db["shapes"]
    if args.baseline:
        base = load_database(args.baseline, "baseline")
        if base["kernel"] != kernel:
            fail(f"the baseline is a {base['kernel']} database, the database a {kernel} one")
        old = {s["key"] for s in base["shapes"]}
        shapes = [s for s in shapes if s["key"] not in old]
    if not shapes:
        fail("no shapes to score" + (" (the database has none the baseline lacks)" if args.baseline else ""))
    ids = [c["id"] for c in db["configs"]]

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            picks = list(pool.map(lambda s: aot_explain.explain(args.runner, kernel, args.arch, s["spec"])["config"]["id"],
                                  shapes))
    except aot_explain.ExplainError as e:
        fail(str(e))

    rows, unmeasured = [], []
    for s, chosen in zip(shapes, picks):
        times = {ids[i]: c["median_us"] for i, c in enumerate(s["cells"]) if c.get("status") == "ok"}
        if not times:
            fail(f"shape {s['key']} has no measured cell")
        best_id = min(times, key=times.get)
        if chosen not in times:
            # A pick the sweep did not time (failed, illegal in the database, or a config the
            # database does not know): no slowdown to give, so it is listed, not averaged.
            status = s["cells"][ids.index(chosen)].get("status") if chosen in ids else "not in the database"
            unmeasured.append({"key": s["key"], "pick": chosen, "status": status})
            continue
        rows.append({"key": s["key"], "pick": chosen, "pick_us": times[chosen], "best": best_id,
                     "best_us": times[best_id], "slowdown": times[chosen] / times[best_id]})
    rows.sort(key=lambda r: -r["slowdown"])
    geomean = math.exp(sum(math.log(r["slowdown"]) for r in rows) / len(rows)) if rows else None
    summary = {"kernel": kernel, "arch": args.arch, "shapes": len(rows), "geomean_slowdown": geomean,
               "max_slowdown": rows[0]["slowdown"] if rows else None,
               "exact": sum(1 for r in rows if r["pick"] == r["best"]), "unmeasured_picks": unmeasured}
    if args.json:
        print(json.dumps({**summary, "results": rows}, indent=1))
        return
    if rows:
        print(f"{kernel} on {args.arch}: {len(rows)} shapes, picks' geomean slowdown {geomean:.3f}, max "
              f"{summary['max_slowdown']:.3f}, the best itself on {summary['exact']}")
    for r in rows:
        print(f"  {r['slowdown']:6.3f}x  {r['pick']:<22} {r['pick_us']:10.2f} us  best {r['best']:<22} "
              f"{r['best_us']:10.2f} us  {r['key']}")
    for u in unmeasured:
        print(f"  unmeasured pick {u['pick']} ({u['status']}) on {u['key']}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the listing quietly
    main()

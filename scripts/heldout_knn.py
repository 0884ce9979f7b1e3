#!/usr/bin/env python3
"""How well can any per-shape selector do on a results database? A model-free yardstick for the fit.

For each held-out shape (k-fold over shapes, several fold draws), pick the legal config with the
lowest mean log-slowdown over the k nearest training shapes (features as the database records
them, log2(1 + |x|), standardised), using every config, not a K-config subset. If this lands near
`aot-runner fit`'s held-out score, the tree is not what limits it: the grid's density and features
are. Pure Python (no numpy), a few seconds per database.

  python3 scripts/heldout_knn.py configs/sm90/jagged_sum.json
  python3 scripts/heldout_knn.py configs/sm90/jagged_mean.json --k 1 3 5 --draws 10
"""
import argparse
import json
import math
import random
import signal
import sys

ILLEGAL_IN_TRAINING = 5.0  # log-slowdown charged when a neighbour could not run a config


def load(path):
    try:
        with open(path) as f:
            db = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"heldout_knn: cannot read results database {path}: {e}")
    shapes = db.get("shapes", [])
    if len(shapes) < 10:
        sys.exit(f"heldout_knn: {path} holds {len(shapes)} shapes; need at least 10")
    loss, feats = [], []
    for s in shapes:
        times = [c["median_us"] if c["status"] == "ok" else math.inf for c in s["cells"]]
        best = min(times)
        if not math.isfinite(best):
            continue  # nothing ran: no slowdown to score
        loss.append([math.log(t / best) if math.isfinite(t) else math.inf for t in times])
        values = s["features"].values() if isinstance(s["features"], dict) else [v for _, v in s["features"]]
        feats.append([math.log2(1 + abs(v)) for v in values])
    cols = list(zip(*feats))
    mean = [sum(c) / len(c) for c in cols]
    std = [math.sqrt(sum((x - m) ** 2 for x in c) / len(c)) or 1.0 for c, m in zip(cols, mean)]
    feats = [[(x - m) / s for x, m, s in zip(row, mean, std)] for row in feats]
    return db.get("kernel", path), loss, feats


def score(loss, feats, k, folds, draw):
    n = len(loss)
    order = list(range(n))
    random.Random(draw).shuffle(order)
    picked = []
    for f in range(folds):
        test = set(order[f::folds])
        train = [i for i in order if i not in test]
        for t in test:
            near = sorted(train, key=lambda i: sum((a - b) ** 2 for a, b in zip(feats[i], feats[t])))[:k]
            best_c, best_v = None, math.inf
            for c in range(len(loss[t])):
                if not math.isfinite(loss[t][c]):
                    continue  # illegal or failed here: the run-time fallback would skip it too
                v = sum(min(loss[i][c], ILLEGAL_IN_TRAINING) for i in near) / k
                if v < best_v:
                    best_c, best_v = c, v
            picked.append(loss[t][best_c])
    return math.exp(sum(picked) / len(picked)), math.exp(max(picked))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("databases", nargs="+", help="results databases (configs/<arch>/<kernel>.json)")
    ap.add_argument("--k", type=int, nargs="+", default=[1, 3, 5, 8], help="neighbour counts")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=5, help="fold draws averaged")
    a = ap.parse_args()
    if a.folds < 2 or a.draws < 1 or min(a.k) < 1:
        sys.exit("heldout_knn: need --folds >= 2, --draws >= 1 and every --k >= 1")
    for path in a.databases:
        kernel, loss, feats = load(path)
        for k in a.k:
            runs = [score(loss, feats, k, a.folds, d) for d in range(a.draws)]
            geo = sum(r[0] for r in runs) / len(runs)
            worst = sum(r[1] for r in runs) / len(runs)
            print(f"{kernel}: k={k} held-out geomean {geo:.3f}, max {worst:.2f} "
                  f"(mean of {a.draws} draws, {a.folds} folds, {len(loss)} shapes)")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

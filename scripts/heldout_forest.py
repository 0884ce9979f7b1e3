#!/usr/bin/env python3
"""What would an ensemble of trees buy over the single tree the library ships? A yardstick.

Scores, by k-fold cross-validation over a results database's shapes (several fold draws), selectors
that pick for each held-out shape the legal config with the lowest predicted log-slowdown:
  - one CART tree (scikit-learn's DecisionTreeRegressor, all configs as outputs),
  - the same tree with hierarchical shrinkage (--shrinkage: each node's predicted log-slowdowns
    are its parent's plus the difference damped by 1 / (1 + lambda / parent's shapes), Agarwal et
    al. 2022; a single tree, so the form the library ships), and
  - extremely randomised trees (ExtraTreesRegressor) of several sizes,
all on the features the database records (log2(1 + |x|)), trained on log-slowdowns clipped at
--clip. Compare with `aot-runner fit --kernel K --repeats 10` (the shipped tree's held-out score:
one tree, a K-config subset, cost-sensitive splits). A forest that beats it by far says the tree's
form, not the grid or the features, limits the heuristic (docs/PERF.md, session 12).

Needs numpy and scikit-learn (`pip install scikit-learn`); neither is a project dependency, and
nothing in the build or the tests runs this.

  python3 scripts/heldout_forest.py configs/sm90/jagged_sum.json
  python3 scripts/heldout_forest.py configs/sm90/causal_trailing_mean.json --trees 16 32 --draws 5
  python3 scripts/heldout_forest.py configs/sm90/jagged_sum.json --shrinkage 1 4 16 --trees 8
"""
import argparse
import json
import math
import signal
import sys

try:
    import numpy as np
    from sklearn.ensemble import ExtraTreesRegressor
    from sklearn.tree import DecisionTreeRegressor
except ImportError as e:
    sys.exit(f"heldout_forest: {e}; install them with `pip install scikit-learn`")

UNMEASURED = 3.0  # log-slowdown recorded for a config that was legal but has no time


def load(path):
    try:
        with open(path) as f:
            db = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"heldout_forest: cannot read results database {path}: {e}")
    feats, loss, legal = [], [], []
    for s in db.get("shapes", []):
        times = [c["median_us"] if c["status"] == "ok" else math.nan for c in s["cells"]]
        ok = [t for t in times if not math.isnan(t)]
        if not ok:
            continue  # nothing ran: no slowdown to score
        best = min(ok)
        loss.append([UNMEASURED if math.isnan(t) else math.log(t / best) for t in times])
        legal.append([c["status"] != "illegal" for c in s["cells"]])
        values = s["features"].values() if isinstance(s["features"], dict) else [v for _, v in s["features"]]
        feats.append([math.log2(1 + abs(v)) for v in values])
    if len(feats) < 10:
        sys.exit(f"heldout_forest: {path} holds {len(feats)} scorable shapes; need at least 10")
    return db.get("kernel", path), np.array(feats), np.array(loss), np.array(legal)


class ShrunkTree:
    """A CART tree whose node values are shrunk toward their ancestors' (hierarchical shrinkage)."""

    def __init__(self, lam, max_depth):
        self.lam = lam
        self.tree = DecisionTreeRegressor(max_depth=max_depth, random_state=0)

    def fit(self, X, y):
        self.tree.fit(X, y)
        t = self.tree.tree_
        raw = t.value[:, :, 0]
        self.values = np.zeros_like(raw)
        stack = [(0, raw[0].copy())]
        while stack:
            node, value = stack.pop()
            self.values[node] = value
            for child in (t.children_left[node], t.children_right[node]):
                if child != -1:
                    damp = 1.0 + self.lam / t.n_node_samples[node]
                    stack.append((child, value + (raw[child] - raw[node]) / damp))
        return self

    def predict(self, X):
        return self.values[self.tree.apply(X)]


def heldout_geomean(make, X, L, legal, folds, draw, clip):
    n = len(X)
    order = np.random.RandomState(draw).permutation(n)
    total = 0.0
    for test in np.array_split(order, folds):
        train = np.setdiff1d(order, test)
        model = make().fit(X[train], np.minimum(L[train], clip))
        predicted = np.where(legal[test], model.predict(X[test]), np.inf)
        total += L[test, predicted.argmin(axis=1)].sum()
    return math.exp(total / n)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("database", help="results database, e.g. configs/sm90/jagged_sum.json")
    ap.add_argument("--trees", type=int, nargs="+", default=[8, 16, 32, 300], help="forest sizes to score")
    ap.add_argument("--max-depth", type=int, default=12, help="depth limit of every tree (the shipped tree's is 12)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=3, help="fold draws averaged")
    ap.add_argument("--clip", type=float, default=1.5, help="training log-slowdowns are clipped here")
    ap.add_argument("--shrinkage", type=float, nargs="*", default=[],
                    help="also score the CART tree with hierarchical shrinkage at these lambdas")
    args = ap.parse_args()
    if args.folds < 2 or args.draws < 1 or min(args.trees) < 1 or args.max_depth < 1:
        sys.exit("heldout_forest: --folds >= 2, --draws >= 1, --trees >= 1 and --max-depth >= 1")
    if any(lam < 0 for lam in args.shrinkage):
        sys.exit(f"heldout_forest: --shrinkage lambdas must be >= 0, got {args.shrinkage}")
    kernel, X, L, legal = load(args.database)
    print(f"{kernel}: {len(X)} shapes, {L.shape[1]} configs, {args.folds}-fold x {args.draws} draws, "
          f"depth <= {args.max_depth}: held-out geomean slowdown (mean over draws)")

    def report(name, make):
        scores = [heldout_geomean(make, X, L, legal, args.folds, d, args.clip) for d in range(args.draws)]
        print(f"  {name:24s} {sum(scores) / len(scores):.4f}  (draws {min(scores):.4f}-{max(scores):.4f})")

    report("one tree (CART)", lambda: DecisionTreeRegressor(max_depth=args.max_depth, random_state=0))
    for lam in args.shrinkage:
        report(f"CART, shrinkage {lam:g}", lambda lam=lam: ShrunkTree(lam, args.max_depth))
    for n in args.trees:
        report(f"extra trees x {n}",
               lambda n=n: ExtraTreesRegressor(n_estimators=n, max_depth=args.max_depth, random_state=0, n_jobs=-1))


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

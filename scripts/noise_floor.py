#!/usr/bin/env python3
"""The held-out metric's noise floor: how much slower is one run's per-shape best config in another
run of the same shapes? Takes two results databases of one grid (e.g. two `aot-runner bench
--force` runs over bench/noise-grids/<kernel>.json) and scores each run's per-shape best config
against the other run's per-shape best: a perfect selector, scored the way `aot-runner fit` scores
(against a best measured once), cannot do better than this on those shapes. Plain Python.

  for r in 1 2; do build/aot-runner bench --grid bench/noise-grids/jagged_sum.json --out-dir out/noise$r --force; done
  python3 scripts/noise_floor.py out/noise1/sm90/jagged_sum.json out/noise2/sm90/jagged_sum.json

Each direction is also split by bytes moved into the size classes of `fit`'s heldout_by_size
(< 1 MB, 1 MB - 256 MB, >= 256 MB), with the count of shapes over issue 4's 1.25 worst-case bar
and up to three of the slowest shapes over it, so a fit report's rows can be read against the
floor of the same sizes. Two full sweeps of one grid whose kernels differ only by configs that
never win (a re-sweep after removing them) serve as well as two bench runs.
"""
import json
import math
import signal
import sys


def read_shapes(path, tool="noise_floor"):
    """(the parsed database, its kernel, {shape key: (spec, bytes moved, {config id: median µs})})
    of the configs that ran ("ok") on each shape; shapes where none ran are left out. Exits naming
    `tool` and the file when it cannot be read."""
    try:
        with open(path) as f:
            db = json.load(f)
        ids = [c["id"] for c in db.get("configs", [])]
        shapes = {}
        for s in db.get("shapes", []):
            ok = {ids[i]: c["median_us"] for i, c in enumerate(s["cells"]) if c["status"] == "ok"}
            if ok:
                shapes[s["key"]] = (s.get("spec", {}), float(s.get("bytes_moved", 0.0)), ok)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
        sys.exit(f"{tool}: cannot read results database {path}: {e}")
    return db, db.get("kernel", "?"), shapes


def load_shapes(path, tool="noise_floor"):
    """(kernel, shapes) of read_shapes(). Also used by scripts/compare_sweeps.py."""
    _, kernel, shapes = read_shapes(path, tool)
    return kernel, shapes


def load_database(path, tool="noise_floor"):
    """(the parsed database, its kernel, {shape key: {config id: median µs}}): read_shapes() without
    the shapes' specs and sizes. Also used by scripts/ab_compare.py, which reads its failed cells
    from the same parse."""
    db, kernel, shapes = read_shapes(path, tool)
    return db, kernel, {key: times for key, (_, _, times) in shapes.items()}


MB = 1e6  # fit's size classes count decimal megabytes (heuristics/fit.cpp)
SIZE_CLASSES = (("< 1 MB", 0.0, MB), ("1 MB - 256 MB", MB, 256 * MB), (">= 256 MB", 256 * MB, math.inf))
BAR = 1.25  # issue 4's worst-case goal for a held-out pick


def slowdowns(picker, judge):
    """[(slowdown, bytes moved, shape key, config)]: each shape's best config in `picker` timed
    against the best in `judge`, over the shapes both have where that config ran in `judge`."""
    rows = []
    for key, (_, moved, times) in picker.items():
        other = judge.get(key)
        pick = min(times, key=times.get)
        if other and pick in other[2]:
            rows.append((other[2][pick] / min(other[2].values()), moved, key, pick))
    if not rows:
        sys.exit("noise_floor: the two databases share no shape with a timed best config")
    return rows


def summary(rows):
    """(shapes, geomean slowdown, max slowdown, shapes over BAR) of slowdowns() rows."""
    logs = [math.log(r[0]) for r in rows]
    return len(rows), math.exp(sum(logs) / len(logs)), math.exp(max(logs)), sum(r[0] > BAR for r in rows)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (_, a), (_, b) = load_shapes(sys.argv[1]), load_shapes(sys.argv[2])
    for name, (picker, judge) in (("run 1's best timed in run 2", (a, b)), ("run 2's best timed in run 1", (b, a))):
        rows = slowdowns(picker, judge)
        n, geo, worst, over = summary(rows)
        print(f"{name}: {n} shapes, geomean slowdown {geo:.4f}, max {worst:.3f}, over {BAR}: {over}")
        for label, lo, hi in SIZE_CLASSES:
            part = [r for r in rows if lo <= r[1] < hi]
            if part:
                n, geo, worst, over = summary(part)
                print(f"  {label:<14} {n:4d} shapes, geomean {geo:.4f}, max {worst:.3f}, over {BAR}: {over}")
        for slow, moved, key, pick in sorted(rows, reverse=True)[:3]:
            if slow > BAR:
                print(f"    {slow:.2f}x  {moved / MB:.2f} MB  {key}  {pick}")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

#!/usr/bin/env python3
"""The held-out metric's noise floor: how much slower is one run's per-shape best config in another
run of the same shapes? Takes two results databases of one grid (e.g. two `aot-runner bench
--force` runs over bench/noise-grids/<kernel>.json) and scores each run's per-shape best config
against the other run's per-shape best: a perfect selector, scored the way `aot-runner fit` scores
(against a best measured once), cannot do better than this on those shapes. Plain Python.

  for r in 1 2; do build/aot-runner bench --grid bench/noise-grids/jagged_sum.json --out-dir out/noise$r --force; done
  python3 scripts/noise_floor.py out/noise1/sm90/jagged_sum.json out/noise2/sm90/jagged_sum.json
"""
import json
import math
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


def load(path, tool="noise_floor"):
    """(kernel, {shape key: {config id: median µs}}) of load_database()."""
    _, kernel, times = load_database(path, tool)
    return kernel, times


def score(picker, judge):
    logs = []
    for key, times in picker.items():
        other = judge.get(key)
        pick = min(times, key=times.get)
        if other and pick in other:
            logs.append(math.log(other[pick] / min(other.values())))
    if not logs:
        sys.exit("noise_floor: the two databases share no shape with a timed best config")
    return len(logs), math.exp(sum(logs) / len(logs)), math.exp(max(logs))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    (_, a), (_, b) = load(sys.argv[1]), load(sys.argv[2])
    for name, (picker, judge) in (("run 1's best timed in run 2", (a, b)), ("run 2's best timed in run 1", (b, a))):
        n, geo, worst = score(picker, judge)
        print(f"{name}: {n} shapes, geomean slowdown {geo:.4f}, max {worst:.3f}")


if __name__ == "__main__":
    main()

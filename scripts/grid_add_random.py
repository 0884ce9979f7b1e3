#!/usr/bin/env python3
"""Adds random shapes to a kernel's tuning grid, so the heuristic is fitted on the whole space a
user may call and not only on the corners someone listed.

The draws are bench/peer_shapes.py's (the random peers'): every size log-uniform over the kernel's
range, every dtype and length distribution, at most 1.5 GB moved. Each becomes one generator of a
single shape, written out in full, so the grid stays plain JSON that expands the same on every
machine (the randomness is here, not in `aot-runner`). A draw's generator seed is 1000 x SEED + its
index, so running this again with the same seed adds nothing, and another seed adds other shapes.

Seeds 1-4 and 100-102 are refused: bench/peers.py --random and `aot-runner bench` on
`peer_shapes.py --grids` score the heuristic on those draws (1-4 the random peers', session 57's
the fourth; 100 is bench/testset's, whose every config is timed, and 101 and 102 its second and
third draws, bench/testset/seed101 and seed102), which must stay unseen.

    python3 scripts/grid_add_random.py jagged_sum                    # 64 draws of seed 49
    python3 scripts/grid_add_random.py jagged_sum --count 32 --seed 50 --dry-run
    build/aot-runner tune -k jagged_sum --resume                     # measures only the new shapes

Session 49 grew jagged_sum, jagged_mean and jagged_dense_add this way (64 draws of seed 49 each;
docs/PERF.md, Session 49).
"""
import argparse
import json
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import peer_shapes  # noqa: E402  (bench/ is put on the path above)

TEST_SEEDS = (1, 2, 3, 4, 100, 101, 102)  # the random peers' draws and bench/testset's: scoring, never training
# The grid's own byte bound for a draw: peer_shapes caps the *expected* bytes at MAX_BYTES, and a
# drawn shape's own lengths may come out somewhat above their expectation.
MAX_BYTES = int(peer_shapes.MAX_BYTES * 1.2)


def draws(kernel, count, seed):
    """`count` generators of `kernel`, in draw order. The kernels are drawn in turn over one
    stream (peer_shapes.random_cases), so a kernel's draws do not depend on which kernel is
    grown first."""
    cases = peer_shapes.random_cases(count * len(peer_shapes.KERNELS), seed)
    gens = []
    for i, (k, s) in enumerate(cases):
        if k != kernel:
            continue
        g = peer_shapes.grid_generator(k, s, 1000 * seed + i)
        g["max_bytes"] = MAX_BYTES
        g["comment"] = f"random draw {i} (bench/peer_shapes.py, seed {seed})"
        gens.append(g)
    return gens


def add(path, kernel, gens, dry_run=False):
    """Appends the generators whose seed the grid does not hold yet, keeping the file's own
    formatting above them; returns how many were new."""
    try:
        with open(path) as f:
            text = f.read()
        doc = json.loads(text)
    except OSError as e:
        raise SystemExit(f"grid_add_random.py: cannot read the grid {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise SystemExit(f"grid_add_random.py: {path} is not valid JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("generators"), list):
        raise SystemExit(f'grid_add_random.py: {path} is not a shape grid ({{"kernel": ..., "generators": [...]}})')
    if doc.get("kernel") != kernel:
        raise SystemExit(f"grid_add_random.py: {path} is the grid of {doc.get('kernel')!r}, not {kernel!r}")
    seeds = {g.get("seed") for g in doc["generators"] if isinstance(g, dict)}
    new = [g for g in gens if g["seed"] not in seeds]
    if new and not dry_run:
        head, tail = text.rstrip().rsplit("]", 1)  # the generators list's closing bracket
        sep = ",\n" if doc["generators"] else "\n"
        lines = ",\n".join("    " + json.dumps(g, ensure_ascii=False) for g in new)
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(head.rstrip() + sep + lines + "\n  ]" + tail + "\n")
        with open(tmp) as f:
            grown = json.load(f)  # still valid, and nothing else changed
        if grown["generators"][: len(doc["generators"])] != doc["generators"]:
            os.remove(tmp)
            raise SystemExit(f"grid_add_random.py: {path}: appending changed its existing generators; left as it was")
        os.replace(tmp, path)
    return len(new)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kernel", choices=peer_shapes.KERNELS)
    ap.add_argument("--count", type=int, default=64, help="draws to add (default 64)")
    ap.add_argument("--seed", type=int, default=49, help="the draw (default 49; 1-4 and 100-102 are test draws)")
    ap.add_argument("--grid", help="the grid file (default configs/grids/<kernel>.json)")
    ap.add_argument("--dry-run", action="store_true", help="say how many shapes would be added, change nothing")
    args = ap.parse_args()
    if args.count < 1:
        ap.error(f"--count must be at least 1, got {args.count}")
    if args.seed < 0:
        ap.error(f"--seed must be at least 0, got {args.seed}")
    if args.seed in TEST_SEEDS:
        ap.error(f"--seed {args.seed} is one of the test draws {TEST_SEEDS} (the random peers' and bench/testset's): "
                 "tuning on it would score the heuristic on shapes it was fitted on; pick another")
    path = args.grid or os.path.join(ROOT, "configs", "grids", f"{args.kernel}.json")
    n = add(path, args.kernel, draws(args.kernel, args.count, args.seed), args.dry_run)
    verb = "would add" if args.dry_run else "added"
    if n == 0:
        print(f"{path}: already holds the {args.count} draws of seed {args.seed}")
    else:
        print(f"{path}: {verb} {n} random shapes (seed {args.seed})")
        if not args.dry_run:
            print(f"next: aot-runner tune -k {args.kernel} --resume   (measures only the new shapes)")


if __name__ == "__main__":
    main()

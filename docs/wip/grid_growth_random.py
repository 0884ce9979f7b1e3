#!/usr/bin/env python3
"""Session 49: grows each tuning grid by random draws over the space a user may call, not by the
corners one test draw found. bench/peer_shapes.py draws them (log-uniform sizes, every dtype and
length distribution, at most 1.5 GB moved) with the training seed 49; the random peers and
`aot-runner bench --grid` score the heuristic on seeds 1 and 2, so the shapes it is judged on stay
unseen. Each draw is one generator (a single shape) whose seed is 49000 + its index, so a second
run adds nothing. Run from the repository root:
  python3 docs/wip/grid_growth_random.py [kernel ...]   (default: all four; COUNT per kernel, 64)"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import peer_shapes  # noqa: E402

TRAIN_SEED = 49
COUNT = int(os.environ.get("COUNT", "64"))  # per kernel


def generators(kernel):
    cases = peer_shapes.random_cases(COUNT * len(peer_shapes.KERNELS), TRAIN_SEED)
    gens = []
    for i, (k, s) in enumerate(cases):
        if k != kernel:
            continue
        g = peer_shapes.grid_generator(k, s, 1000 * TRAIN_SEED + i)
        g["max_bytes"] = int(peer_shapes.MAX_BYTES * 1.2)  # the grid's own count, not the peers' expectation
        g["comment"] = f"random draw {i} (bench/peer_shapes.py, seed {TRAIN_SEED})"
        gens.append(g)
    return gens


def grow(kernel):
    path = f"configs/grids/{kernel}.json"
    with open(path) as f:
        text = f.read()
    seeds = {g.get("seed") for g in json.loads(text)["generators"]}
    new = [g for g in generators(kernel) if g["seed"] not in seeds]
    if not new:
        print(f"{kernel}: already grown")
        return
    head, tail = text.rstrip().rsplit("]", 1)  # the generators list's closing bracket
    lines = ",\n".join("    " + json.dumps(g, ensure_ascii=False) for g in new)
    with open(path, "w") as f:
        f.write(head.rstrip() + ",\n" + lines + "\n  ]" + tail + "\n")
    with open(path) as f:
        json.load(f)  # still valid
    print(f"{kernel}: added {len(new)} random shapes")


if __name__ == "__main__":
    for k in sys.argv[1:] or peer_shapes.KERNELS:
        grow(k)

"""Random shapes for bench/peers.py --random: each kernel's whole space, not the listed rows.

Issue 6 checks the library on a further set of peers and shapes kept outside the project, so the
fixed rows of bench/peers.py are not enough to trust it. This draws shapes the grids were not
built from: every size log-uniform over the range a user may call (so odd sizes such as M = 37 or
T = 1531 are the rule), every dtype, every length distribution bench/peers.py can generate, from a
few bytes to MAX_BYTES moved. Plain Python (no torch), so its CPU test (tests/test_peer_shapes.py)
runs without a GPU; bench/peers.py turns each draw into tensors.

The same (count, seed) gives the same shapes on any machine.
"""
import argparse
import json
import math
import os
import random

KERNELS = ("jagged_sum", "jagged_mean", "jagged_dense_add", "causal_trailing_mean")
DTYPES = ("f32", "bf16", "f16")
DISTS = ("uniform", "powerlaw", "one_huge")  # bench/peers.py lengths_for()
ELEM_BYTES = {"f32": 4, "bf16": 2, "f16": 2}
# The expected bytes a draw reads and writes stay under this: the peers' fp32 copies of a bf16
# problem and torch.compile's buffers fit the GPU many times over, and one row times in seconds.
MAX_BYTES = 1.5e9
# The ranges drawn from, per size (inclusive, log-uniform).
RANGES = {
    "B": (1, 65536),
    "M": (1, 1024),          # jagged_sum / jagged_mean feature width
    "max_len": (1, 16384),   # jagged row-length bound (one_huge: the huge row's length, x16)
    "N": (1, 16384),         # jagged_dense_add's dense width
    "B_trailing": (1, 128),
    "D": (1, 2048),
    "T": (1, 65536),
    "cf": (1, 1024),
}
POWERLAW_ALPHA = 1.2  # bench/peers.py: Pareto(1.2) with scale max_len / 24, capped at max_len


def log_int(rng, lo, hi):
    """An integer in [lo, hi], log-uniform."""
    return min(hi, max(lo, int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))))


def expected_rows_total(B, max_len, dist):
    """The expected number of values rows (nnz) bench/peers.py draws for these lengths."""
    if dist == "uniform":  # randint(0, max_len + 1)
        return B * max_len / 2.0
    if dist == "powerlaw":  # E[min(X, c)] of a Pareto(alpha) with scale xm, when xm < c
        a, xm, c = POWERLAW_ALPHA, max_len / 24.0, float(max_len)
        per_row = a * xm / (a - 1) - xm ** a * c ** (1 - a) / (a - 1) if xm < c else c
        return B * per_row
    if dist == "one_huge":  # randint(0, max(2, max_len // 64)), one row of max_len
        return (B - 1) * (max(2, max_len // 64) - 1) / 2.0 + max_len
    raise ValueError(f"unknown length distribution {dist!r}")


def expected_bytes(kernel, s):
    """Expected bytes moved by bench/peers.py's fewest-bytes model for the draw `s`."""
    es = ELEM_BYTES[s["dtype"]]
    if kernel in ("jagged_sum", "jagged_mean"):
        nnz = expected_rows_total(s["B"], s["max_len"], s["dist"])
        return nnz * s["M"] * es + (s["B"] + 1) * 8 + s["B"] * s["M"] * es
    if kernel == "jagged_dense_add":
        nnz = expected_rows_total(s["B"], s["N"], s["dist"])
        return nnz * es + 2 * s["B"] * s["N"] * es + (s["B"] + 1) * 8
    if kernel == "causal_trailing_mean":
        return 2 * s["B"] * s["D"] * s["T"] * es
    raise ValueError(f"unknown kernel {kernel!r}")


def draw_one(kernel, rng):
    """One shape of `kernel` (a dict in bench/peers.py's row format), not checked against MAX_BYTES."""
    dtype = rng.choice(DTYPES)
    if kernel in ("jagged_sum", "jagged_mean"):
        dist = rng.choice(DISTS)
        max_len = log_int(rng, *RANGES["max_len"]) * (16 if dist == "one_huge" else 1)
        return dict(B=log_int(rng, *RANGES["B"]), M=log_int(rng, *RANGES["M"]), max_len=max_len, dist=dist,
                    dtype=dtype)
    if kernel == "jagged_dense_add":
        return dict(B=log_int(rng, *RANGES["B"]), N=log_int(rng, *RANGES["N"]), dist=rng.choice(DISTS), dtype=dtype)
    if kernel == "causal_trailing_mean":
        return dict(B=log_int(rng, *RANGES["B_trailing"]), D=log_int(rng, *RANGES["D"]), T=log_int(rng, *RANGES["T"]),
                    cf=log_int(rng, *RANGES["cf"]), dtype=dtype)
    raise ValueError(f"unknown kernel {kernel!r}")


def random_cases(count, seed):
    """`count` (kernel, shape) pairs, the kernels in turn, each shape redrawn until its expected
    bytes are at most MAX_BYTES. Deterministic in (count, seed)."""
    if count < 0:
        raise ValueError(f"the number of random shapes must be at least 0, got {count}")
    rng = random.Random(seed)
    out = []
    for i in range(count):
        kernel = KERNELS[i % len(KERNELS)]
        while True:
            s = draw_one(kernel, rng)
            if expected_bytes(kernel, s) <= MAX_BYTES:
                break
        out.append((kernel, s))
    return out


def grid_generator(kernel, s, seed):
    """The draw `s` as one generator of an aot-runner grid file (USAGE.md, Shapes), so `aot-runner
    bench --grid` can time every config on it and score the shipped heuristic there. The grids'
    `len` is a mean where bench/peers.py bounds the longest row; the lengths are matched by
    distribution, not row for row: uniform has the same bound (a mean of half of it), powerlaw the
    same scale and cap, one_huge short rows of the same mean (the grids' are 0.1 x len on average,
    the peers' max_len / 128) and its huge row capped at the same length."""
    g = {k: v for k, v in s.items() if k not in ("max_len", "dist")}
    if kernel != "causal_trailing_mean":
        bound = s["max_len"] if "max_len" in s else s["N"]
        if s["dist"] == "uniform":
            mean = bound / 2.0
        elif s["dist"] == "powerlaw":
            mean = bound / 4.0  # peers: scale bound / 24; grids: scale len / 6
            g["cap"] = bound
        else:  # one_huge: short rows averaging 0.1 x len, the huge one 0.9 x len x B, capped
            mean = 10.0 * bound / 128.0
            g["cap"] = bound
        g["len"] = max(1, int(round(mean)))
        g["dist"] = s["dist"]
    g["seed"] = seed
    return g


def write_grids(cases, folder, seed):
    """One aot-runner grid file per kernel under `folder` (<kernel>.json); returns their paths."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for kernel in KERNELS:
        gens = [grid_generator(k, s, 1000 * seed + i) for i, (k, s) in enumerate(cases) if k == kernel]
        if not gens:
            continue
        path = os.path.join(folder, f"{kernel}.json")
        with open(path, "w") as f:
            json.dump({"kernel": kernel,
                       "comment": f"bench/peer_shapes.py's random shapes (seed {seed}) as a grid, never tuned",
                       "generators": gens}, f, indent=1)
            f.write("\n")
        paths.append(path)
    return paths


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("count", type=int, nargs="?", default=48, help="shapes to draw (default 48)")
    ap.add_argument("--seed", type=int, default=1, help="the draw (default 1; bench/peers.py --seed)")
    ap.add_argument("--grids", metavar="DIR",
                    help="also write them as aot-runner grid files DIR/<kernel>.json, for "
                         "`aot-runner bench --grid` (every config timed, the heuristic scored)")
    args = ap.parse_args()
    try:
        cases = random_cases(args.count, args.seed)
    except ValueError as e:
        ap.error(str(e))
    for k, s in cases:
        print(k, json.dumps(s), f"{expected_bytes(k, s) / 1e6:.3f} MB")
    if args.grids:
        for path in write_grids(cases, args.grids, args.seed):
            print(f"wrote {path}")


if __name__ == "__main__":  # python3 bench/peer_shapes.py [count] [--seed S] [--grids DIR]
    main()

#!/usr/bin/env python3
"""The timing protocol's floors for small shapes: what a kernel that moves (almost) nothing takes
under bench/peers.py's protocol (triton.testing.do_bench: CUDA events, L2 cleared between
repetitions, median), so a small row's time in docs/PERF.md can be read as floor + its own work.

Four Triton kernels of one block of 128 lanes, each timed in --rounds interleaved rounds (the
median round counts):
  empty          does nothing: the launch and the two events;
  store          writes 128 floats: the floor of any kernel with an output;
  load+store     out[i] = x[i]: one DRAM round trip (L2 was cleared) before the store;
  2 loads+store  out[i] = x[idx[i]]: two dependent round trips, the shape of a jagged kernel
                 (a row's offsets, then its values).

    python3 bench/launch_floor.py [--out out/launch_floor.json] [--rounds 3]
"""
import argparse
import json
import statistics
import sys
import time

import torch
import triton
import triton.language as tl

# The peers' timing (do_bench, L2 cleared, median) and their empty kernel, so these floors are
# measured exactly as the peer table's times are. bench/ is on the path: this file's folder.
from peers import _empty_kernel, bench

LANES = 128


@triton.jit
def _store(out_ptr, LANES: tl.constexpr):
    i = tl.arange(0, LANES)
    tl.store(out_ptr + i, i.to(tl.float32))


@triton.jit
def _load_store(x_ptr, out_ptr, LANES: tl.constexpr):
    i = tl.arange(0, LANES)
    tl.store(out_ptr + i, tl.load(x_ptr + i))


@triton.jit
def _gather_store(idx_ptr, x_ptr, out_ptr, LANES: tl.constexpr):
    i = tl.arange(0, LANES)
    j = tl.load(idx_ptr + i)
    tl.store(out_ptr + i, tl.load(x_ptr + j))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", help="JSON results file to write (default: print only)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds; the median counts")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error(f"--rounds must be at least 1, got {args.rounds}")
    if not torch.cuda.is_available():
        print("launch_floor.py: no CUDA device", file=sys.stderr)
        return 2
    dev = "cuda"
    # The gathered values lie 1 MB apart in a 256 MB buffer, so each lane's load is its own miss.
    x = torch.randn(64 << 20, device=dev)
    idx = torch.arange(LANES, device=dev, dtype=torch.int64) * (x.numel() // LANES)
    out = torch.empty(LANES, device=dev)
    kernels = {
        "empty": lambda: _empty_kernel[(1,)](),
        "store": lambda: _store[(1,)](out, LANES=LANES),
        "load+store": lambda: _load_store[(1,)](x, out, LANES=LANES),
        "2 loads+store": lambda: _gather_store[(1,)](idx, x, out, LANES=LANES),
    }
    _gather_store[(1,)](idx, x, out, LANES=LANES)
    if not torch.equal(out, x[idx]):
        print("launch_floor.py: the gather kernel's output is wrong", file=sys.stderr)
        return 1
    names = list(kernels)
    rounds = {n: [] for n in names}
    for r in range(args.rounds):
        for n in names[r % len(names):] + names[:r % len(names)]:
            rounds[n].append(bench(kernels[n]))
    result = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "date": time.strftime("%Y-%m-%d"),
        "rounds": args.rounds,
        "floors_us": {n: statistics.median(v) for n, v in rounds.items()},
        "rounds_us": rounds,
    }
    for n in names:
        print(f"{n:>14}: {result['floors_us'][n]:6.2f} us  (rounds " + ", ".join(f"{v:.2f}" for v in rounds[n]) + ")")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

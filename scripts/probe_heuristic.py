#!/usr/bin/env python3
"""Where is the shipped heuristic least sure of its pick? Asks `aot-runner explain --json` about
every shape of a lattice of call sizes and ranks them by the forest's own estimate of its pick's
slowdown against the per-shape best (the mean, over the forest's leaves, of the training shapes'
slowdowns for that config). Shapes far above 1 sit where the training grid has no neighbour that
agrees with them: add grid shapes there (configs/grids/<kernel>.json), sweep them with `aot-runner
tune --resume` and re-emit. Session 35 found three such holes this way; the heuristic before each
growth picked 1.02-1.10x the best in geomean on the shapes added, up to 1.70x (docs/PERF.md,
Session 35). The estimate is the model's belief, not a measurement: only a sweep says how wrong a
pick really is. Needs a kernel whose heuristic is a forest (a single tree's leaves carry no
estimate). CPU only; plain Python.

  python3 scripts/probe_heuristic.py --kernel jagged_sum                      # default lattice
  python3 scripts/probe_heuristic.py --kernel jagged_mean --lengths powerlaw \\
      --axis B=4096,16384 --axis M=4,16 --axis max_len=256,1024,4096 --axis dtype=bf16 --top 10
  python3 scripts/probe_heuristic.py --kernel causal_trailing_mean --json > probes.json

The jagged kernels take a call's sizes (B, M or N, nnz, max_len, dtype); with --lengths the
script derives nnz from B and max_len under a length model, so the lattice needs no nnz axis:
uniform (lengths uniform in [0, max_len]: nnz = B x max_len / 2) or powerlaw (Pareto(1.2) whose
mean before the cap is max_len / 4, capped at max_len, as bench/peers.py draws them; skew 4-8).
"""
import argparse
import concurrent.futures
import itertools
import json
import math
import os
import signal
import sys

import aot_explain  # scripts/aot_explain.py: explain as a subprocess

# Lattices that cover each kernel's grid and the space between its generators; one product each.
DEFAULT_AXES = {
    "jagged_sum": [("B", "256,1024,4096,16384,65536"), ("M", "1,4,16,64,256,1024"),
                   ("max_len", "64,256,1024,4096"), ("dtype", "f32,bf16")],
    "jagged_mean": [("B", "256,1024,4096,16384,65536"), ("M", "1,4,16,64,256,1024"),
                    ("max_len", "64,256,1024,4096"), ("dtype", "f32,bf16")],
    "jagged_dense_add": [("B", "64,1024,16384,65536"), ("N", "64,512,4096,16384"), ("dtype", "f32,bf16")],
    "causal_trailing_mean": [("B", "1,8,64,256"), ("D", "4,64,512,1024"), ("T", "64,512,4096,65536"),
                             ("cf", "2,8,32,256"), ("dtype", "f32,bf16")],
}
DEFAULT_LENGTHS = {"jagged_sum": "both", "jagged_mean": "both", "jagged_dense_add": "both"}
JAGGED_ROW_WIDTH = {"jagged_sum": "M", "jagged_mean": "M", "jagged_dense_add": None}
ELEM_BYTES = {"f32": 4, "bf16": 2, "f16": 2}


def fail(msg):
    sys.exit(f"probe_heuristic: {msg}")


def parse_value(text):
    try:
        return int(text)
    except ValueError:
        return text


def parse_axes(specs):
    axes = []
    for spec in specs:
        name, sep, values = spec.partition("=")
        if not sep or not name or not values:
            fail(f"--axis wants NAME=v1,v2,... (got '{spec}')")
        if any(name == n for n, _ in axes):
            fail(f"--axis {name} given twice")
        vals = [parse_value(v) for v in values.split(",") if v != ""]
        if not vals:
            fail(f"--axis {name} has no values (got '{spec}')")
        axes.append((name, vals))
    return axes


def mean_length(max_len, model):
    """Expected row length under the length model, rows at most max_len long."""
    if model == "uniform":
        return max_len / 2.0
    # Pareto(alpha = 1.2) with x_min = max_len / 24 (mean 6 x_min = max_len / 4 before the cap),
    # capped: E[min(X, c)] = x_min a / (a - 1) - x_min^a c^(1 - a) / (a - 1).
    a, xmin = 1.2, max_len / 24.0
    return xmin * a / (a - 1) - xmin ** a * max_len ** (1 - a) / (a - 1)


def shapes(kernel, axes, lengths):
    names = [n for n, _ in axes]
    for values in itertools.product(*[v for _, v in axes]):
        s = dict(zip(names, values))
        if lengths is None:
            yield s, None
            continue
        if kernel == "jagged_dense_add" and "max_len" not in s and "N" in s:
            s["max_len"] = s["N"]  # a row is at most N long
        for need in ("B", "max_len"):
            if need not in s:
                fail(f"--lengths needs a {need} axis (the lattice has {', '.join(names)})")
        for model in (["uniform", "powerlaw"] if lengths == "both" else [lengths]):
            t = dict(s)
            t["nnz"] = int(round(s["B"] * mean_length(s["max_len"], model)))
            yield t, model


def shape_bytes(kernel, s):
    """Values bytes of a jagged call (what dominates its traffic), or None where unknown."""
    es = ELEM_BYTES.get(str(s.get("dtype")))
    if es is None or "nnz" not in s:
        return None
    width = JAGGED_ROW_WIDTH.get(kernel, None)
    return s["nnz"] * (s[width] if width else 1) * es


def explain(runner, kernel, arch, shape):
    try:
        d = aot_explain.explain(runner, kernel, arch, shape)
    except aot_explain.ExplainError as e:
        fail(str(e))
    pick = d["config"]["id"]
    predicted = next((c.get("predicted_slowdown") for c in d.get("leaf_candidates", []) if c["id"] == pick), None)
    if predicted is None:
        fail(f"the {kernel} heuristic on {d.get('arch_used', arch)} gives no slowdown estimate for its pick "
             f"(a single tree's leaves carry none); probing needs a forest")
    return {"predicted_slowdown": predicted, "config": pick, "arch_used": d.get("arch_used")}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", required=True, help="kernel name (see `aot-runner list`)")
    ap.add_argument("--runner", default=os.path.join("build", "aot-runner"), help="the aot-runner binary")
    ap.add_argument("--arch", default="sm90", help="architecture whose heuristic to probe")
    ap.add_argument("--axis", action="append", default=[], metavar="NAME=v1,v2,...",
                    help="one lattice axis (repeat); the lattice is their product. Default: a lattice per kernel")
    ap.add_argument("--lengths", choices=["uniform", "powerlaw", "both", "none"],
                    help="length model that gives a jagged shape its nnz from B and max_len (default: both for "
                         "the jagged kernels, none otherwise; none: the axes give nnz themselves)")
    ap.add_argument("--min-bytes", type=float, default=1e6,
                    help="skip jagged shapes whose values are fewer bytes (default 1e6: under that the launch "
                         "floor decides and the estimates are noise)")
    ap.add_argument("--max-bytes", type=float, default=2e9, help="skip jagged shapes whose values are more bytes")
    ap.add_argument("--threshold", type=float, default=1.15, help="count the shapes whose estimate is above this")
    ap.add_argument("--top", type=int, default=25, help="shapes to list, most doubtful first")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="explain calls run at once")
    ap.add_argument("--json", action="store_true", help="print every probe as JSON")
    args = ap.parse_args()
    if args.top < 0 or args.jobs < 1:
        ap.error(f"--top must be at least 0 and --jobs at least 1 (got {args.top}, {args.jobs})")
    if not os.path.isfile(args.runner):
        fail(f"{args.runner} not found; build first (bash scripts/setup.sh) or pass --runner")
    if args.axis:
        axes = parse_axes(args.axis)
    elif args.kernel in DEFAULT_AXES:
        axes = [(n, [parse_value(v) for v in vals.split(",")]) for n, vals in DEFAULT_AXES[args.kernel]]
    else:
        fail(f"no default lattice for kernel '{args.kernel}' (known: {', '.join(sorted(DEFAULT_AXES))}); give --axis")
    lengths = args.lengths if args.lengths is not None else DEFAULT_LENGTHS.get(args.kernel, "none")
    lengths = None if lengths == "none" else lengths

    todo = []
    for s, model in shapes(args.kernel, axes, lengths):
        b = shape_bytes(args.kernel, s)
        if b is not None and not (args.min_bytes <= b <= args.max_bytes):
            continue
        todo.append((s, model, b))
    if not todo:
        fail("no shape of the lattice is within --min-bytes and --max-bytes")
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        answers = list(pool.map(lambda t: explain(args.runner, args.kernel, args.arch, t[0]), todo))
    probes = [dict(shape=s, lengths=model, values_bytes=b, **a) for (s, model, b), a in zip(todo, answers)]
    probes.sort(key=lambda p: (-p["predicted_slowdown"], json.dumps(p["shape"])))
    above = sum(1 for p in probes if p["predicted_slowdown"] > args.threshold)
    if args.json:
        print(json.dumps({"kernel": args.kernel, "arch": args.arch, "probes": len(probes), "threshold": args.threshold,
                          "above_threshold": above, "results": probes}, indent=1))
        return 0
    print(f"{args.kernel} on {args.arch}: {len(probes)} probes, {above} with an estimate above {args.threshold}x "
          f"({100.0 * above / len(probes):.1f} %), the {min(args.top, len(probes))} most doubtful:")
    for p in probes[:args.top]:
        size = f"  {p['values_bytes'] / 1e6:.0f} MB" if p["values_bytes"] else ""
        model = f" ({p['lengths']} lengths)" if p["lengths"] else ""
        shape = aot_explain.shape_text(p["shape"])
        print(f"  {p['predicted_slowdown']:.3f}x  {p['config']:<28} {shape}{model}{size}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    sys.exit(main())

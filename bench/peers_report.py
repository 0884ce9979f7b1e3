#!/usr/bin/env python3
"""Turns bench/peers.py output into the peer table of docs/PERF.md (between the markers
<!-- peers:begin --> and <!-- peers:end -->) and a bar plot of speedup over the best peer.
A --random run's table goes between <!-- peers-random:begin --> and <!-- peers-random:end -->
instead, its plot to docs/peers-random.svg, so it never replaces the fixed rows' table.

    python3 bench/peers_report.py out/peers.json --commit abc1234 [--perf docs/PERF.md] [--plot docs/peers.svg]
"""
import argparse
import json
import math
import re
import sys


def shape_text(s):
    return " ".join(f"{k}={v}" for k, v in s.items() if k != "dtype") + f" {s['dtype']}"


PEERS = ("eager", "torch.compile", "torch.compile index_add", "triton two-cumsum")  # the columns, in this order


def peer_cell(r, name):
    v = r.get("peers", {}).get(name)
    if not v:
        return "—"
    if "us" not in v:
        return "error"
    return f"{v['us']:.1f}" if v.get("agrees") else f"~~{v['us']:.1f}~~"  # struck out: disagreed


def best_peer(r):
    """(name, µs) of the fastest peer whose output agreed with ours, or None."""
    peers = {k: v["us"] for k, v in r.get("peers", {}).items() if "us" in v and v.get("agrees")}
    return min(peers.items(), key=lambda kv: kv[1]) if peers else None


def disagreed_with_all(r):
    """True when at least one peer ran and none agreed with ours: an error on one side or a
    precision gap (eager's fp32 cumsum over T = 65536 drifts from the exact windows ours sums)."""
    ran = [v for v in r.get("peers", {}).values() if "us" in v]
    return bool(ran) and not any(v.get("agrees") for v in ran)


def random_text(result):
    done, count = len(result["rows"]), result["random"]["count"]
    return (f" Shapes: {count if done == count else f'the first {done} of {count}'} drawn by "
            f"`bench/peer_shapes.py` with seed {result['random']['seed']} (log-uniform sizes over each kernel's "
            "whole space, every dtype and length distribution), not the grids' shapes.")


def table(result, commit, command):
    ceiling = result["copy_ceiling_gbps"]
    lines = [
        f"Measured {result['date']} on {result['device']} (torch {result['torch']}, triton {result['triton']}), "
        f"commit {commit}, command `{command}`. Copy ceiling measured in the same run: {ceiling:.0f} GB/s. "
        + (f"Launch floor (an empty Triton kernel timed the same way): {result['launch_floor_us']:.1f} µs. "
           if "launch_floor_us" in result else "") +
        "GB/s by the fewest-bytes model of BENCH.md; median of triton.testing.do_bench (L2 cleared between reps)"
        + (f", each contender timed in {result['rounds']} interleaved rounds (order rotated per round), the median round; "
           if result.get("rounds", 1) > 1 else "; ") +
        "a peer's time counts only if its output agrees with ours (struck-out times disagreed); "
        "speedup = best agreeing peer's time / ours."
        + (random_text(result) if "random" in result else ""),
        "",
        "| kernel | shape | ours µs | ours GB/s | % of copy | " + " | ".join(f"{p} µs" for p in PEERS)
        + " | best peer | speedup |",
        "|---|---|---:|---:|---:|" + "---:|" * len(PEERS) + "---|---:|",
    ]
    speedups = []
    suspects = []  # rows where every peer that ran disagreed with ours
    for r in result["rows"]:
        if "error" in r:
            lines.append(f"| {r['kernel']} | {shape_text(r['shape'])} | error: {r['error'][:80]} |"
                         + " |" * (len(PEERS) + 4))
            continue
        gbps = r["bytes"] / (r["ours_us"] * 1e-6) / 1e9
        if disagreed_with_all(r):
            suspects.append(f"{r['kernel']} {shape_text(r['shape'])}")
        best = best_peer(r)
        if best:
            name, peer_us = best
            sp = peer_us / r["ours_us"]
            speedups.append(sp)
            best_cols = f"{name} | {sp:.2f}×"
        else:
            best_cols = "— | —"
        lines.append(f"| {r['kernel']} | {shape_text(r['shape'])} | {r['ours_us']:.1f} | {gbps:.0f} | "
                     f"{100 * gbps / ceiling:.0f} % | " + " | ".join(peer_cell(r, p) for p in PEERS)
                     + f" | {best_cols} |")
    if speedups:
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        lines += ["", f"Geomean speedup over the best agreeing peer: {geo:.2f}× over {len(speedups)} shape{'s' if len(speedups) != 1 else ''}; "
                      f"shapes where a peer is faster: {sum(1 for s in speedups if s < 1)}."]
    errors = sum(1 for r in result["rows"] if "error" in r)
    if errors:
        lines += ["", f"Rows where ours failed to run: {errors}."]
    if suspects:
        lines += ["", f"Rows where no peer that ran agreed with ours ({len(suspects)}: an error on either side or a "
                      "precision gap; read them first): " + "; ".join(suspects) + "."]
    return "\n".join(lines), speedups


def plot(result, path):
    """Horizontal bars of our speedup over the best agreeing peer per shape, on a log axis, as SVG
    written by hand (the GPU machine has no matplotlib)."""
    rows = []
    for r in result["rows"]:
        best = best_peer(r)
        if "ours_us" in r and best:
            rows.append((f"{r['kernel']} {shape_text(r['shape'])}", best[1] / r["ours_us"], best[0]))
    if not rows:
        print("no row has both our time and an agreeing peer: no plot")
        return
    left, bar_h, gap, width = 430, 16, 6, 420
    lo = min(0.25, min(v for _, v, _ in rows) / 1.2)
    hi = max(8.0, max(v for _, v, _ in rows) * 1.2)
    def x_of(v):
        return left + width * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
    height = 60 + len(rows) * (bar_h + gap) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 160}" height="{height}" '
           'font-family="sans-serif" font-size="11">',
           f'<rect width="{left + width + 160}" height="{height}" fill="white"/>',
           f'<text x="10" y="20" font-size="14" font-weight="bold">aotune speedup over the best '
           f'agreeing peer (log scale; right of 1 = aotune faster)</text>']
    y = 40
    x1 = x_of(1.0)
    for label, v, peer in rows:
        xv = x_of(v)
        color = "#2e7d32" if v >= 1 else "#c62828"
        out.append(f'<text x="{left - 6}" y="{y + bar_h - 4}" text-anchor="end">'
                   f'{label.replace("&", "&amp;").replace("<", "&lt;")}</text>')
        out.append(f'<rect x="{min(x1, xv):.1f}" y="{y}" width="{abs(xv - x1):.1f}" height="{bar_h}" '
                   f'fill="{color}"><title>{v:.2f}x vs {peer}</title></rect>')
        out.append(f'<text x="{max(x1, xv) + 4:.1f}" y="{y + bar_h - 4}">{v:.2f}x ({peer})</text>')
        y += bar_h + gap
    for tick in (0.25, 0.5, 1, 2, 4, 8, 16):
        if lo <= tick <= hi:
            xt = x_of(tick)
            out.append(f'<line x1="{xt:.1f}" y1="36" x2="{xt:.1f}" y2="{y}" stroke="'
                       f'{"black" if tick == 1 else "#cccccc"}" stroke-width="{1 if tick == 1 else 0.5}"/>')
            out.append(f'<text x="{xt:.1f}" y="{y + 14}" text-anchor="middle">{tick:g}x</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print(f"wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--perf", default="docs/PERF.md")
    ap.add_argument("--plot", help="the SVG to write (default docs/peers.svg, or docs/peers-random.svg "
                                   "for a --random run)")
    ap.add_argument("--command", default="python3 bench/peers.py --lib build-gpu/libaotune.so --out out/peers.json")
    args = ap.parse_args()
    try:
        with open(args.results) as f:
            result = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"peers_report: cannot read {args.results}: {e}")
    text, _ = table(result, args.commit, args.command)
    random_run = "random" in result
    marker, heading = ("peers-random", "Peers on random shapes") if random_run else ("peers", "Peers")
    with open(args.perf) as f:
        perf = f.read()
    block = f"<!-- {marker}:begin -->\n{text}\n<!-- {marker}:end -->"
    if f"<!-- {marker}:begin -->" in perf:
        perf = re.sub(f"<!-- {marker}:begin -->.*<!-- {marker}:end -->", lambda _: block, perf, flags=re.S)
    else:
        perf += f"\n## {heading}\n\n" + block + "\n"
    with open(args.perf, "w") as f:
        f.write(perf)
    plot(result, args.plot or ("docs/peers-random.svg" if random_run else "docs/peers.svg"))
    print(text)


if __name__ == "__main__":
    main()

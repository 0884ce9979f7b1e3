#!/usr/bin/env python3
"""Turns bench/peers.py output into the peer table of docs/PERF.md (between the markers
<!-- peers:begin --> and <!-- peers:end -->) and a bar plot of speedup over the best peer.

    python3 bench/peers_report.py out/peers.json --commit abc1234 [--perf docs/PERF.md] [--plot docs/peers.svg]
"""
import argparse
import json
import math
import re


def shape_text(s):
    return " ".join(f"{k}={v}" for k, v in s.items() if k != "dtype") + f" {s['dtype']}"


def table(result, commit, command):
    ceiling = result["copy_ceiling_gbps"]
    lines = [
        f"Measured {result['date']} on {result['device']} (torch {result['torch']}, triton {result['triton']}), "
        f"commit {commit}, command `{command}`. Copy ceiling measured in the same run: {ceiling:.0f} GB/s. "
        "GB/s by the fewest-bytes model of BENCH.md; median of triton.testing.do_bench (L2 cleared between reps); "
        "a peer's time counts only if its output agrees with ours.",
        "",
        "| kernel | shape | ours µs | ours GB/s | % of copy | best peer | peer µs | speedup |",
        "|---|---|---:|---:|---:|---|---:|---:|",
    ]
    speedups = []
    for r in result["rows"]:
        if "error" in r:
            lines.append(f"| {r['kernel']} | {shape_text(r['shape'])} | error: {r['error'][:80]} | | | | | |")
            continue
        gbps = r["bytes"] / (r["ours_us"] * 1e-6) / 1e9
        peers = {k: v for k, v in r["peers"].items() if "us" in v and v.get("agrees")}
        if peers:
            name, best = min(peers.items(), key=lambda kv: kv[1]["us"])
            sp = best["us"] / r["ours_us"]
            speedups.append(sp)
            peer_cols = f"{name} | {best['us']:.1f} | {sp:.2f}×"
        else:
            peer_cols = "— | — | —"
        lines.append(f"| {r['kernel']} | {shape_text(r['shape'])} | {r['ours_us']:.1f} | {gbps:.0f} | "
                     f"{100 * gbps / ceiling:.0f} % | {peer_cols} |")
    if speedups:
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
        lines += ["", f"Geomean speedup over the best agreeing peer: {geo:.2f}× over {len(speedups)} shapes; "
                      f"shapes where a peer is faster: {sum(1 for s in speedups if s < 1)}."]
    disagree = [(r["kernel"], k) for r in result["rows"] if "peers" in r for k, v in r["peers"].items()
                if "us" in v and not v.get("agrees")]
    if disagree:
        lines.append(f"Peers whose output disagreed with ours (time not counted): {disagree}.")
    return "\n".join(lines), speedups


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not available: no plot")
        return
    labels, values = [], []
    for r in result["rows"]:
        peers = {k: v for k, v in r.get("peers", {}).items() if "us" in v and v.get("agrees")}
        if "ours_us" in r and peers:
            labels.append(f"{r['kernel']} {shape_text(r['shape'])}")
            values.append(min(v["us"] for v in peers.values()) / r["ours_us"])
    fig, ax = plt.subplots(figsize=(10, 0.32 * len(labels) + 1))
    ax.barh(range(len(labels)), values, color=["tab:green" if v >= 1 else "tab:red" for v in values])
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("speedup of aotune over the best peer (log scale)")
    fig.tight_layout()
    fig.savefig(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("--commit", required=True)
    ap.add_argument("--perf", default="docs/PERF.md")
    ap.add_argument("--plot", default="docs/peers.svg")
    ap.add_argument("--command", default="python3 bench/peers.py --lib build-gpu/libaotune.so --out out/peers.json")
    args = ap.parse_args()
    result = json.load(open(args.results))
    text, _ = table(result, args.commit, args.command)
    perf = open(args.perf).read()
    block = f"<!-- peers:begin -->\n{text}\n<!-- peers:end -->"
    if "<!-- peers:begin -->" in perf:
        perf = re.sub(r"<!-- peers:begin -->.*<!-- peers:end -->", lambda _: block, perf, flags=re.S)
    else:
        perf += "\n## Peers\n\n" + block + "\n"
    open(args.perf, "w").write(perf)
    plot(result, args.plot)
    print(text)


if __name__ == "__main__":
    main()

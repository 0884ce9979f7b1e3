#!/usr/bin/env python3
"""Heatmap of the heuristic's slowdown over a bench grid, as a hand-written SVG (no matplotlib).

Reads the CSV of `aot-runner bench --csv FILE`: one row per shape, the shape's fields as
shape.<field> columns, heuristic_slowdown = heuristic time / per-shape best time. Two shape fields
become the axes (by default the two numeric ones with the most distinct values); the shapes that
share a cell (other fields differing) are combined by --agg (worst by default).

  python3 scripts/plot_bench.py out/bench/jagged_sum.csv -o out/bench/jagged_sum.svg
  python3 scripts/plot_bench.py bench.csv --x shape.B --y shape.len --agg geomean
"""
import argparse
import csv
import math
import signal
import sys
from html import escape

CELL_W, CELL_H = 86, 34
LEFT, TOP, RIGHT, BOTTOM = 120, 92, 150, 70


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("csv", help="CSV written by aot-runner bench --csv")
    p.add_argument("-o", "--output", help="SVG file (default: the CSV path with .svg)")
    p.add_argument("--x", help="column for the x axis, e.g. shape.B")
    p.add_argument("--y", help="column for the y axis, e.g. shape.len")
    p.add_argument("--value", default="heuristic_slowdown",
                   help="column to plot (also best_single_slowdown, default_slowdown)")
    p.add_argument("--agg", choices=["max", "geomean", "min"], default="max",
                   help="how shapes sharing a cell combine (default: max, the worst)")
    p.add_argument("--vmax", type=float, default=2.0, help="slowdown shown in full red (default 2)")
    return p.parse_args()


def as_number(text):
    try:
        return float(text)
    except ValueError:
        return None


def pick_axes(rows, x, y):
    fields = [c for c in rows[0] if c.startswith("shape.") and c != "shape.seed"]
    if not fields:
        sys.exit("plot_bench: the CSV has no shape.<field> columns; is it from aot-runner bench --csv?")
    for name in (x, y):
        if name and name not in rows[0]:
            sys.exit(f"plot_bench: no column {name!r}; shape columns: {', '.join(fields)}")

    def distinct(c):
        return len({r[c] for r in rows})

    def numeric(c):
        return all(as_number(r[c]) is not None for r in rows if r[c] != "")

    ranked = sorted(fields, key=lambda c: (not numeric(c), -distinct(c), c))
    x = x or ranked[0]
    y = y or next((c for c in ranked if c != x), x)
    return x, y


def axis_values(rows, column):
    values = {r[column] for r in rows}
    if all(as_number(v) is not None for v in values):
        return sorted(values, key=float)
    return sorted(values)


def combine(values, agg):
    if any(math.isinf(v) for v in values):
        return math.inf
    if agg == "max":
        return max(values)
    if agg == "min":
        return min(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def colour(v, vmax):
    """White-green at 1.0 through yellow to red at vmax (log scale); dark red past it or inf."""
    if math.isinf(v):
        return "#5b0000"
    t = min(max(math.log(max(v, 1.0)) / math.log(vmax), 0.0), 1.0) if vmax > 1 else 1.0
    stops = [(0.0, (232, 245, 233)), (0.35, (255, 235, 130)), (0.7, (245, 130, 50)), (1.0, (190, 20, 20))]
    for (t0, c0), (t1, c1) in zip(stops, stops[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return "#%02x%02x%02x" % tuple(round(a + (b - a) * f) for a, b in zip(c0, c1))
    return "#be1414"


def label(v):
    return "inf" if math.isinf(v) else f"{v:.2f}"


def main():
    a = parse_args()
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_bench: {a.csv} has no rows")
    if a.value not in rows[0]:
        sys.exit(f"plot_bench: no column {a.value!r} in {a.csv}")
    x, y = pick_axes(rows, a.x, a.y)
    xs, ys = axis_values(rows, x), axis_values(rows, y)
    cells = {}
    for r in rows:
        cells.setdefault((r[x], r[y]), []).append(float(r[a.value]))
    grid = {k: combine(v, a.agg) for k, v in cells.items()}
    all_values = [float(r[a.value]) for r in rows]
    finite = [v for v in all_values if not math.isinf(v)]
    geomean = (math.exp(sum(math.log(v) for v in finite) / len(finite))
               if finite and len(finite) == len(all_values) else math.inf)

    width = LEFT + CELL_W * len(xs) + RIGHT
    height = TOP + CELL_H * len(ys) + BOTTOM
    first = rows[0]
    title = (f"{first['kernel']} on {first['arch']}: {a.value.replace('_', ' ')} "
             f"(heuristic of {first['heuristic_arch']})")
    if first.get("simulated") == "true":
        title += " [SIMULATED device]"
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">{escape(title)}</text>',
           f'<text x="{LEFT}" y="44">{len(rows)} shapes; geomean {label(geomean)}, worst '
           f'{label(max(all_values))}; cell = {a.agg} over shapes sharing it; grey = no shape</text>']
    for i, xv in enumerate(xs):
        cx = LEFT + CELL_W * i + CELL_W / 2
        svg.append(f'<text x="{cx}" y="{TOP - 8}" text-anchor="middle">{escape(xv)}</text>')
    svg.append(f'<text x="{LEFT + CELL_W * len(xs) / 2}" y="{TOP - 28}" text-anchor="middle" '
               f'font-weight="bold">{escape(x)}</text>')
    for j, yv in enumerate(ys):
        cy = TOP + CELL_H * j + CELL_H / 2 + 4
        svg.append(f'<text x="{LEFT - 8}" y="{cy}" text-anchor="end">{escape(yv)}</text>')
        for i, xv in enumerate(xs):
            v = grid.get((xv, yv))
            fill = "#dddddd" if v is None else colour(v, a.vmax)
            rx, ry = LEFT + CELL_W * i, TOP + CELL_H * j
            n = len(cells.get((xv, yv), []))
            tip = f"{x}={xv}, {y}={yv}: " + ("no shape" if v is None else f"{label(v)} over {n} shape(s)")
            svg.append(f'<rect x="{rx}" y="{ry}" width="{CELL_W}" height="{CELL_H}" fill="{fill}" '
                       f'stroke="white"><title>{escape(tip)}</title></rect>')
            if v is not None:
                dark = math.isinf(v) or v >= a.vmax ** 0.8
                svg.append(f'<text x="{rx + CELL_W / 2}" y="{ry + CELL_H / 2 + 4}" text-anchor="middle" '
                           f'fill="{"white" if dark else "black"}">{label(v)}</text>')
    svg.append(f'<text x="{LEFT - 8}" y="{TOP - 8}" text-anchor="end" font-weight="bold">'
               f'{escape(y)}</text>')
    # Colour bar: 1.0 at the top to vmax at the bottom.
    bx, by, bh, steps = LEFT + CELL_W * len(xs) + 30, TOP, max(CELL_H * len(ys), 120), 24
    for s in range(steps):
        v = math.exp(math.log(a.vmax) * s / (steps - 1)) if a.vmax > 1 else 1.0
        svg.append(f'<rect x="{bx}" y="{by + bh * s / steps}" width="18" height="{bh / steps + 0.5}" '
                   f'fill="{colour(v, a.vmax)}"/>')
    svg.append(f'<text x="{bx + 24}" y="{by + 10}">1.00 (oracle)</text>')
    svg.append(f'<text x="{bx + 24}" y="{by + bh}">&#8805; {a.vmax:.2f}</text>')
    svg.append("</svg>")
    out = a.output or (a.csv[:-4] if a.csv.endswith(".csv") else a.csv) + ".svg"
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")
    print(f"plot_bench: wrote {out} ({x} x {y}, {len(rows)} shapes)")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the output quietly
    main()

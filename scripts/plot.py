#!/usr/bin/env python3
"""plot.py: the benchmark charts of docs/img/, drawn from build/bench/bench's JSON.

    python3 scripts/plot.py [--out DIR] RESULTS.json [RESULTS.json ...]

Each RESULTS.json is what `build/bench/bench --size X --json FILE` writes (one
file per data size; see tests/bench/bench.c). The charts are plain SVG
written here, with no plotting library: text stays text, the only font is
the generic "sans-serif", so GitHub's Markdown view shows them as they are.

  DIR/speedup.svg          the headline: for each comparison, the best
                           NoSQL variant's speed-up over its baseline (the
                           relational query, or the reference the workload
                           names), log scale, at the largest data size
  DIR/cost-<feature>.svg   per feature (bench workload group): for each
                           comparison, the cost per unit (ns per row, per
                           query, ...) of every variant as the data grows,
                           log-log; relational variants dashed

A comparison is one table of the bench output: a baseline row and the
variants after it. The same comparison at several sizes is matched by its
feature, workload name and rank among the tables of that name. Variants
whose answer disagreed with the baseline are left out (the bench already
reports them as failures).

Exit code 0, or 1 (message on stderr) when a file cannot be read.
"""
import json
import math
import os
import re
import sys

FONT = 'font-family="sans-serif"'
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22"]


def esc(s):
    """Text for SVG: XML special characters escaped."""
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def feature_of(r):
    """The bench workload group of a result (older files have no "feature": the workload's prefix)."""
    if r.get("feature"):
        return r["feature"]
    w = r["workload"]
    return w.split(":", 1)[0] if ":" in w else "nested"


def is_relational(name):
    """A variant that is the relational way (dashed lines; never the headline's best variant)."""
    return bool(re.match(r"(relational|recursive CTE|SQL (loop|superstep)|no index)", name))


def comparisons(results):
    """The tables of one results file: [(key, [result, ...])], key = (feature, workload, rank)."""
    out, seen = [], {}
    for r in results:
        if r.get("baseline") or not out:
            name = (feature_of(r), r["workload"])
            seen[name] = seen.get(name, 0) + 1
            out.append(((name[0], name[1], seen[name]), []))
        out[-1][1].append(r)
    return out


def nice_ratio(x):
    """A speed-up as text: 2.4x, 35x, 1,200x; below 1 as a slow-down 0.42x."""
    if x >= 100:
        return "{:,.0f}x".format(x)
    if x >= 10:
        return "{:.0f}x".format(x)
    return "{:.2g}x".format(x) if x < 1 else "{:.1f}x".format(x)


def clip(s, n):
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def svg_open(width, height, title):
    return [
        '<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}">'.format(width, height),
        "<title>{}</title>".format(esc(title)),
        '<rect width="100%" height="100%" fill="#ffffff"/>',
    ]


def headline(files, path):
    """speedup.svg: one bar per comparison of the largest size, log scale around 1x."""
    data = max(files, key=lambda d: d["scale"])
    rows = []
    for key, table in comparisons(data["results"]):
        base = table[0]
        if base["median"] <= 0 or base["variant"].startswith(("C:", "bare scan", "for scale")):
            continue
        best = None
        for r in table[1:]:
            if r["agree"] and not is_relational(r["variant"]) and r["median"] > 0:
                if best is None or r["median"] < best["median"]:
                    best = r
        if best is None:
            continue
        rows.append((key, base, best, base["median"] / best["median"]))
    lo, hi = 0.5, 2.0
    for _, _, _, s in rows:
        lo, hi = min(lo, s / 1.5), max(hi, s * 1.5)
    lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
    label_w, plot_w, row_h, top = 430, 420, 22, 70
    width = label_w + plot_w + 230
    height = top + row_h * (len(rows) + len({k[0] for k, _, _, _ in rows})) + 50

    def x(v):
        return label_w + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    out = svg_open(width, height, "Speed-up of each technique over its baseline")
    out.append('<text x="10" y="24" {} font-size="17" font-weight="bold">Speed-up of the best NoSQL variant over '
               'its baseline (log scale; right of 1x = faster)</text>'.format(FONT))
    out.append('<text x="10" y="44" {} font-size="12" fill="#444">nosql {}, SQLite {}, bench size x{}; label: '
               'workload (data size); right: the variant</text>'.format(
                   FONT, esc(data.get("nosql", "?")), esc(data.get("sqlite", "?")), esc(data["scale"])))
    y = top
    ticks = [10 ** e for e in range(int(math.log10(lo)), int(math.log10(hi)) + 1)]
    grid_top = y - 8
    for t in ticks:
        out.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="{3}" stroke-width="1"/>'.format(
            x(t), grid_top, height - 40, "#333" if t == 1 else "#ddd"))
        out.append('<text x="{:.1f}" y="{}" {} font-size="11" text-anchor="middle">{}</text>'.format(
            x(t), height - 24, FONT, nice_ratio(t)))
    feature = None
    for key, base, best, s in rows:
        if key[0] != feature:
            feature = key[0]
            out.append('<text x="10" y="{}" {} font-size="13" font-weight="bold">{}</text>'.format(
                y + 15, FONT, esc(feature)))
            y += row_h
        label = "{} ({})".format(re.sub(r"^[^:]*: ", "", key[1]), base["size"])
        out.append('<text x="{}" y="{}" {} font-size="11" text-anchor="end">{}</text>'.format(
            label_w - 8, y + 14, FONT, esc(clip(label, 66))))
        x0, x1 = x(1), x(s)
        color = "#2ca02c" if s >= 1 else "#d62728"
        out.append('<rect x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="{}"/>'.format(
            min(x0, x1), y + 3, abs(x1 - x0) or 1, row_h - 6, color))
        out.append('<text x="{:.1f}" y="{}" {} font-size="11">{}  {}</text>'.format(
            max(x0, x1) + 4, y + 14, FONT, esc(nice_ratio(s)), esc(clip(best["variant"], 34))))
        y += row_h
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return len(rows)


def log_ticks(lo, hi):
    """Ticks 1, 2, 5 x 10^k inside [lo, hi] (or just the decades when there are many)."""
    e0, e1 = int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi)))
    steps = (1, 2, 5) if e1 - e0 <= 3 else (1,)
    return [m * 10 ** e for e in range(e0, e1 + 1) for m in steps if lo <= m * 10 ** e <= hi]


def fmt_ns(v):
    if v >= 1e6:
        return "{:g} ms".format(v / 1e6)
    if v >= 1e3:
        return "{:g} \u00b5s".format(v / 1e3)
    return "{:g} ns".format(v)


def cost_chart(feature, files, path):
    """cost-<feature>.svg: a panel per comparison, ns per unit against the data size, log-log."""
    files = sorted(files, key=lambda d: d["scale"])
    panels = {}
    order = []
    for d in files:
        for key, table in comparisons(d["results"]):
            if key[0] != feature:
                continue
            if key not in panels:
                panels[key] = {}
                order.append(key)
            for r in table:
                if r["agree"] and r["ns_per_unit"] > 0:
                    panels[key].setdefault(r["variant"], []).append((d["scale"], r["ns_per_unit"], r["size"], r["unit"]))
    order = [k for k in order if any(len(v) >= 2 for v in panels[k].values())]
    if not order:
        return 0
    pw, ph, left, legend_h = 560, 210, 80, 16
    heights = [ph + 70 + legend_h * len(panels[k]) for k in order]
    width, height = left + pw + 40, 50 + sum(heights)
    out = svg_open(width, height, "Cost per unit as the data grows: " + feature)
    out.append('<text x="10" y="26" {} font-size="17" font-weight="bold">{}: cost per unit as the data grows '
               '(log-log; dashed = relational)</text>'.format(FONT, esc(feature)))
    y0 = 50
    for key, h in zip(order, heights):
        series = panels[key]
        pts = [p for v in series.values() for p in v]
        unit = pts[0][3]
        xs = sorted({p[0] for p in pts})
        ylo, yhi = min(p[1] for p in pts), max(p[1] for p in pts)
        ylo, yhi = 10 ** math.floor(math.log10(ylo)), 10 ** math.ceil(math.log10(yhi))
        if ylo == yhi:
            yhi *= 10
        xlo, xhi = xs[0] / 1.25, xs[-1] * 1.25
        top = y0 + 24

        def px(v):
            return left + pw * (math.log(v) - math.log(xlo)) / (math.log(xhi) - math.log(xlo))

        def py(v):
            return top + ph - ph * (math.log(v) - math.log(ylo)) / (math.log(yhi) - math.log(ylo))

        out.append('<text x="10" y="{}" {} font-size="13" font-weight="bold">{}</text>'.format(
            y0 + 14, FONT, esc(clip(re.sub(r"^[^:]*: ", "", key[1]) + ("" if key[2] == 1 else " (#%d)" % key[2]), 90))))
        out.append('<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>'.format(left, top, pw, ph))
        for t in log_ticks(ylo, yhi):
            out.append('<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#eee"/>'.format(left, py(t), left + pw, py(t)))
            out.append('<text x="{}" y="{:.1f}" {} font-size="10" text-anchor="end">{}</text>'.format(
                left - 5, py(t) + 3, FONT, esc(fmt_ns(t))))
        out.append('<text x="14" y="{:.1f}" {} font-size="10" transform="rotate(-90 14 {:.1f})" '
                   'text-anchor="middle">per {}</text>'.format(top + ph / 2, FONT, top + ph / 2, esc(unit)))
        for sx in xs:
            size = next(p[2] for p in pts if p[0] == sx).split(",")[0]
            out.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#eee"/>'.format(px(sx), top, top + ph))
            out.append('<text x="{:.1f}" y="{}" {} font-size="10" text-anchor="middle">{}</text>'.format(
                px(sx), top + ph + 14, FONT, esc(clip(size, 28))))
        ly = top + ph + 34
        for i, (name, p) in enumerate(series.items()):
            color = PALETTE[i % len(PALETTE)]
            dash = ' stroke-dasharray="6 4"' if is_relational(name) else ""
            p = sorted(p)
            coords = " ".join("{:.1f},{:.1f}".format(px(a), py(b)) for a, b, _, _ in p)
            out.append('<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{}/>'.format(coords, color, dash))
            for a, b, _, _ in p:
                out.append('<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}"/>'.format(px(a), py(b), color))
            out.append('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>'.format(
                left, ly - 4, left + 24, ly - 4, color, dash))
            out.append('<text x="{}" y="{}" {} font-size="11">{}</text>'.format(
                left + 30, ly, FONT, esc(clip(name, 90))))
            ly += legend_h
        y0 += h
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return len(order)


def main(argv):
    out_dir, paths = "docs/img", []
    i = 1
    while i < len(argv):
        if argv[i] == "--out" and i + 1 < len(argv):
            out_dir = argv[i + 1]
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        sys.stderr.write("usage: plot.py [--out DIR] RESULTS.json...\n")
        return 1
    files = []
    for p in paths:
        try:
            with open(p) as f:
                files.append(json.load(f))
        except (OSError, ValueError) as e:
            sys.stderr.write("plot.py: cannot read {}: {}\n".format(p, e))
            return 1
    os.makedirs(out_dir, exist_ok=True)
    n = headline(files, os.path.join(out_dir, "speedup.svg"))
    print("{}: {} comparisons".format(os.path.join(out_dir, "speedup.svg"), n))
    features = []
    for d in files:
        for r in d["results"]:
            if feature_of(r) not in features:
                features.append(feature_of(r))
    for feat in features:
        path = os.path.join(out_dir, "cost-{}.svg".format(re.sub(r"[^a-z0-9_]+", "_", feat.lower())))
        n = cost_chart(feat, files, path)
        if n:
            print("{}: {} comparisons".format(path, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

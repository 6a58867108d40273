#!/usr/bin/env python3
"""plot.py: the benchmark charts of docs/img/, drawn from build/bench/bench's JSON.

    python3 scripts/plot.py [--out DIR] RESULTS.json [RESULTS.json ...]

Each RESULTS.json is what `build/bench/bench --size X --json FILE` writes (one
file per bench size; see tests/bench/bench.c). The charts are plain SVG
written here, with no plotting library: text stays text, the only font is
the generic "sans-serif", so GitHub's Markdown view shows them as they are.

  DIR/speedup.svg          the headline: for each comparison whose baseline
                           is SQLite alone (or application code), the
                           speed-up over that named baseline of the best
                           variant that calls the extension and of the best
                           plain-SQL version of the NoSQL model, log scale,
                           at the largest data size of the largest run
  DIR/cost-<feature>.svg   per feature (bench workload group): a panel per
                           comparison, the cost per unit (ns per row, per
                           query, ...) of every variant against the data
                           size the bench ran it on, log-log

What each variant is comes from the bench's "kind" field, never from its
name: "relational" (SQLite alone: relational SQL, R*Tree, FTS5, JSON1),
"extension" (calls the extension), "model" (the NoSQL model in plain SQL, no
extension call: a plain table, a shadow table read directly), "c" (C code
outside SQL: the extension's core called directly, an application loop) and
"floor" (a cost floor for scale). Each kind has its own line style; the
headline credits only "extension" and "model" variants, each in its colour.

A comparison is a workload name within a feature. Its points are placed by
the data size ("n", in "n_unit"s) that the bench reports, not by the bench
size: a workload run at two data sizes in one run gives two points. A
comparison with one data size in every run (a kernel on fixed, cache-sized
input) has no growth to draw: it is named in a note under the chart (a
feature with nothing to draw gets no chart, and an older one is removed). When
two runs give the same data size, the larger run's figure is kept. Variants
whose answer disagreed with the baseline are left out (the bench already
reports them as failures).

No text is cut: the canvas grows to the longest text, estimated as font
size x characters x CHAR_W (CHAR_W_BOLD for bold), which is wider than
sans-serif text really is; tests/plot/check.py checks that every text fits.

Exit code 0, or 1 (message on stderr) when a file cannot be read, lacks the
"kind" and "n" fields, or names one workload twice at one data size.
"""
import json
import math
import os
import re
import sys

FONT = 'font-family="sans-serif"'
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
           "#bcbd22"]
# Width of one character in ems: above the average of sans-serif fonts, so that
# an estimate is an upper bound for ordinary text.
CHAR_W = 0.6
CHAR_W_BOLD = 0.66
MARGIN = 10

# kind -> (what it is, in legends; SVG stroke-dasharray or None for solid)
KINDS = {
    "relational": ("relational, SQLite alone", "7 4"),
    "extension": ("the extension", None),
    "model": ("NoSQL model in plain SQL", "2 3"),
    "c": ("C code outside SQL", "9 3 2 3"),
    "floor": ("cost floor, for scale", "1 6"),
}
# The headline's bars: kind -> (colour, legend text)
CREDITED = [
    ("extension", "#1f77b4", "the extension: its best variant (calls the extension's functions or tables)"),
    ("model", "#ff7f0e", "the NoSQL model in plain SQL: its best variant (no extension call at query time)"),
]


class PlotError(Exception):
    pass


def esc(s):
    """Text for SVG: XML special characters escaped."""
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def text_width(s, size, bold=False):
    return len(s) * size * (CHAR_W_BOLD if bold else CHAR_W)


def text(x, y, s, size, anchor="start", bold=False, fill=None, extra=""):
    return '<text x="{:.1f}" y="{:.1f}" {} font-size="{}"{}{}{}{}>{}</text>'.format(
        x, y, FONT, size, ' text-anchor="{}"'.format(anchor) if anchor != "start" else "",
        ' font-weight="bold"' if bold else "", ' fill="{}"'.format(fill) if fill else "", extra, esc(s))


def wrap(s, size, width):
    """s cut at spaces into lines no wider than width (a longer word stays whole)."""
    lines, cur = [], ""
    for word in s.split(" "):
        if cur and text_width(cur + " " + word, size) > width:
            lines.append(cur)
            cur = word
        else:
            cur = (cur + " " + word) if cur else word
    return lines + ([cur] if cur else [])


def nice_ratio(x):
    """A speed-up as text: 2.4x, 35x, 1,200x; below 1 as a slow-down 0.42x."""
    if x >= 100:
        return "{:,.0f}x".format(x)
    if x >= 10:
        return "{:.0f}x".format(x)
    return "{:.2g}x".format(x) if x < 1 else "{:.1f}x".format(x)


def fmt_count(n):
    """A data size as a tick label: 950, 2.2k, 10k, 1.5M (two significant digits at most)."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")):
        if n >= div:
            v = n / div
            return ("{:.2g}".format(v) if v < 100 else "{:.0f}".format(v)) + suffix
    return "{:g}".format(n)


def fmt_ns(v):
    if v >= 1e6:
        return "{:g} ms".format(v / 1e6)
    if v >= 1e3:
        return "{:g} \u00b5s".format(v / 1e3)
    return "{:g} ns".format(v)


def svg_doc(width, height, title, body):
    return "\n".join([
        '<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}">'.format(
            int(math.ceil(width)), int(math.ceil(height))),
        "<title>{}</title>".format(esc(title)),
        '<rect width="100%" height="100%" fill="#ffffff"/>',
    ] + body + ["</svg>"]) + "\n"


def short_names(results):
    """workload -> its name without the prefix that every workload of its feature shares ("mpath: ")."""
    by_feature = {}
    for r in results:
        by_feature.setdefault(r["feature"], set()).add(r["workload"])
    out = {}
    for names in by_feature.values():
        prefixes = {n.split(": ", 1)[0] if ": " in n else None for n in names}
        common = prefixes.pop() if len(prefixes) == 1 else None
        for n in names:
            out[n] = n[len(common) + 2:] if common else n
    return out


def tables(data, path):
    """The comparisons of one results file: [(feature, workload, n, [result, ...])], baseline first."""
    out, seen = [], set()
    for r in data["results"]:
        for field in ("kind", "n", "n_unit", "feature"):
            if field not in r:
                raise PlotError("{}: a result has no \"{}\" field: rerun build/bench/bench".format(path, field))
        if r["kind"] not in KINDS:
            raise PlotError("{}: unknown kind '{}' of variant '{}'".format(path, r["kind"], r["variant"]))
        if r.get("baseline") or not out:
            key = (r["feature"], r["workload"], r["n"])
            if key in seen:
                raise PlotError("{}: workload '{}' appears twice at data size {:g}: give each comparison its "
                                "own name".format(path, r["workload"], r["n"]))
            seen.add(key)
            out.append((r["feature"], r["workload"], r["n"], []))
        out[-1][3].append(r)
    return out


def headline(files, path):
    """speedup.svg: per comparison of the largest run (at its largest data size), the credited bars."""
    data = max(files, key=lambda d: d["scale"])
    biggest = {}
    for feature, workload, n, table in tables(data, data["_path"]):
        if (feature, workload) not in biggest or n > biggest[(feature, workload)][0]:
            biggest[(feature, workload)] = (n, table)
    short = short_names(data["results"])
    rows = []
    for (feature, workload), (n, table) in sorted(biggest.items(), key=lambda kv: data["results"].index(
            kv[1][1][0])):
        base = table[0]
        if base["kind"] not in ("relational", "c") or base["median"] <= 0 or not base["agree"]:
            continue
        bars = []
        for kind, color, _ in CREDITED:
            best = None
            for r in table[1:]:
                if r["kind"] == kind and r["agree"] and r["median"] > 0:
                    if best is None or r["median"] < best["median"]:
                        best = r
            if best:
                bars.append((color, best, base["median"] / best["median"]))
        if bars:
            label = "{} ({:,.0f} {})".format(short[workload], n, base["n_unit"])
            rows.append((feature, label, base, bars))
    if not rows:
        return 0
    lo, hi = 0.5, 2.0
    for row in rows:
        for _, _, s in row[3]:
            lo, hi = min(lo, s / 1.5), max(hi, s * 1.5)
    lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
    # At least 60 px per decade, so that the decade labels never touch.
    line_h, plot_w = 15, max(420, 60 * round(math.log10(hi / lo)))
    label_w = 8 + max(max(text_width(r[1], 11), text_width("vs " + r[2]["variant"], 10)) for r in rows)
    label_w = max(label_w, 200) + MARGIN
    right_w = max(text_width("{}  {}".format(nice_ratio(s), b["variant"]), 11) for r in rows for _, b, s in r[3])

    def x(v):
        return label_w + plot_w * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

    # Bar text starts right of the bar end, or right of the 1x line for a slow-down.
    width = max(x(hi) + 4 + right_w, label_w + plot_w) + MARGIN
    title = "Speed-up over each comparison's named baseline (log scale; right of 1x = faster)"
    sub = ("nosql {}, SQLite {}, bench size x{}; each comparison at its largest data size. Left: the workload "
           "(data size) and its baseline, SQLite alone or application code. C code outside SQL and cost floors "
           "are not credited.").format(data.get("nosql", "?"), data.get("sqlite", "?"), data["scale"])
    body = []
    y = 26
    width = max(width, text_width(title, 17, True) + 2 * MARGIN)
    body.append(text(MARGIN, y, title, 17, bold=True))
    for line in wrap(sub, 12, width - 2 * MARGIN):
        y += 17
        body.append(text(MARGIN, y, line, 12, fill="#444"))
    for kind, color, legend in CREDITED:
        y += 18
        body.append('<rect x="{}" y="{}" width="14" height="10" fill="{}"/>'.format(MARGIN, y - 9, color))
        body.append(text(MARGIN + 20, y, legend, 11))
        width = max(width, MARGIN + 20 + text_width(legend, 11) + MARGIN)
    top = y + 34  # room for the tick labels above the bars
    y = top + 4
    feature = None
    grid = []
    for feat, label, base, bars in rows:
        if feat != feature:
            feature = feat
            body.append(text(MARGIN, y + 13, feat, 13, bold=True))
            y += 20
        h = max(2, len(bars)) * line_h + 6
        body.append('<g class="comparison" data-baseline="{}">'.format(esc(base["variant"])))
        body.append(text(label_w - 8, y + 11, label, 11, anchor="end"))
        body.append(text(label_w - 8, y + 11 + line_h, "vs " + base["variant"], 10, anchor="end", fill="#555"))
        for i, (color, best, s) in enumerate(bars):
            by = y + i * line_h
            x0, x1 = x(1), x(s)
            body.append('<rect x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="{}"/>'.format(
                min(x0, x1), by + 2, abs(x1 - x0) or 1, line_h - 4, color))
            body.append(text(max(x0, x1) + 4, by + 11, "{}  {}".format(nice_ratio(s), best["variant"]), 11,
                             extra=' data-kind="{}"'.format(best["kind"])))
        body.append("</g>")
        y += h
    height = y + 30
    ticks = [10 ** e for e in range(int(round(math.log10(lo))), int(round(math.log10(hi))) + 1)]
    for t in ticks:
        grid.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="{3}" stroke-width="1"/>'.format(
            x(t), top - 4, y, "#333" if t == 1 else "#ddd"))
        label = ("{:.%df}x" % max(0, -int(round(math.log10(t))))).format(t)  # 0.001x, 1x, 100x
        grid.append(text(x(t), y + 16, label, 11, anchor="middle"))
        grid.append(text(x(t), top - 10, label, 11, anchor="middle"))
    with open(path, "w") as f:
        f.write(svg_doc(width, height, "Speed-up of each technique over its named baseline", grid + body))
    return len(rows)


def log_ticks(lo, hi):
    """Ticks 1, 2, 5 x 10^k inside [lo, hi] (or just the decades when there are many)."""
    e0, e1 = int(math.floor(math.log10(lo))), int(math.ceil(math.log10(hi)))
    steps = (1, 2, 5) if e1 - e0 <= 3 else (1,)
    return [m * 10 ** e for e in range(e0, e1 + 1) for m in steps if lo <= m * 10 ** e <= hi]


def line_style(kind):
    dash = KINDS[kind][1]
    return ' stroke-dasharray="{}"'.format(dash) if dash else ""


def cost_chart(feature, files, path):
    """cost-<feature>.svg: a panel per comparison, ns per unit against the data size, log-log."""
    panels, order, unit, noun, base_of = {}, [], {}, {}, {}
    all_results = [r for d in files for r in d["results"]]
    short = short_names(all_results)
    for d in sorted(files, key=lambda d: d["scale"]):
        for feat, workload, n, table in tables(d, d["_path"]):
            if feat != feature:
                continue
            if workload not in panels:
                panels[workload] = {}
                order.append(workload)
            base_of[workload] = table[0]["variant"]
            unit[workload], noun[workload] = table[0]["unit"], table[0]["n_unit"]
            for r in table:
                if r["agree"] and r["ns_per_unit"] > 0:
                    series = panels[workload].setdefault(r["variant"], {"kind": r["kind"], "pts": {}})
                    series["pts"][n] = r["ns_per_unit"]  # a larger run's figure replaces a smaller one's
    drawn = [w for w in order if len({n for s in panels[w].values() for n in s["pts"]}) >= 2]
    skipped = [w for w in order if w not in drawn and panels[w]]
    if not drawn:
        return 0
    pw, ph, left, legend_h = 560, 210, 80, 16
    title = "{}: cost per unit against the data size (log-log)".format(feature)
    width = max(left + pw + 40, text_width(title, 17, True) + 2 * MARGIN)
    body = [text(MARGIN, 26, title, 17, bold=True)]
    # The line styles, drawn once at the top.
    kx, ky = MARGIN, 48
    for kind, (label, _) in KINDS.items():
        w = 30 + text_width(label, 11) + 16
        if kx + w > width - MARGIN:
            kx, ky = MARGIN, ky + 18
        body.append('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#333" stroke-width="2"{}/>'.format(
            kx, ky - 4, kx + 24, ky - 4, line_style(kind)))
        body.append(text(kx + 30, ky, label, 11))
        kx += w
    y0 = ky + 16
    for workload in drawn:
        series = panels[workload]
        pts = [(n, v) for s in series.values() for n, v in s["pts"].items()]
        xs = sorted({n for n, _ in pts})
        ylo, yhi = min(v for _, v in pts), max(v for _, v in pts)
        ylo, yhi = 10 ** math.floor(math.log10(ylo)), 10 ** math.ceil(math.log10(yhi))
        if ylo == yhi:
            yhi *= 10
        xlo, xhi = xs[0] / 1.25, xs[-1] * 1.25
        top = y0 + 24

        def px(v):
            return left + pw * (math.log(v) - math.log(xlo)) / (math.log(xhi) - math.log(xlo))

        def py(v):
            return top + ph - ph * (math.log(v) - math.log(ylo)) / (math.log(yhi) - math.log(ylo))

        body.append('<g class="panel" data-workload="{}">'.format(esc(workload)))
        body.append(text(MARGIN, y0 + 14, short[workload], 13, bold=True))
        width = max(width, MARGIN + text_width(short[workload], 13, True) + MARGIN)
        body.append('<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>'.format(
            left, top, pw, ph))
        for t in log_ticks(ylo, yhi):
            body.append('<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#eee"/>'.format(
                left, py(t), left + pw, py(t)))
            body.append(text(left - 5, py(t) + 3, fmt_ns(t), 10, anchor="end"))
        per = "per " + unit[workload]
        body.append(text(14, top + ph / 2, per, 10, anchor="middle",
                         extra=' transform="rotate(-90 14 {:.1f})"'.format(top + ph / 2)))
        right = 0  # Right end of the last tick label: a label that would overlap it is left out
        for n in xs:
            body.append('<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#eee"/>'.format(
                px(n), top, top + ph))
            half = text_width(fmt_count(n), 10) / 2
            if px(n) - half > right + 4:
                body.append(text(px(n), top + ph + 14, fmt_count(n), 10, anchor="middle",
                                 extra=' class="xtick" data-n="{:g}"'.format(n)))
                right = px(n) + half
        body.append(text(left + pw / 2, top + ph + 28, "data size: {} (log scale)".format(noun[workload]), 10,
                         anchor="middle", fill="#444"))
        ly = top + ph + 48
        for i, (name, s) in enumerate(series.items()):
            color = PALETTE[i % len(PALETTE)]
            p = sorted(s["pts"].items())
            coords = " ".join("{:.1f},{:.1f}".format(px(a), py(b)) for a, b in p)
            body.append('<polyline points="{}" fill="none" stroke="{}" stroke-width="2"{} data-kind="{}" '
                        'data-variant="{}"/>'.format(coords, color, line_style(s["kind"]), s["kind"], esc(name)))
            for a, b in p:
                body.append('<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}" data-n="{:g}"/>'.format(
                    px(a), py(b), color, a))
            body.append('<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>'.format(
                left, ly - 4, left + 24, ly - 4, color, line_style(s["kind"])))
            body.append(text(left + 30, ly, name, 11))
            what = KINDS[s["kind"]][0]
            note = "(baseline, {})".format(what) if name == base_of[workload] else "({})".format(what)
            nx = left + 30 + text_width(name, 11) + 8
            body.append(text(nx, ly, note, 10, fill="#666"))
            width = max(width, nx + text_width(note, 10) + MARGIN)
            ly += legend_h
        body.append("</g>")
        y0 = ly + 14
    if skipped:
        note = ("Not drawn, one data size in every run (no growth to show): " +
                "; ".join("{} ({:,.0f} {})".format(short[w], next(iter(next(iter(panels[w].values()))["pts"])),
                                                 noun[w]) for w in skipped) + ".")
        for line in wrap(note, 11, width - 2 * MARGIN):
            y0 += 15
            body.append(text(MARGIN, y0, line, 11, fill="#444"))
    with open(path, "w") as f:
        f.write(svg_doc(width, y0 + 20, "Cost per unit against the data size: " + feature, body))
    return len(drawn)


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
                d = json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write("plot.py: cannot read {}: {}\n".format(p, e))
            return 1
        d["_path"] = p
        files.append(d)
    os.makedirs(out_dir, exist_ok=True)
    try:
        n = headline(files, os.path.join(out_dir, "speedup.svg"))
        print("{}: {} comparisons".format(os.path.join(out_dir, "speedup.svg"), n))
        features = []
        for d in files:
            for r in d["results"]:
                if r["feature"] not in features:
                    features.append(r["feature"])
        for feat in features:
            path = os.path.join(out_dir, "cost-{}.svg".format(re.sub(r"[^a-z0-9_]+", "_", feat.lower())))
            n = cost_chart(feat, files, path)
            if n:
                print("{}: {} comparisons".format(path, n))
            else:
                print("{}: no comparison with two data sizes: not written".format(path))
                if os.path.exists(path):
                    os.remove(path)  # an older chart would no longer match the results
    except PlotError as e:
        sys.stderr.write("plot.py: {}\n".format(e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

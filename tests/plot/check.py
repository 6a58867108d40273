#!/usr/bin/env python3
"""check.py: scripts/plot.py draws honest charts, and this check can tell.

    python3 tests/plot/check.py

Runs scripts/plot.py on tests/plot/results-*.json (three bench sizes: a
workload whose data sizes grow unevenly, 2000/3000/10000 nodes; one run
twice in a run at two data sizes; a C kernel on the same data at every
size; a variant name with XML special characters and one longer than any
canvas default; a C loop faster than the extension; a slower extension
variant; a baseline whose name does not say "relational") into a temporary
directory, and checks every chart it writes and every chart in docs/img/:

  fits       every text lies inside the canvas; its width is estimated as
             font size x characters x 0.6 (0.66 bold), more than a
             sans-serif font needs
  no cuts    no text is ellipsized (plot.py widens the canvas instead)
  baselines  each headline comparison names its baseline ("vs ..."); each
             cost panel marks one legend entry "(baseline, ...)"
  x = size   in each cost panel every point's x is a + b log(n) of its data
             size n (b > 0), and every x tick sits at its size with a label
             that reads as that size (2.2k for 2222)
  kinds      line styles follow the bench's "kind": relational dashed, the
             extension solid; the headline credits only the extension and
             the plain-SQL model, never C code or a cost floor

Then the negative cases: charts broken on purpose (a title past the edge,
an ellipsized label, a baseline left unnamed, points spaced evenly instead
of by size, a tick label that lies, a relational line drawn solid) must
each be caught, and plot.py must refuse results without a "kind" and a
workload named twice at one data size. Prints one line per check and
"N passed, N failed".
"""
import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLOT = os.path.join(ROOT, "scripts", "plot.py")
SVG = "{http://www.w3.org/2000/svg}"
CHAR_W, CHAR_W_BOLD = 0.6, 0.66
# The line style of each kind: relational dashed, the extension solid, the others distinct.
DASH = {"relational": "7 4", "extension": None, "model": "2 3", "c": "9 3 2 3", "floor": "1 6"}
npass = nfail = 0


def check(ok, what):
    global npass, nfail
    print("{} {}".format("PASS" if ok else "FAIL", what))
    if ok:
        npass += 1
    else:
        nfail += 1


def words(el):
    return "".join(el.itertext())


def parse(svg_text):
    return ET.fromstring(svg_text)


def problems_fit(root):
    """Texts that may run past the canvas."""
    out = []
    W, H = float(root.get("width")), float(root.get("height"))
    for t in root.iter(SVG + "text"):
        s = words(t)
        size = float(t.get("font-size", "16"))
        w = len(s) * size * (CHAR_W_BOLD if t.get("font-weight") == "bold" else CHAR_W)
        x, y = float(t.get("x", "0")), float(t.get("y", "0"))
        anchor = t.get("text-anchor", "start")
        x0 = x - (w if anchor == "end" else w / 2 if anchor == "middle" else 0)
        box = (x0, y - size, x0 + w, y + 0.25 * size)
        m = re.match(r"rotate\(\s*(-?90)\s+([-\d.]+)\s+([-\d.]+)\s*\)", t.get("transform", ""))
        if m:  # turned a quarter: the text runs up (or down) through its centre
            cx, cy = float(m.group(2)), float(m.group(3))
            box = (cx - (y - box[1]), cy - (box[2] - cx), cx + (box[3] - y), cy + (cx - box[0]))
        if box[0] < 0 or box[1] < 0 or box[2] > W or box[3] > H:
            out.append("text '{}' spans x {:.0f}..{:.0f}, y {:.0f}..{:.0f} on a {:g} x {:g} canvas".format(
                s[:50], box[0], box[2], box[1], box[3], W, H))
    return out


def problems_cut(root):
    return ["text '{}' is ellipsized".format(words(t)) for t in root.iter(SVG + "text")
            if "\u2026" in words(t)]


def problems_baseline(root):
    """Every headline comparison names its baseline; every cost panel marks one."""
    out = []
    for g in root.iter(SVG + "g"):
        texts = [words(t) for t in g.iter(SVG + "text")]
        if g.get("class") == "comparison":
            if "vs " + g.get("data-baseline", "") not in texts or not g.get("data-baseline"):
                out.append("comparison of baseline '{}' does not name it".format(g.get("data-baseline")))
        if g.get("class") == "panel":
            marks = [i for i, s in enumerate(texts) if s.startswith("(baseline")]
            if len(marks) != 1 or marks[0] == 0:
                out.append("panel '{}' marks {} baselines".format(g.get("data-workload"), len(marks)))
    return out


def read_count(s):
    m = re.fullmatch(r"([\d.]+)([kMG]?)", s)
    return float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}[m.group(2)] if m else None


def problems_x(root):
    """In each panel, x = a + b log(n) for every point and tick; tick labels read as their size."""
    out = []
    for g in root.iter(SVG + "g"):
        if g.get("class") != "panel":
            continue
        name = g.get("data-workload")
        pts = [(float(c.get("data-n")), float(c.get("cx"))) for c in g.iter(SVG + "circle")]
        ticks = [(float(t.get("data-n")), float(t.get("x")), words(t)) for t in g.iter(SVG + "text")
                 if t.get("class") == "xtick"]
        ns = sorted({n for n, _ in pts})
        if len(ns) < 2:
            out.append("panel '{}' has fewer than two data sizes".format(name))
            continue
        x_lo = [x for n, x in pts if n == ns[0]][0]
        x_hi = [x for n, x in pts if n == ns[-1]][0]
        b = (x_hi - x_lo) / (math.log(ns[-1]) - math.log(ns[0]))
        if b <= 0:
            out.append("panel '{}': x does not grow with the data size".format(name))
            continue
        for n, x in pts + [(n, x) for n, x, _ in ticks]:
            want = x_lo + b * (math.log(n) - math.log(ns[0]))
            if abs(x - want) > 0.6:
                out.append("panel '{}': size {:g} is at x {:.1f}, not {:.1f}".format(name, n, x, want))
        for n, _, label in ticks:
            v = read_count(label)
            if v is None or abs(v - n) > 0.05 * n:
                out.append("panel '{}': tick '{}' labels data size {:g}".format(name, label, n))
        if not ticks:
            out.append("panel '{}' has no x tick".format(name))
    return out


def problems_kind(root):
    """Polylines drawn in their kind's style (relational dashed, the extension solid)."""
    out = []
    for p in root.iter(SVG + "polyline"):
        kind = p.get("data-kind")
        if kind not in DASH or p.get("stroke-dasharray") != DASH[kind]:
            out.append("line of '{}' ({}) drawn with dasharray {}".format(p.get("data-variant"), kind,
                                                                          p.get("stroke-dasharray")))
    return out


CHECKS = [("fits", problems_fit), ("no cuts", problems_cut), ("baselines", problems_baseline),
          ("x = size", problems_x), ("kinds", problems_kind)]


def check_chart(label, svg_text):
    try:
        root = parse(svg_text)
    except ET.ParseError as e:
        check(False, "{} parses as XML: {}".format(label, e))
        return None
    check(root.tag == SVG + "svg" and root.get("width") and root.get("viewBox"),
          "{} is an SVG document with a size".format(label))
    check("<image" not in svg_text and "@font-face" not in svg_text and "url(" not in svg_text,
          "{} has no images, fonts or external references".format(label))
    groups = [g.get("class") for g in root.iter(SVG + "g")]
    want = "comparison" if os.path.basename(label) == "speedup.svg" else "panel"
    check(want in groups, "{} has its {} groups (each {} one <g class=\"{}\">)".format(
        label, want, "comparison" if want == "comparison" else "panel", want))
    for what, fn in CHECKS:
        found = fn(root)
        check(not found, "{} {}{}".format(label, what, ": " + "; ".join(found[:3]) if found else ""))
    return root


def negative(label, svg_text, fn, old, new, count=1):
    """A chart broken on purpose (old -> new in its text) must be caught by fn."""
    broken = svg_text.replace(old, new, count) if isinstance(old, str) else old.sub(new, svg_text, count)
    if broken == svg_text:
        check(False, "negative case {}: the breakage did not apply".format(label))
        return
    found = fn(parse(broken))
    check(bool(found), "negative case {} is caught{}".format(label, ": " + found[0] if found else ""))


def plot_refuses(label, results, out, want):
    path = os.path.join(out, "bad.json")
    with open(path, "w") as f:
        json.dump({"sqlite": "3.40.1", "nosql": "0", "scale": 1, "reps": 1, "results": results}, f)
    p = subprocess.run([sys.executable, PLOT, "--out", os.path.join(out, "bad"), path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    check(p.returncode == 1 and want in p.stderr, "plot.py refuses {}: {}".format(label, p.stderr.strip()))


def main():
    inputs = sorted(glob.glob(os.path.join(ROOT, "tests", "plot", "results-*.json")))
    results = [r for p in inputs for r in json.load(open(p))["results"]]
    out = tempfile.mkdtemp(prefix="nosql-plot-")
    try:
        rc = subprocess.call([sys.executable, PLOT, "--out", out] + inputs, stdout=subprocess.DEVNULL)
        check(rc == 0, "plot.py exits 0")
        charts = {os.path.basename(p): open(p).read() for p in sorted(glob.glob(os.path.join(out, "*.svg")))}
        check(sorted(charts) == ["cost-geohash.svg", "cost-inverted_index.svg", "cost-mpath.svg",
                                 "cost-nested_set.svg", "speedup.svg"], "plot.py writes the five charts")
        for name, svg in charts.items():
            root = check_chart(name, svg)
            if root is None:
                continue
            texts = [words(t) for t in root.iter(SVG + "text")]
            if name == "speedup.svg":
                bars = [(t.get("data-kind"), words(t)) for t in root.iter(SVG + "text") if t.get("data-kind")]
                check({k for k, _ in bars} == {"extension", "model"},
                      "speedup.svg credits the extension and the plain-SQL model, nothing else")
                for want in ('20x  mpath: range <&> "quoted"', "10x  plain table: path range",
                             "0.33x  nested_set: INSERT", "30x  inverted_index MATCH"):
                    check(want in [w for _, w in bars], "speedup.svg shows the bar {}".format(want))
                check(not any("C loop" in w or "full scan" in w or "FTS5" in w for _, w in bars),
                      "speedup.svg credits no C loop, cost floor or SQLite-alone variant")
                for base in ("relational: recursive CTE", "relational: adjacency INSERT", "R*Tree box + filter",
                             "relational: INTERSECT"):
                    check("vs " + base in texts, "speedup.svg names the baseline {}".format(base))
                check("radius search (100,000 points)" in texts, "speedup.svg gives the largest data size")
                check(not any(w.startswith("vs C: ") for w in texts),
                      "speedup.svg leaves out the kernel comparison (no extension or model variant)")
                continue
            feature = name[len("cost-"):-len(".svg")]
            drawn = {r["variant"] for r in results if r["feature"] == feature and "kernel" not in r["workload"]}
            for v in sorted(drawn):
                check(v in texts, "{} names variant {}".format(name, v))
            lines = {p.get("data-variant"): p for p in root.iter(SVG + "polyline")}
            for r in results:
                if r["feature"] == feature and r["variant"] in lines:
                    if lines[r["variant"]].get("data-kind") != r["kind"]:
                        check(False, "{}: {} drawn as {}".format(name, r["variant"], r["kind"]))
            if feature == "geohash":
                check(any("Not drawn" in w for w in texts) and any("C encode kernel (65,536 points)" in w
                                                                   for w in texts),
                      "cost-geohash.svg says why the kernel is not drawn")
                check(lines["full scan, for scale"].get("stroke-dasharray") == DASH["floor"] and
                      lines["R*Tree box + filter"].get("stroke-dasharray") == DASH["relational"],
                      "cost-geohash.svg draws R*Tree dashed and the full scan as a floor")
            if feature == "inverted_index":
                check(len([c for c in root.iter(SVG + "circle")]) == 3 * 6,
                      "cost-inverted_index.svg: a workload run at two data sizes per run gives six points")
        for path in sorted(glob.glob(os.path.join(ROOT, "docs", "img", "*.svg"))):
            check_chart("docs/img/" + os.path.basename(path), open(path).read())

        # Negative cases: each check must fail on a chart broken for it.
        mp, sp = charts.get("cost-mpath.svg", ""), charts.get("speedup.svg", "")
        negative("title past the canvas", mp, problems_fit, re.compile(r"(font-weight=\"bold\">)([^<]*)"),
                 r"\g<1>" + "a title far too long for the canvas " * 8)
        negative("label ellipsized", mp, problems_cut, ">plain table: path range<", ">plain table: pa\u2026<")
        negative("baseline unnamed (speedup)", sp, problems_baseline, ">vs relational: recursive CTE<", "><")
        negative("baseline unmarked (cost)", mp, problems_baseline, ">(baseline, ", ">(")
        even = re.compile(r'cx="([\d.]+)"(.*?)data-n="3000"')
        negative("points evenly spaced, not by size", mp, problems_x, even, r'cx="360.0"\2data-n="3000"')
        negative("tick label that lies", mp, problems_x, ">3k<", ">5k<")
        negative("relational line drawn solid", mp, problems_kind, ' stroke-dasharray="7 4" data-kind', " data-kind")
        row = {"feature": "f", "workload": "f: w", "variant": "v", "kind": "relational", "size": "1 row", "n": 1,
               "n_unit": "rows", "scale": 1, "rows": 1, "median": 1.0, "unit": "row", "ns_per_unit": 1.0,
               "ratio": 1.0, "spread": 0, "baseline": True, "agree": True}
        plot_refuses("a result without kind", [dict((k, v) for k, v in row.items() if k != "kind")], out,
                     'has no "kind" field')
        plot_refuses("a workload twice at one data size", [row, dict(row)], out, "appears twice at data size 1")
    finally:
        shutil.rmtree(out)
    print("{} passed, {} failed".format(npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check.py: scripts/plot.py draws the charts from a small results file.

    python3 tests/plot/check.py

Runs scripts/plot.py on tests/plot/results-*.json (two sizes, two
features, a variant name with XML special characters, a slower NoSQL
variant) into a temporary directory, then checks that every chart parses
as XML, is SVG with text as text, that the headline names each
comparison's best NoSQL variant and each cost chart names every variant of
its feature. Prints one line per check and "N passed, N failed".
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SVG = "{http://www.w3.org/2000/svg}"
npass = nfail = 0


def check(ok, what):
    global npass, nfail
    print("{} {}".format("PASS" if ok else "FAIL", what))
    if ok:
        npass += 1
    else:
        nfail += 1


def texts(path):
    """The text of every <text> element of an SVG file (it must parse as XML)."""
    root = ET.parse(path).getroot()
    return root, ["".join(t.itertext()) for t in root.iter(SVG + "text")]


def main():
    inputs = sorted(glob.glob(os.path.join(ROOT, "tests", "plot", "results-*.json")))
    results = [r for p in inputs for r in json.load(open(p))["results"]]
    with tempfile.TemporaryDirectory() as out:
        rc = subprocess.call([sys.executable, os.path.join(ROOT, "scripts", "plot.py"), "--out", out] + inputs,
                             stdout=subprocess.DEVNULL)
        check(rc == 0, "plot.py exits 0")
        for path in sorted(glob.glob(os.path.join(out, "*.svg"))):
            name = os.path.basename(path)
            try:
                root, words = texts(path)
            except ET.ParseError as e:
                check(False, "{} parses as XML: {}".format(name, e))
                continue
            check(root.tag == SVG + "svg" and root.get("width") and root.get("viewBox"),
                  "{} is an SVG document with a size".format(name))
            raw = open(path).read()
            check("<image" not in raw and "@font-face" not in raw and "url(" not in raw,
                  "{} has no images, fonts or external references".format(name))
            if name == "speedup.svg":
                for v in ("mpath: range <&> \"quoted\"", "nested_set: INSERT"):
                    check(any(v in w for w in words), "speedup.svg names the best variant {}".format(v))
                check(any("0.33x" in w for w in words), "speedup.svg shows a slow-down as 0.33x")
            else:
                feature = name[len("cost-"):-len(".svg")]
                for v in sorted({r["variant"] for r in results if r["feature"] == feature}):
                    check(v in words, "{} names variant {}".format(name, v))
        check(os.path.exists(os.path.join(out, "speedup.svg")), "speedup.svg is written")
        for f in ("mpath", "nested_set"):
            check(os.path.exists(os.path.join(out, "cost-{}.svg".format(f))), "cost-{}.svg is written".format(f))
    print("{} passed, {} failed".format(npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())

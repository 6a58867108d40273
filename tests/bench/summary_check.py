#!/usr/bin/env python3
"""summary_check.py: docs/benchmarks.md's summary table leads somewhere.

    python3 tests/bench/summary_check.py [--anchors] [PAGE]

PAGE (default docs/benchmarks.md) must hold a "## Summary" section whose
first table has one row per measured comparison, each naming its technique
by Katsov's number in the first column and linking to the section of the
page that holds its figures. Checked:

  techniques  every one of Katsov's 17 techniques (1..17) is named by some
              row's first column, so a technique cannot drop out of the table
  links       every row links to at least one heading of the page, and every
              link "(#anchor)" anywhere on the page is an existing heading's
              anchor, computed as GitHub computes it: lower case, ASCII
              punctuation other than '-' and '_' dropped, each space a '-',
              "-1", "-2", ... on later headings with the same anchor (the
              rule of sltSlug in tests/runner/slt.c); headings inside ```
              fences are not headings
  others      every "benchmarks.md#anchor" link in docs/*.md and README.md
              names an existing anchor of the page

Then the negative cases: copies of the page broken on purpose (a row
pointing at a heading that is not there, a technique's rows removed, a row
without a link, a renamed heading) must each be caught. --anchors prints
the page's anchors, one a line, and stops. The last line is
"N passed, N failed".
"""
import glob
import os
import re
import sys


def slug(text):
    out = []
    for c in text:
        if "A" <= c <= "Z":
            out.append(c.lower())
        elif c == " ":
            out.append("-")
        elif ord(c) >= 0x80 or c in "-_" or c.isdigit() or "a" <= c <= "z":
            out.append(c)
    return "".join(out)


def anchors(lines):
    """The anchors of the page's headings, in order, duplicates suffixed."""
    seen, result, fence = {}, [], False
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"^#{1,6} +(.*?)\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            result.append(base if n == 0 else "{}-{}".format(base, n))
    return result


def summary_rows(lines):
    """The rows (cells lists) of the first table under "## Summary"."""
    start = next((i for i, l in enumerate(lines) if l.startswith("## Summary")), None)
    if start is None:
        return None
    rows, in_table = [], False
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("|"):
            in_table = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                rows.append(cells)
        elif in_table:
            break
    return rows[1:]  # the header row names the columns


def problems(text):
    """What is wrong with the page text, as a list of messages."""
    lines = text.split("\n")
    known = set(anchors(lines))
    found = []
    rows = summary_rows(lines)
    if rows is None:
        return ["no '## Summary' section"]
    if not rows:
        return ["the summary section has no table"]
    named = set()
    for cells in rows:
        named.update(int(n) for n in re.findall(r"\b(\d{1,2})\b", cells[0]) if 1 <= int(n) <= 17)
        links = re.findall(r"\]\(#([^)\s]+)\)", "|".join(cells))
        if not links:
            found.append("summary row without a link to a section: " + cells[0] + " | " + cells[1])
    for n in range(1, 18):
        if n not in named:
            found.append("technique {} has no row in the summary table".format(n))
    fence = False
    for k, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in re.findall(r"\]\(#([^)\s]+)\)", line):
            if target not in known:
                found.append("line {}: link to #{}, which is no heading of the page".format(k, target))
    return found


def others(root, known):
    found = []
    for path in sorted(glob.glob(os.path.join(root, "docs", "*.md"))) + [os.path.join(root, "README.md")]:
        with open(path, encoding="utf-8") as f:
            for k, line in enumerate(f, 1):
                for target in re.findall(r"benchmarks\.md#([^)\s]+)", line):
                    if target not in known:
                        found.append("{}:{}: link to benchmarks.md#{}, which is no heading".format(path, k, target))
    return found


def main(argv):
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    args = [a for a in argv if not a.startswith("--")]
    page = args[0] if args else os.path.join(root, "docs", "benchmarks.md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if "--anchors" in argv:
        print("\n".join(anchors(text.split("\n"))))
        return 0
    npass = nfail = 0

    def report(name, msgs):
        nonlocal npass, nfail
        if msgs:
            nfail += 1
            print("FAIL {}:".format(name))
            for m in msgs:
                print("  " + m)
        else:
            npass += 1
            print("ok   " + name)

    report("summary table of " + os.path.relpath(page, root), problems(text))
    report("links into benchmarks.md from docs/ and README.md", others(root, set(anchors(text.split("\n")))))

    lines = text.split("\n")
    rows_at = [i for i, l in enumerate(lines) if l.startswith("| ") and "](#" in l]

    def negative(name, broken, expect):
        msgs = problems(broken)
        nonlocal npass, nfail
        if any(expect in m for m in msgs):
            npass += 1
            print("ok   caught: " + name)
        else:
            nfail += 1
            print("FAIL not caught: {} (got {})".format(name, msgs))

    if rows_at:
        first = rows_at[0]
        target = re.search(r"\]\(#([^)\s]+)\)", lines[first]).group(1)
        bad = list(lines)
        bad[first] = bad[first].replace("](#" + target + ")", "](#" + target + "-gone)", 1)
        negative("a row pointing at a missing heading", "\n".join(bad), "which is no heading")
        bad = list(lines)
        bad[first] = re.sub(r"\[([^\]]*)\]\(#[^)\s]+\)", r"\1", bad[first])
        negative("a row without a link", "\n".join(bad), "without a link")
        heading = next(i for i, l in enumerate(lines) if l.startswith("#") and slug(l.lstrip("#").strip()) == target)
        bad = list(lines)
        bad[heading] = bad[heading] + " (renamed)"
        negative("a heading renamed under a link", "\n".join(bad), "link to #" + target)
    summary = [i for i, l in enumerate(lines) if l.startswith("| ") and re.match(r"\| *[^|]*\b14\b", l)]
    bad = [l for i, l in enumerate(lines) if i not in set(summary)]
    negative("technique 14's rows removed", "\n".join(bad), "technique 14 has no row")
    print("{} passed, {} failed".format(npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

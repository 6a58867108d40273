#!/usr/bin/env python3
"""deps.py: which ext/ file calls into which other ext/ file, from the objects.

    make dist/nosql.so && python3 scripts/deps.py [OBJDIR]

Reads `nm` of each OBJDIR/<file>.o (default build/obj, what `make
dist/nosql.so` builds from ext/<file>.c): the external symbols a file
leaves undefined and another file of the extension defines are the
functions (and data) it takes from that file. Static inline functions and
macros of the headers are not symbols and are not counted; two symbols
every file shares are left out: the API pointer `nosql_sqlite3_api`
(SQLITE_EXTENSION_INIT1 in ext/nosql.c) and the `<feature>Register()` calls
of ext/nosql.c's feature table.

Prints the markdown table docs/ARCHITECTURE.md shows under "Dependencies":
one row per file with the files it uses (the functions named, except for
util.c and plan.c, which nearly every file uses, where only the count is
given), then every pair of files that use each other. Exit code 0 always:
this is a picture, not a check.
"""
import collections
import glob
import os
import subprocess
import sys

SHARED = ("util.c", "plan.c")


def symbols(objdir):
    defs, undefs = {}, {}
    for obj in sorted(glob.glob(os.path.join(objdir, "*.o"))):
        name = os.path.basename(obj)[:-2] + ".c"
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        d, u = set(), set()
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "TDBR":
                d.add(parts[2])
            elif len(parts) == 2 and parts[0] == "U":
                u.add(parts[1])
        defs[name], undefs[name] = d, u
    return defs, undefs


def uses(defs, undefs):
    owner = {s: f for f, d in defs.items() for s in d}
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    for f, u in undefs.items():
        for s in u:
            g = owner.get(s)
            if g is None or g == f or s == "nosql_sqlite3_api":
                continue
            if f == "nosql.c" and s.endswith("Register"):
                continue
            edges[f][g].add(s)
    return edges


def main(argv):
    objdir = argv[0] if argv else "build/obj"
    defs, undefs = symbols(objdir)
    if not defs:
        print("no objects in {}: run make dist/nosql.so first".format(objdir), file=sys.stderr)
        return 1
    edges = uses(defs, undefs)
    print("| file | calls into |")
    print("|---|---|")
    for f in sorted(defs):
        cells = []
        for g in sorted(edges[f], key=lambda g: (g in SHARED, g)):
            syms = sorted(edges[f][g])
            if g in SHARED:
                cells.append("{} ({})".format(g, len(syms)))
            else:
                cells.append("{}: {}".format(g, ", ".join("`{}`".format(s) for s in syms)))
        print("| `{}` | {} |".format(f, "; ".join(cells) if cells else "nothing"))
    print()
    for f in sorted(edges):
        for g in sorted(edges[f]):
            if f < g and f in edges[g]:
                print("circle: {} <-> {} ({} / {})".format(f, g, ", ".join(sorted(edges[f][g])), ", ".join(sorted(edges[g][f]))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

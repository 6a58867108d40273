# tests/hosts/python.py EXT SMOKE: Debian's python3 sqlite3 module loads the
# extension and runs the shared smoke set. Prints "N passed, N failed".
# EXT "--package" loads it through the installed wheel instead
# (sqlite_nosql.load: tests/wheel.sh runs it so in the wheel's venv).
import sqlite3
import sys

ext, smoke = sys.argv[1], sys.argv[2]
db = sqlite3.connect(":memory:")
if ext == "--package":
    import sqlite_nosql

    sqlite_nosql.load(db)
else:
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.enable_load_extension(False)
npass = nfail = 0
for line in open(smoke, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    sql, _, want = line.partition("\t")
    try:
        rows = db.execute(sql).fetchall()
        got = "|".join("NULL" if v is None else str(v) for v in rows[0]) if rows else ""
    except sqlite3.Error as e:
        got = "error: %s" % e
    if "\t" not in line:
        want = got if not got.startswith("error") else ""
    if got == want:
        npass += 1
    else:
        nfail += 1
        print("FAIL python: %s\n  expected: %s\n  actual:   %s" % (sql, want, got))
print("%d passed, %d failed" % (npass, nfail))
sys.exit(1 if nfail else 0)

#!/bin/sh
# pg_gin.sh: inverted_index against PostgreSQL 15's GIN (jsonb_path_ops) on
# the same generated data (issue 29):
#
#   tests/bench/pg_gin.sh [--size X] [--dir DIR] [--reuse]
#
# 1. `build/bench/bench --only nested,inverted_index --save DIR` writes the
#    data those workloads generate: 500,000 people with ~2.77M
#    {skill, level} elements (nested_people.tsv), and the 500k-document
#    plain benchmark, each document {"f0": [terms], ..., "f3": [...]}
#    (inverted_index_500000.tsv); the bench's own tables go to
#    DIR/bench.out.
# 2. A private PostgreSQL 15 cluster in DIR/pg (tests/bench/pg_cluster.sh:
#    initdb and pg_ctl from /usr/lib/postgresql/15/bin, run as the user
#    postgres or nobody through runuser, as initdb refuses root; a Unix
#    socket only, fsync off) loads
#    both into jsonb tables and times CREATE INDEX ... USING gin
#    (... jsonb_path_ops) with maintenance_work_mem 64MB (the default) and
#    1GB, the index bytes (pg_relation_size), and element queries
#    (EXPLAIN ANALYZE's execution time, median of 5, after a warm-up).
# 3. Ours, in /usr/bin/python3 with dist/nosql.so on the same files:
#    'rebuild' of inverted_index NESTED (elements and numbered layouts) and
#    of the plain inverted_index from a content= table, dbstat bytes, and
#    the same queries (median of 5; rows fetched into Python).
#
# Prints one table per data set, peer beside ours with ratios, and the load
# average before and after (the machine may be shared). Skips (exit 0)
# naming the package when PostgreSQL 15 is missing
# (apt-get install postgresql-15).
set -eu

. "$(dirname "$0")/pg_cluster.sh"
PY=/usr/bin/python3
SIZE=1
DIR=
REUSE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    *) echo "usage: tests/bench/pg_gin.sh [--size X] [--dir DIR] [--reuse]" >&2; exit 2 ;;
  esac
done

pgRequire pg_gin
if [ ! -x "$PY" ]; then
  echo "SKIP pg_gin: $PY not found (apt-get install python3)"
  exit 0
fi
for f in build/bench/bench dist/nosql.so; do
  if [ ! -e "$f" ]; then
    echo "pg_gin: $f is missing: run \`make build/bench/bench dist/nosql.so\` first" >&2
    exit 2
  fi
done
KEEP=1
if [ -z "$DIR" ]; then
  DIR=$(mktemp -d /tmp/nosql-pg-gin.XXXXXX)
  KEEP=0
fi
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$REUSE" = 0 ] || [ ! -s "$DIR/nested_people.tsv" ]; then
  t0=$(date +%s)
  build/bench/bench --only nested,inverted_index --size "$SIZE" --save "$DIR" --json "$DIR/bench.json" \
    >"$DIR/bench.out"
  echo "bench: $(($(date +%s) - t0)) s, its tables in $DIR/bench.out"
fi
DOCS=$(ls "$DIR"/inverted_index_*.tsv | sort -t_ -k3 -n | tail -1)

# The cluster: owned by the unprivileged user, listening on a socket in it.
chmod 644 "$DIR"/*.tsv
pgStart "$DIR" "$KEEP"

psql -c "CREATE TABLE people(id int PRIMARY KEY, skills jsonb)" \
  -c "\\copy people FROM '$DIR/nested_people.tsv'" \
  -c "CREATE TABLE docs(id int PRIMARY KEY, doc jsonb)" \
  -c "\\copy docs FROM '$DOCS'" -c "VACUUM ANALYZE people" -c "VACUUM ANALYZE docs"

# Seconds of a CREATE INDEX, from psql's \timing.
build() { # table column mem
  psql -c "DROP INDEX IF EXISTS $1_gin" -c "SET maintenance_work_mem = '$3'" -c "\\timing on" \
    -c "CREATE INDEX $1_gin ON $1 USING gin ($2 jsonb_path_ops)" |
    sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{printf "%.3f", $1 / 1000}'
}
# Median execution time in ms of EXPLAIN ANALYZE over 5 runs after a warm-up, and the rows.
query() { # sql
  psql -c "SET enable_seqscan = off" -c "SELECT count(*) FROM ($1) q" >"$PG/rows"
  for i in 0 1 2 3 4 5; do
    psql -c "SET enable_seqscan = off" -c "EXPLAIN (ANALYZE, TIMING OFF) $1" |
      sed -n 's/.*Execution Time: \([0-9.]*\) ms.*/\1/p' | { [ "$i" = 0 ] && cat >/dev/null || cat; }
  done | sort -n | sed -n 3p | tr '\n' ' '
  tail -1 "$PG/rows"
}

OUT="$DIR/pg.txt"
: >"$OUT"
for t in "people skills" "docs doc"; do
  set -- $t
  b64=$(build "$1" "$2" 64MB)
  b1g=$(build "$1" "$2" 1GB)
  bytes=$(psql -c "SELECT pg_relation_size('$1_gin')")
  echo "build $1 $b64 $b1g $bytes" >>"$OUT"
done
while read -r name sql; do
  echo "query $name $(query "$sql")" >>"$OUT"
done <<'EOF'
s20_excellent SELECT id FROM people WHERE skills @> '[{"skill":"s20","level":"excellent"}]'
s0_poor SELECT id FROM people WHERE skills @> '[{"skill":"s0","level":"poor"}]'
s150_great SELECT id FROM people WHERE skills @> '[{"skill":"s150","level":"great"}]'
f0_t0 SELECT id FROM docs WHERE doc @> '{"f0":["t0"]}'
f0_t0_f1_t1 SELECT id FROM docs WHERE doc @> '{"f0":["t0"],"f1":["t1"]}'
f2_t300 SELECT id FROM docs WHERE doc @> '{"f2":["t300"]}'
EOF

rc=0
"$PY" - "$DIR" "$DOCS" "$OUT" "$PGVERSION" <<'EOF' || rc=$?
import os, sqlite3, statistics, sys, time
d, docs, out, pgversion = sys.argv[1:5]
pg = {}
for line in open(out):
    f = line.split()
    pg[(f[0], f[1])] = f[2:]
db = sqlite3.connect(os.path.join(d, "ours.db"))
db.enable_load_extension(True)
db.load_extension("dist/nosql")
db.executescript("""
PRAGMA journal_mode = off; PRAGMA synchronous = off; PRAGMA cache_size = -1000000;
DROP TABLE IF EXISTS r; DROP TABLE IF EXISTS q; DROP TABLE IF EXISTS a;
DROP TABLE IF EXISTS people; DROP TABLE IF EXISTS d;
CREATE TABLE people(id INTEGER PRIMARY KEY, skills TEXT);
CREATE TABLE d(id INTEGER PRIMARY KEY, f0, f1, f2, f3);
""")
with open(os.path.join(d, "nested_people.tsv")) as f:
    db.executemany("INSERT INTO people VALUES (?, ?)", (l.rstrip("\n").split("\t") for l in f))
with open(docs) as f:
    db.executemany("INSERT INTO d SELECT ?1, json_extract(?2, '$.f0'), json_extract(?2, '$.f1'),"
                   " json_extract(?2, '$.f2'), json_extract(?2, '$.f3')",
                   (l.rstrip("\n").split("\t") for l in f))
db.commit()
nelem = db.execute("SELECT count(*) FROM people, json_each(people.skills)").fetchone()[0]
nterm = db.execute("SELECT sum(json_array_length(f0) + json_array_length(f1) + json_array_length(f2)"
                   " + json_array_length(f3)) FROM d").fetchone()[0]
npeople = db.execute("SELECT count(*) FROM people").fetchone()[0]
ndocs = db.execute("SELECT count(*) FROM d").fetchone()[0]

def rebuild(name, ddl):
    db.execute(ddl)
    t0 = time.perf_counter()
    db.execute("INSERT INTO %s(%s) VALUES ('rebuild')" % (name, name))
    db.commit()
    t = time.perf_counter() - t0
    size = db.execute("SELECT sum(pgsize) FROM dbstat WHERE name IN (SELECT name FROM sqlite_schema"
                      " WHERE tbl_name LIKE ? ESCAPE '\\')", (name + "\\_%",)).fetchone()[0]
    return t, size

def timed(sql):
    rows = len(db.execute(sql).fetchall())
    ts = []
    for _ in range(5):
        t0 = time.perf_counter()
        db.execute(sql).fetchall()
        ts.append((time.perf_counter() - t0) * 1000)
    return statistics.median(ts), rows

ours = {
    "people": [("elements layout", rebuild("r", "CREATE VIRTUAL TABLE r USING inverted_index("
                                                 "skills NESTED(skill, level), content=people)")),
               ("numbered layout", rebuild("q", "CREATE VIRTUAL TABLE q USING inverted_index("
                                                 "skills NESTED(skill, level) NUMBERED, content=people)"))],
    "docs": [("plain inverted_index", rebuild("a", "CREATE VIRTUAL TABLE a USING inverted_index("
                                                    "f0, f1, f2, f3, content=d)"))],
}
units = {"people": (nelem, "element", "%d people, %d elements" % (npeople, nelem)),
         "docs": (nterm, "term", "%d documents, %d terms" % (ndocs, nterm))}
print("\nPostgreSQL %s beside nosql %s (SQLite %s), %s\n" % (
    pgversion, db.execute("SELECT nosql_version()").fetchone()[0], sqlite3.sqlite_version,
    time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
for table in ("people", "docs"):
    n, unit, desc = units[table]
    b64, b1g, pgbytes = pg[("build", table)]
    b64, b1g, pgbytes = float(b64), float(b1g), int(pgbytes)
    print("### build and size: %s\n" % desc)
    print("| structure | build s | ns/%s | bytes | bytes/%s | build x GIN (64MB) | bytes x GIN |" % (unit, unit))
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("| GIN jsonb_path_ops, maintenance_work_mem 64MB | %.2f | %.0f | %d | %.1f | 1.00x | 1.00x |"
          % (b64, b64 * 1e9 / n, pgbytes, pgbytes / n))
    print("| GIN jsonb_path_ops, maintenance_work_mem 1GB | %.2f | %.0f | %d | %.1f | %.2fx | 1.00x |"
          % (b1g, b1g * 1e9 / n, pgbytes, pgbytes / n, b1g / b64))
    for name, (t, size) in ours[table]:
        print("| nosql %s, 'rebuild' from content= | %.2f | %.0f | %d | %.1f | %.2fx | %.2fx |"
              % (name, t, t * 1e9 / n, size, size / n, t / b64, size / pgbytes))
    print()
queries = [
    ("s20_excellent", "SELECT rowid FROM r WHERE r MATCH 'skills:{skill:s20 AND level:excellent}'"),
    ("s0_poor", "SELECT rowid FROM r WHERE r MATCH 'skills:{skill:s0 AND level:poor}'"),
    ("s150_great", "SELECT rowid FROM r WHERE r MATCH 'skills:{skill:s150 AND level:great}'"),
    ("f0_t0", "SELECT rowid FROM a WHERE a MATCH 'f0:t0'"),
    ("f0_t0_f1_t1", "SELECT rowid FROM a WHERE a MATCH 'f0:t0 AND f1:t1'"),
    ("f2_t300", "SELECT rowid FROM a WHERE a MATCH 'f2:t300'"),
]
print("### queries (median of 5; PostgreSQL: EXPLAIN ANALYZE execution time, heap recheck included;"
      " ours: rows fetched into Python)\n")
print("| query | rows PG / ours | PG ms | ours ms | PG / ours |")
print("|---|---:|---:|---:|---:|")
bad = 0
for name, sql in queries:
    pgms, pgrows = pg[("query", name)]
    ms, rows = timed(sql)
    if int(pgrows) != rows or rows == 0:
        bad += 1
    print("| %s | %s / %d%s | %.3f | %.3f | %.1fx |" % (name, pgrows, rows,
          "" if int(pgrows) == rows and rows else " DISAGREE", float(pgms), ms, float(pgms) / ms))
db.close()
os.remove(os.path.join(d, "ours.db"))
sys.exit(1 if bad else 0)
EOF
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc

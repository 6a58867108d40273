#!/bin/sh
# pg_nearest.sh: geo_nearest against PostGIS's `ORDER BY ... <-> ... LIMIT k`
# with a GiST index, on the same points (issue 37, item 1):
#
#   tests/bench/pg_nearest.sh [--size X] [--reps N] [--runs N] [--dir DIR] [--reuse]
#
# 1. `build/bench/bench --only geo_nearest --save DIR` writes the workload's
#    1,000,000 points uniform on the sphere (nearest_points.tsv: id, lat,
#    lon) and its 20 centres on data points with geo_nearest's answers for
#    k = 1, 10 and 100 (nearest_queries.tsv: k, lat, lon, r100, ids, k-th
#    distance).
# 2. A private PostgreSQL 15 cluster (tests/bench/pg_cluster.sh) with the
#    postgis extension loads the points twice: pts_geog(id int, geog
#    geography(Point, 4326)) and pts_geom(id int, geom geometry(Point,
#    4326)), each with a GiST index (build timed), VACUUM ANALYZE, bytes
#    from pg_relation_size. For every centre and k, prepared statements
#      g: SELECT id, ST_Distance(geog, $1, false) FROM pts_geog
#         ORDER BY geog <-> $1 LIMIT $2
#      m: SELECT id, ST_DistanceSphere(geom, $1) FROM pts_geom
#         ORDER BY geom <-> $1 LIMIT $2
#    are run once for their rows, then timed server side: EXPLAIN (ANALYZE,
#    TIMING OFF) EXECUTE's "Execution Time" (no parse, no plan, no network;
#    TIMING OFF leaves only the row counters of the instrumentation), a
#    warm-up round and then --reps rounds of the 20 centres; a round's
#    figure is its mean per query, the table gives the median round.
#    geography's <-> orders by the distance on a sphere (PostGIS computes it
#    on the WGS84 mean radius, 6371008.7714 m) and ST_Distance(.., false) is
#    that distance; geometry's <-> is the planar distance in degrees, what
#    many PostGIS users write for SRID 4326, and not the order on the
#    sphere: its answers are compared, not required to agree.
# 3. After each run of PostGIS's rounds the bench runs again (`--only
#    geo_nearest --json`), so each pair of figures is measured minutes
#    apart at most; --runs N repeats both (the machine may be shared).
#
# Agreement: geography's ids must be geo_nearest's, in order, or where the
# order differs, the distances position by position must agree within 1e-6
# relative once scaled from PostGIS's radius to ours (6372797.560856 m,
# Redis's): only ties or near-ties may swap. Prints the table per run, the
# agreement, sizes and the load average before and after; exits 1 if
# geography disagrees. Skips (exit 0) naming the package when PostgreSQL 15
# (apt-get install postgresql-15) or PostGIS (apt-get install
# postgresql-15-postgis-3) is missing. Not part of make test or make
# test-all: it needs both, and takes a few minutes on 1M points.
set -eu

. "$(dirname "$0")/pg_cluster.sh"
PY=/usr/bin/python3
SIZE=1
REPS=5
RUNS=1
DIR=
REUSE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --size) SIZE=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    *) echo "usage: tests/bench/pg_nearest.sh [--size X] [--reps N] [--runs N] [--dir DIR] [--reuse]" >&2; exit 2 ;;
  esac
done

pgRequire pg_nearest
if [ ! -f "$("$PGBIN/pg_config" --sharedir)/extension/postgis.control" ]; then
  echo "SKIP pg_nearest: PostGIS not found (apt-get install postgresql-15-postgis-3)"
  exit 0
fi
if [ ! -x "$PY" ]; then
  echo "SKIP pg_nearest: $PY not found (apt-get install python3)"
  exit 0
fi
for f in build/bench/bench dist/nosql.so; do
  if [ ! -e "$f" ]; then
    echo "pg_nearest: $f is missing: run \`make build/bench/bench dist/nosql.so\` first" >&2
    exit 2
  fi
done

KEEP=1
if [ -z "$DIR" ]; then
  DIR=$(mktemp -d /tmp/nosql-pg-nearest.XXXXXX)
  KEEP=0
fi
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "$REUSE" = 0 ] || [ ! -s "$DIR/nearest_points.tsv" ]; then
  t0=$(date +%s)
  build/bench/bench --only geo_nearest --size "$SIZE" --reps "$REPS" --save "$DIR" >"$DIR/bench.out"
  echo "bench: $(($(date +%s) - t0)) s, its tables in $DIR/bench.out"
fi

chmod 644 "$DIR"/*.tsv
pgStart "$DIR" "$KEEP" -c shared_preload_libraries=pg_stat_statements

# Seconds of the statements given, from psql's \timing (their sum).
timed() {
  psql -c "\\timing on" "$@" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{s += $1} END {printf "%.1f", s / 1000}'
}
tload=$(timed -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION pg_stat_statements" -c "CREATE TABLE raw(id int, lat float8, lon float8)" \
  -c "\\copy raw FROM '$DIR/nearest_points.tsv'" \
  -c "CREATE TABLE pts_geog AS SELECT id, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography(Point, 4326) AS geog
      FROM raw ORDER BY id" \
  -c "CREATE TABLE pts_geom AS SELECT id, ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geometry(Point, 4326) AS geom
      FROM raw ORDER BY id" -c "DROP TABLE raw")
tgeog=$(timed -c "CREATE INDEX pts_geog_gist ON pts_geog USING gist (geog)")
tgeom=$(timed -c "CREATE INDEX pts_geom_gist ON pts_geom USING gist (geom)")
psql -c "VACUUM ANALYZE pts_geog" -c "VACUUM ANALYZE pts_geom"
{
  echo "postgres $PGVERSION"
  echo "postgis $(psql -c "SELECT postgis_lib_version()")"
  echo "load $tload"
  for t in geog geom; do
    echo "size $t $(psql -c "SELECT count(*), pg_relation_size('pts_$t'), pg_relation_size('pts_${t}_gist') FROM pts_$t" | tr '|' ' ') \
$( [ $t = geog ] && echo "$tgeog" || echo "$tgeom")"
  done
} >"$DIR/pg.txt"

# The statements: their rows once (check.sql), then the timed rounds (time.sql).
"$PY" - sql "$DIR" "$REPS" <<'EOF'
import os, sys
d, reps = sys.argv[2], int(sys.argv[3])
queries = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "nearest_queries.tsv")) if l.strip()]
prep = ("PREPARE g(geography, int) AS SELECT id, ST_Distance(geog, $1, false) FROM pts_geog"
        " ORDER BY geog <-> $1 LIMIT $2;\n"
        "PREPARE m(geometry, int) AS SELECT id, ST_DistanceSphere(geom, $1) FROM pts_geom"
        " ORDER BY geom <-> $1 LIMIT $2;\n")
def arg(q):
    return "'SRID=4326;POINT(%s %s)'" % (q[2], q[1])
with open(os.path.join(d, "check.sql"), "w") as f:
    f.write(prep)
    q = queries[0]
    for s in "gm":
        f.write("\\echo P %s\nEXPLAIN (COSTS OFF) EXECUTE %s(%s, %s);\n" % (s, s, arg(q), q[0]))
    for i, q in enumerate(queries):
        for s in "gm":
            f.write("\\echo Q %s %d\nEXECUTE %s(%s, %s);\n" % (s, i, s, arg(q), q[0]))
with open(os.path.join(d, "time.sql"), "w") as f:
    f.write(prep)
    for k in sorted({int(q[0]) for q in queries}):
        qs = [q for q in queries if int(q[0]) == k]
        for s in "gm":
            for r in range(reps + 1):
                f.write("\\echo R %s %d %d\n" % (s, k, r))
                for q in qs:
                    f.write("EXPLAIN (ANALYZE, TIMING OFF) EXECUTE %s(%s, %d);\n" % (s, arg(q), k))
            # The same without EXPLAIN: pg_stat_statements' mean over the rounds after a warm-up.
            for r in range(reps + 1):
                if r == 1:
                    f.write("SELECT pg_stat_statements_reset();\n")
                for q in qs:
                    f.write("EXECUTE %s(%s, %d);\n" % (s, arg(q), k))
            f.write("SELECT 'S %s %d ' || calls || ' ' || mean_exec_time FROM pg_stat_statements"
                    " WHERE query LIKE 'PREPARE %s(%%';\n" % (s, k, s))
EOF
psql -f "$DIR/check.sql" >"$DIR/check.out"
run=1
while [ "$run" -le "$RUNS" ]; do
  echo "run $run: PostGIS at load $(cut -d' ' -f1 /proc/loadavg)"
  psql -f "$DIR/time.sql" | grep -E '^R |^S |Execution Time' >"$DIR/time-$run.out"
  echo "run $run: geo_nearest at load $(cut -d' ' -f1 /proc/loadavg)"
  build/bench/bench --only geo_nearest --size "$SIZE" --reps "$REPS" --json "$DIR/ours-$run.json" >"$DIR/ours-$run.out"
  echo "run $run: done at load $(cut -d' ' -f1 /proc/loadavg)"
  run=$((run + 1))
done

rc=0
"$PY" - report "$DIR" "$RUNS" <<'EOF' || rc=$?
import json, os, sqlite3, statistics, sys, time
d, runs = sys.argv[2], int(sys.argv[3])
R_PG, R_OURS = 6371008.7714, 6372797.560856   # PostGIS's sphere for geography; geo_distance's
queries = [l.rstrip("\n").split("\t") for l in open(os.path.join(d, "nearest_queries.tsv")) if l.strip()]
pg = {}
for line in open(os.path.join(d, "pg.txt")):
    f = line.split()
    if f[0] == "size":
        pg[(f[0], f[1])] = f[2:]
    else:
        pg[f[0]] = line.rstrip("\n").split(" ", 1)[1]

# Rows of each (statement, query) and the plans.
rows, plans, cur = {}, {}, None
for line in open(os.path.join(d, "check.out")):
    line = line.rstrip("\n")
    if line.startswith("P "):
        cur = ("P", line[2:])
        plans[line[2:]] = []
    elif line.startswith("Q "):
        s, i = line[2:].split()
        cur = (s, int(i))
        rows[cur] = []
    elif line and cur[0] == "P":
        plans[cur[1]].append(line.strip())
    elif line:
        pid, dist = line.split("|")
        rows[cur].append((int(pid), float(dist)))

# Our distances: geo_distance on the points of our answers.
want = set()
for q in queries:
    want.update(int(x) for x in q[4].split(",") if x)
for (s, i), r in rows.items():
    want.update(pid for pid, _ in r)
pts = {}
with open(os.path.join(d, "nearest_points.tsv")) as f:
    for line in f:
        pid, lat, lon = line.split("\t")
        if int(pid) in want:
            pts[int(pid)] = (float(lat), float(lon))
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension("dist/nosql")
def dist(pid, q):
    lat, lon = pts[pid]
    return db.execute("SELECT geo_distance(?, ?, ?, ?)", (float(q[1]), float(q[2]), lat, lon)).fetchone()[0]

def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) or abs(a - b) < 1e-6

agree = {}   # (s, k) -> [queries, same order, same distances, differ, worst k-th excess]
bad = 0
ratios = []
for i, q in enumerate(queries):
    k = int(q[0])
    mine = [int(x) for x in q[4].split(",") if x]
    myd = [dist(p, q) for p in mine]
    for s in "gm":
        a = agree.setdefault((s, k), [0, 0, 0, 0, 0.0])
        theirs = rows[(s, i)]
        tid = [p for p, _ in theirs]
        # Sphere distances of theirs on our radius: geography's own (scaled), geometry's through ours.
        td = [x * R_OURS / R_PG for _, x in theirs] if s == "g" else [dist(p, q) for p in tid]
        if s == "g":
            ratios += [x / y for (pp, x), mp, y in zip(theirs, mine, myd) if pp == mp and y > 0]
        a[0] += 1
        if tid == mine:
            a[1] += 1
            if s == "g" and not all(close(x, y) for x, y in zip(td, myd)):
                a[3] += 1
                bad += 1
        elif len(td) == len(myd) and all(close(x, y) for x, y in zip(td, myd)):
            a[2] += 1
        else:
            a[3] += 1
            if s == "g":
                bad += 1
                print("DISAGREE geography k = %d centre %d: ours %s, PostGIS %s" % (k, i, mine, tid))
        if td and myd and myd[-1] > 0:
            a[4] = max(a[4], max(td) / myd[-1] - 1.0)

def rounds(path):
    """{(s, k): [ms per query of each round]}, the warm-up round left out."""
    out, cur = {}, None
    for line in open(path):
        f = line.split()
        if f[0] == "S":
            continue
        if f[0] == "R":
            cur = (f[1], int(f[2]))
            skip = f[3] == "0"
            if not skip:
                out.setdefault(cur, []).append([])
        elif not skip:
            out[cur][-1].append(float(line.split("Execution Time:")[1].split()[0]))
    return {key: [statistics.mean(r) for r in v] for key, v in out.items()}

def pgss(path):
    """{(s, k): (calls, mean ms)} from pg_stat_statements."""
    return {(f[1], int(f[2])): (int(f[3]), float(f[4])) for f in (l.split() for l in open(path)) if f[0] == "S"}

def ours(path):
    out = {}
    for r in json.load(open(path))["results"]:
        w = r["workload"]
        if w.startswith("geo_nearest: k = ") and w.split("= ")[1].isdigit() and "geo_nearest: rings" in r["variant"]:
            out[int(w.split("= ")[1])] = r["ns_per_unit"] / 1e6
    return out

def spread(v):
    return (max(v) - min(v)) / statistics.median(v) if len(v) > 1 else 0.0

ks = sorted({int(q[0]) for q in queries})
res = []
for run in range(1, runs + 1):
    path = os.path.join(d, "time-%d.out" % run)
    res.append((rounds(path), ours(os.path.join(d, "ours-%d.json" % run)), pgss(path)))

print("\nPostgreSQL %s, PostGIS %s beside nosql %s (SQLite %s), %s\n" % (
    pg["postgres"], pg["postgis"], db.execute("SELECT nosql_version()").fetchone()[0], sqlite3.sqlite_version,
    time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())))
for t, name in (("geog", "geography(Point, 4326)"), ("geom", "geometry(Point, 4326)")):
    n, tbytes, ibytes, build = pg[("size", t)]
    print("%s: %s rows, table %s bytes (%.1f per point), GiST %s bytes (%.1f per point), index build %s s"
          % (name, n, tbytes, int(tbytes) / int(n), ibytes, int(ibytes) / int(n), build))
print("load (COPY and both CREATE TABLE AS): %s s" % pg["load"])
for s in "gm":
    print("plan %s: %s" % (s, " / ".join(plans[s])))
print()
print("| k | run | PostGIS geography ms: EXPLAIN (spread) / pg_stat_statements | PostGIS geometry ms: EXPLAIN /"
      " pg_stat_statements | geo_nearest ms | geo_nearest / geography (EXPLAIN / pg_stat_statements) |")
print("|---:|---:|---:|---:|---:|---:|")
for k in ks:
    for run, (pgt, mine, ss) in enumerate(res, 1):
        g, m = pgt[("g", k)], pgt[("m", k)]
        gm, gs = statistics.median(g), ss[("g", k)][1]
        print("| %d | %d | %.4f (%.0f%%) / %.4f | %.4f / %.4f | %s | %s |" % (
            k, run, gm, 100 * spread(g), gs, statistics.median(m), ss[("m", k)][1],
            "%.4f" % mine[k] if k in mine else "-",
            "%.2fx / %.2fx" % (mine[k] / gm, mine[k] / gs) if k in mine else "-"))
print()
print("| k | statement | queries | same ids in order | same distances, ties or near-ties swapped | differ | farthest row's excess over ours |")
print("|---:|---|---:|---:|---:|---:|---:|")
for k in ks:
    for s, name in (("g", "geography <->"), ("m", "geometry <->")):
        a = agree[(s, k)]
        print("| %d | %s | %d | %d | %d | %d | %.3g%% |" % (k, name, a[0], a[1], a[2], a[3], 100 * a[4]))
print()
if ratios:
    print("PostGIS geography distance / geo_distance over the same pairs: %.9f to %.9f (radius ratio %.9f)"
          % (min(ratios), max(ratios), R_PG / R_OURS))
print("PostGIS: median over %d rounds of each round's mean EXPLAIN (ANALYZE, TIMING OFF) execution time,"
      " and pg_stat_statements' mean_exec_time over the same rounds of EXECUTE (%d calls);"
      " ours: the bench's median per query, in process." % (len(res[0][0][("g", ks[0])]), res[0][2][("g", ks[0])][0]))
sys.exit(1 if bad else 0)
EOF
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc

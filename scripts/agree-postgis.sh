#!/usr/bin/env bash
# Compares geohash(), geohash_decode(), geohash_lat() and geohash_lon() with
# PostGIS's ST_GeoHash, ST_Box2dFromGeoHash and ST_PointFromGeoHash on the
# same points: 20,000 random ones, 14,400 on cell borders of every
# precision (where the border convention shows), and the poles, the
# antimeridian and the equator at every precision. Needs a running
# PostgreSQL with PostGIS (Debian: postgresql-15-postgis-3), psql as the
# postgres user, python3 and the sqlite3 shell; not part of make test.
#   bash scripts/agree-postgis.sh            (after make)
set -eu
cd "$(dirname "$0")/.."
ext=$PWD/dist/nosql
dir=$(mktemp -d /tmp/agree-postgis-XXXXXX)
trap 'rm -rf "$dir"' EXIT
chmod 777 "$dir"

python3 - "$dir/pts.csv" <<'PY'
import random, sys
random.seed(7)
pts = [(random.uniform(-90, 90), random.uniform(-180, 180), random.randint(1, 12)) for _ in range(20000)]
for p in range(1, 13):
    lonb, latb = (5 * p + 1) // 2, 5 * p // 2
    for _ in range(400):
        lon = -180 + random.randint(0, 2 ** lonb) * 360 / 2 ** lonb
        lat = -90 + random.randint(0, 2 ** latb) * 180 / 2 ** latb
        pts += [(lat, lon, p), (lat, random.uniform(-180, 180), p), (random.uniform(-90, 90), lon, p)]
for lat in (-90, 0, 90, 45, -45, 89.99999999999999):
    for lon in (-180, 0, 180, 90, -90, 179.99999999999997):
        pts += [(lat, lon, p) for p in range(1, 13)]
with open(sys.argv[1], "w") as f:
    for i, (lat, lon, p) in enumerate(pts):
        f.write("%d,%r,%r,%d\n" % (i, lat, lon, p))
PY
chmod 644 "$dir/pts.csv"

cat >"$dir/pg.sql" <<SQL
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TEMP TABLE p(i int, lat float8, lon float8, prec int);
\copy p FROM '$dir/pts.csv' CSV
CREATE TEMP TABLE h AS SELECT i, ST_GeoHash(ST_SetSRID(ST_MakePoint(lon, lat), 4326), prec) AS hash FROM p;
\copy (SELECT i, hash, ST_XMin(b), ST_YMin(b), ST_XMax(b), ST_YMax(b), ST_X(c), ST_Y(c) FROM (SELECT i, hash, ST_Box2dFromGeoHash(hash) b, ST_PointFromGeoHash(hash) c FROM h) s ORDER BY i) TO '$dir/pg.csv' CSV
SQL
chmod 644 "$dir/pg.sql"
PGOPTIONS="-c client_min_messages=warning" su postgres -c "psql -X -q -v ON_ERROR_STOP=1 -f $dir/pg.sql" >/dev/null

sqlite3 :memory: -cmd ".load $ext" \
  "CREATE TABLE p(i INT, lat REAL, lon REAL, prec INT)" ".import --csv $dir/pts.csv p" \
  ".mode csv" ".output $dir/sq.csv" \
  "WITH g AS (SELECT i, geohash(lat, lon, prec) AS hash FROM p)
   SELECT g.i, g.hash, printf('%!.17g', min_lon), printf('%!.17g', min_lat), printf('%!.17g', max_lon),
          printf('%!.17g', max_lat), printf('%!.17g', lon), printf('%!.17g', lat),
          geohash_lat(g.hash) = d.lat AND geohash_lon(g.hash) = d.lon
   FROM g, geohash_decode(g.hash) d ORDER BY g.i"

python3 - "$dir/pg.csv" "$dir/sq.csv" <<'PY'
import sys
pg = [l.strip().split(",") for l in open(sys.argv[1])]
sq = [l.strip().replace('"', "").split(",") for l in open(sys.argv[2])]
bad = 0
if len(pg) != len(sq) or len(pg) < 30000:
    sys.exit("row counts differ or too few rows: PostGIS %d, nosql %d" % (len(pg), len(sq)))
for a, b in zip(pg, sq):
    same = a[0] == b[0] and a[1] == b[1] and [float(v) for v in a[2:]] == [float(v) for v in b[2:8]] and b[8] == "1"
    if not same:
        bad += 1
        if bad <= 10:
            print("DISAGREE", a, b)
print("geohash vs PostGIS: %d points, %d disagree" % (len(pg), bad))
sys.exit(1 if bad else 0)
PY

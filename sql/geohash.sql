-- geohash.sql: dimensionality reduction (technique 6), side by side. Run it
-- with `make demo`, or
--   sqlite3 :memory: < sql/geohash.sql
-- from the repository root after `make`.
--
-- Two questions, "points within r metres" and "points in this box", each
-- answered four ways on the same table:
--   1. full scan with geo_distance (or the box predicate);
--   2. a B-tree on (lat, lon): box scan, then the exact filter;
--   3. an R*Tree: box query, then the exact filter;
--   4. the NoSQL way: geohash cover -> range scans of a B-tree on the
--      geohash string, then the exact filter. The default layout is a
--      covering index on (gh, lat, lon), read alone; the radius question
--      also asks a WITHOUT ROWID table clustered on (gh, id), the other
--      layout that needs no lookup per candidate (docs/geohash.md).
-- Each question ends with a row saying 'agree' when every way returns the
-- same rows ('DISAGREE' otherwise). Last, the bytes of each layout, with
-- the plain index on gh alone (the cheap one to add, slower: it reads the
-- table once per candidate).
.load ./dist/nosql
.headers on
.mode column

-- 20000 deterministic points: most over Europe, some around Fiji, where
-- the antimeridian runs, and a few on the north pole.
CREATE TABLE places(id INTEGER PRIMARY KEY, lat REAL, lon REAL,
                    gh TEXT GENERATED ALWAYS AS (geohash(lat, lon)) STORED);
WITH RECURSIVE g(i, x, y) AS (
  SELECT 1, 12345, 678
  UNION ALL
  SELECT i + 1, (x * 1103515245 + 12345) % 2147483648, (y * 69069 + 1) % 4294967296 FROM g WHERE i < 20000),
u AS (SELECT i, x / 2147483648.0 AS a, y / 4294967296.0 AS b FROM g)
INSERT INTO places(id, lat, lon)
SELECT i,
       CASE WHEN i % 10 = 0 THEN -25 + a * 15 WHEN i % 97 = 0 THEN 89 + a ELSE 35 + a * 25 END,
       CASE WHEN i % 10 = 0 THEN (CASE WHEN b < 0.5 THEN 175 + b * 10 ELSE -185 + b * 10 END)
            ELSE -10 + b * 40 END
  FROM u;

CREATE INDEX places_gh ON places(gh, lat, lon);
CREATE TABLE places_wr(gh TEXT NOT NULL CHECK (gh = geohash(lat, lon)), id INTEGER NOT NULL,
                       lat REAL NOT NULL, lon REAL NOT NULL, PRIMARY KEY (gh, id)) WITHOUT ROWID;
INSERT INTO places_wr SELECT gh, id, lat, lon FROM places;
CREATE INDEX places_ll ON places(lat, lon);
CREATE VIRTUAL TABLE places_rt USING rtree(id, min_lat, max_lat, min_lon, max_lon);
INSERT INTO places_rt SELECT id, lat, lat, lon, lon FROM places;

-- The questions.
CREATE TABLE circles(name TEXT, lat REAL, lon REAL, r REAL);
INSERT INTO circles VALUES ('50 km around Paris', 48.8566, 2.3522, 50000),
                           ('300 km around Suva, across 180', -18.1416, 178.4419, 300000),
                           ('150 km around the north pole', 90, 0, 150000);
CREATE TABLE boxes(name TEXT, min_lat REAL, min_lon REAL, max_lat REAL, max_lon REAL);
INSERT INTO boxes VALUES ('lat 45..50, lon 0..5', 45, 0, 50, 5),
                         ('lat -20..-15, lon 178..-178 (across 180)', -20, 178, -15, -178);

.print
.print -- The radius recipe and its plan: the cover drives range scans of the covering index.
EXPLAIN QUERY PLAN
SELECT p.id FROM geohash_cover(48.8566, 2.3522, 50000) c
  JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
 WHERE geo_distance(p.lat, p.lon, 48.8566, 2.3522) <= 50000;

.print
.print -- Points within r metres: the rows each way finds, per circle.
CREATE TEMP VIEW radius_answers AS
SELECT k.name, 'full scan' AS way, p.id FROM circles k, places p
 WHERE geo_distance(p.lat, p.lon, k.lat, k.lon) <= k.r
UNION ALL
SELECT k.name, '(lat, lon) B-tree', p.id FROM circles k, geo_bbox(k.lat, k.lon, k.r) b
  JOIN places p ON p.lat BETWEEN b.min_lat AND b.max_lat AND p.lon BETWEEN b.min_lon AND b.max_lon
 WHERE geo_distance(p.lat, p.lon, k.lat, k.lon) <= k.r
UNION ALL
SELECT k.name, 'R*Tree', p.id FROM circles k, geo_bbox(k.lat, k.lon, k.r) b
  JOIN places_rt t ON t.min_lat <= b.max_lat AND t.max_lat >= b.min_lat
                  AND t.min_lon <= b.max_lon AND t.max_lon >= b.min_lon
  JOIN places p ON p.id = t.id
 WHERE geo_distance(p.lat, p.lon, k.lat, k.lon) <= k.r
UNION ALL
SELECT k.name, 'geohash cover', p.id FROM circles k, geohash_cover(k.lat, k.lon, k.r) c
  JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
 WHERE geo_distance(p.lat, p.lon, k.lat, k.lon) <= k.r
UNION ALL
SELECT k.name, 'geohash cover, WITHOUT ROWID', w.id FROM circles k, geohash_cover(k.lat, k.lon, k.r) c
  JOIN places_wr w ON w.gh >= c.lo AND w.gh < c.hi
 WHERE geo_distance(w.lat, w.lon, k.lat, k.lon) <= k.r;

SELECT name, way, count(*) AS points, sum(id) AS id_sum FROM radius_answers GROUP BY name, way ORDER BY name, way;

.print
SELECT 'points within r metres' AS question,
       CASE WHEN (SELECT count(*) FROM (
                    SELECT name, id, count(*) AS n FROM radius_answers GROUP BY name, id) WHERE n != 5) = 0
             AND (SELECT count(DISTINCT way) FROM radius_answers) = 5
             AND (SELECT count(*) FROM radius_answers) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print -- Points in a box (min_lon > max_lon: across the antimeridian).
CREATE TEMP VIEW box_answers AS
SELECT k.name, 'full scan' AS way, p.id FROM boxes k, places p
 WHERE p.lat BETWEEN k.min_lat AND k.max_lat
   AND (CASE WHEN k.min_lon <= k.max_lon THEN p.lon BETWEEN k.min_lon AND k.max_lon
             ELSE p.lon >= k.min_lon OR p.lon <= k.max_lon END)
UNION ALL
SELECT k.name, '(lat, lon) B-tree', p.id FROM boxes k
  JOIN places p ON p.lat BETWEEN k.min_lat AND k.max_lat
 WHERE (CASE WHEN k.min_lon <= k.max_lon THEN p.lon BETWEEN k.min_lon AND k.max_lon
             ELSE p.lon >= k.min_lon OR p.lon <= k.max_lon END)
UNION ALL
SELECT k.name, 'R*Tree', t.id FROM boxes k
  JOIN places_rt t ON t.min_lat <= k.max_lat AND t.max_lat >= k.min_lat
  JOIN places p ON p.id = t.id
 WHERE p.lat BETWEEN k.min_lat AND k.max_lat
   AND (CASE WHEN k.min_lon <= k.max_lon THEN p.lon BETWEEN k.min_lon AND k.max_lon
             ELSE p.lon >= k.min_lon OR p.lon <= k.max_lon END)
UNION ALL
SELECT k.name, 'geohash cover', p.id FROM boxes k,
       geohash_cover_box(k.min_lat, k.min_lon, k.max_lat, k.max_lon) c
  JOIN places p ON p.gh >= c.lo AND p.gh < c.hi
 WHERE p.lat BETWEEN k.min_lat AND k.max_lat
   AND (CASE WHEN k.min_lon <= k.max_lon THEN p.lon BETWEEN k.min_lon AND k.max_lon
             ELSE p.lon >= k.min_lon OR p.lon <= k.max_lon END);

SELECT name, way, count(*) AS points, sum(id) AS id_sum FROM box_answers GROUP BY name, way ORDER BY name, way;

.print
SELECT 'points in a box' AS question,
       CASE WHEN (SELECT count(*) FROM (
                    SELECT name, id, count(*) AS n FROM box_answers GROUP BY name, id) WHERE n != 4) = 0
             AND (SELECT count(DISTINCT way) FROM box_answers) = 4
             AND (SELECT count(*) FROM box_answers) > 0
            THEN 'agree' ELSE 'DISAGREE' END AS result;

.print
.print -- Locality: consecutive Hilbert keys are always neighbours; Z-order (geohash's curve) jumps.
WITH RECURSIVE d(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM d WHERE i < 4094)
SELECT 'mean step between consecutive keys, 64 x 64 grid' AS measure,
       round(avg(abs(hilbert_x(i + 1, 6) - hilbert_x(i, 6)) + abs(hilbert_y(i + 1, 6) - hilbert_y(i, 6))), 3) AS hilbert,
       round(avg(abs(zorder_x(i + 1) - zorder_x(i)) + abs(zorder_y(i + 1) - zorder_y(i))), 3) AS zorder
  FROM d;

.print
.print -- Bytes of each layout (dbstat pages; 20000 points).
CREATE INDEX places_gh_plain ON places(gh);
SELECT CASE name WHEN 'places' THEN 'the table places (id, lat, lon, gh)'
                 WHEN 'places_gh' THEN 'covering index (gh, lat, lon): the default'
                 WHEN 'places_wr' THEN 'WITHOUT ROWID table (gh, id, lat, lon)'
                 ELSE 'plain index (gh): cheap to add, a table read per candidate' END AS layout,
       sum(pgsize) AS bytes, round(sum(pgsize) / 20000.0, 1) AS per_point
  FROM dbstat WHERE name IN ('places', 'places_gh', 'places_wr', 'places_gh_plain')
 GROUP BY name ORDER BY name;
